/**
 * `scanner calibration` through the built CLI (docs/issuer.md, docs/protocol.md
 * "Scanner calibration code"): the same code for everyone, with no data dir;
 * its PNG and its terminal QR read back to exactly CALIBRATION_CODE with two
 * independent decoders (jsqr and zxing-cpp), drawn with whole pixels per module
 * and a 4-module quiet zone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALIBRATION_CODE } from '../../../protocol/calibration-code.js';
import {
  checkModuleGrid,
  crop,
  decodeWithBoth,
  pngPixels,
  qrVersion,
  rasteriseTerminalQr,
  sideWithQuietZone,
  terminalQrLines,
  zxingResults,
} from '../../support/qr-decoders.js';
import { cliFailure, cliJson, runCli, scratchDir } from '../../support/cli-harness.js';

describe('scanner calibration', () => {
  it('--json prints {calibration_code} and touches no data dir', async () => {
    const dir = scratchDir('calibration-');
    const data = path.join(dir, 'no-issuer-here');
    expect(await cliJson(['scanner', 'calibration', '--data', data])).toEqual({ calibration_code: CALIBRATION_CODE });
    // Nor the default one, from the environment.
    expect(await cliJson(['scanner', 'calibration'], { TICKET_ISSUER_DATA: path.join(dir, 'env-data') })).toEqual({
      calibration_code: CALIBRATION_CODE,
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('--png writes an image both decoders read back to exactly the calibration code, with whole modules and a 4-module quiet zone', async () => {
    const file = path.join(scratchDir('calibration-png-'), 'calibration.png');
    const result = await runCli(['scanner', 'calibration', '--png', file, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ calibration_code: CALIBRATION_CODE, png: file });
    expect(result.stderr).toContain(`Calibration code written to ${file}`);

    const pixels = pngPixels(fs.readFileSync(file));
    expect(await decodeWithBoth(pixels)).toEqual([CALIBRATION_CODE, [CALIBRATION_CODE]]);
    const [read] = await zxingResults(pixels);
    expect(checkModuleGrid(pixels, sideWithQuietZone(qrVersion(read!)))).toBe(6);
  });

  it('without --json says what to do with it and draws it in the terminal, readable by both decoders, then prints the raw string', async () => {
    const result = await runCli(['scanner', 'calibration']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Setup or Ready/);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(CALIBRATION_CODE);

    // Drawn as a dark terminal shows it (the QR sets its own colours, so light modules stay light).
    const image = rasteriseTerminalQr(terminalQrLines(result.stdout));
    expect(await decodeWithBoth(image)).toEqual([CALIBRATION_CODE, [CALIBRATION_CODE]]);
    const [read] = await zxingResults(image);
    // Character rows hold two modules; the last half row, past the code, must be light too.
    expect(checkModuleGrid(crop(image, 0, 0, image.width, image.width), sideWithQuietZone(qrVersion(read!)))).toBe(4);
    expect(image.height - image.width).toBeLessThanOrEqual(4);
  });

  it('--png into a folder that does not exist: INVALID_ARGUMENT naming the folder', async () => {
    const missing = path.join(scratchDir('calibration-bad-'), 'missing');
    const failure = await cliFailure(['scanner', 'calibration', '--png', path.join(missing, 'c.png')]);
    expect(failure.code).toBe('INVALID_ARGUMENT');
    expect(failure.message).toBe(`--png: the folder ${missing} does not exist`);
  });
});
