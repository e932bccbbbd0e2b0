/**
 * The `npm start` launcher's check for the Electron binary: it must never
 * trigger electron's first-launch download, and must say where to go instead.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkElectronRuns, electronUnavailableMessage, locateElectronBinary } from '../../../main/start.js';

const installedElectron = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
const temps: string[] = [];

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package directory laid out as electron's install.js leaves it, with `binary` as the executable. */
function fakeElectronPackage(binaryScript: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'electron-pkg-'));
  temps.push(dir);
  writeFileSync(join(dir, 'path.txt'), 'electron');
  if (binaryScript !== null) {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'electron'), binaryScript);
    chmodSync(join(dir, 'dist', 'electron'), 0o755);
  }
  return dir;
}

// The first test is about an install whose binary was never downloaded (this project's CI); say so when it does not apply.
const electronDownloaded = existsSync(join(installedElectron, 'path.txt'));
if (electronDownloaded) {
  console.warn(
    'Skipping "reports the installed package without a binary as unavailable": the Electron binary was downloaded on this machine (node_modules/electron/path.txt exists).',
  );
}

describe('locating Electron', () => {
  it.skipIf(electronDownloaded)('reports the installed package without a binary as unavailable, and downloads nothing', () => {
    const located = locateElectronBinary(installedElectron, {});
    expect(located).toEqual({ available: false, reason: expect.stringMatching(/never downloaded/) });
    expect(existsSync(join(installedElectron, 'path.txt'))).toBe(false);
    expect(existsSync(join(installedElectron, 'dist'))).toBe(false);
  });

  it('reports a missing package and a missing binary', () => {
    expect(locateElectronBinary(null, {})).toEqual({ available: false, reason: 'the electron package is not installed' });
    expect(locateElectronBinary(fakeElectronPackage(null), {})).toEqual({
      available: false,
      reason: expect.stringMatching(/binary is missing/),
    });
  });

  it('finds the binary where path.txt says, or under ELECTRON_OVERRIDE_DIST_PATH', () => {
    const dir = fakeElectronPackage('#!/bin/sh\necho v45.4.1\n');
    expect(locateElectronBinary(dir, {})).toEqual({ available: true, path: join(dir, 'dist', 'electron') });
    expect(locateElectronBinary(dir, { ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'dist') })).toEqual({
      available: true,
      path: join(dir, 'dist', 'electron'),
    });
    expect(locateElectronBinary(dir, { ELECTRON_OVERRIDE_DIST_PATH: '/nonexistent' }).available).toBe(false);
  });

  it('accepts a binary that reports its version and refuses one that fails or hangs', async () => {
    const works = join(fakeElectronPackage('#!/bin/sh\necho v45.4.1\n'), 'dist', 'electron');
    expect(await checkElectronRuns(works)).toEqual({ available: true, path: works });
    const broken = join(
      fakeElectronPackage('#!/bin/sh\necho "libgtk-3.so.0: cannot open shared object file" >&2\nexit 127\n'),
      'dist',
      'electron',
    );
    expect(await checkElectronRuns(broken)).toEqual({ available: false, reason: expect.stringMatching(/does not start/) });
    const hangs = join(fakeElectronPackage('#!/bin/sh\nexec sleep 30\n'), 'dist', 'electron');
    expect(await checkElectronRuns(hangs, 300)).toEqual({ available: false, reason: expect.stringMatching(/no answer to --version/) });
  });

  it('points to the browser host when Electron is unavailable', () => {
    expect(electronUnavailableMessage('its binary was never downloaded')).toBe(
      'Electron is not available on this machine (its binary was never downloaded). Run the kiosk in a browser instead: npx ticket-kiosk web',
    );
  });
});
