/**
 * Installers cannot be built here (electron-builder downloads Electron and its
 * tools), so this test holds the configuration to electron-builder's own schema
 * and to what the kiosk needs from its installers (docs/kiosk.md "Packaging").
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  validateConfiguration: (config: unknown, debugLogger: { isEnabled: boolean; add: () => void }) => Promise<void>;
};

const config = yaml.load(fs.readFileSync('electron-builder.yml', 'utf8')) as Record<string, any>;
const quietLogger = { isEnabled: false, add: () => undefined };

describe('electron-builder.yml', () => {
  it("passes electron-builder's own configuration schema", async () => {
    await expect(validateConfiguration(config, quietLogger)).resolves.toBeUndefined();
  });

  it('the schema check is real: a misspelt option is refused', async () => {
    await expect(validateConfiguration({ ...config, linux: { ...config.linux, targte: ['deb'] } }, quietLogger)).rejects.toThrow(/configuration.linux/);
  });

  it('names the app and builds AppImage + deb, NSIS and dmg', () => {
    expect(config.appId).toBe('org.ticketverification.kiosk');
    expect(config.productName).toBe('Ticket Kiosk');
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
  });

  it('unpacks and rebuilds every native module the kiosk loads', () => {
    expect(config.npmRebuild).toBe(true);
    for (const module of ['better-sqlite3', 'keytar', 'node-hid']) {
      expect(config.asarUnpack).toContain(`node_modules/${module}/**`);
    }
    expect(config.asarUnpack).toContain('**/*.node');
  });

  it('ships the udev rule and installs it from the .deb', () => {
    const rule = config.extraResources.find((r: { from: string }) => r.from.endsWith('.rules'));
    expect(fs.existsSync(rule.from)).toBe(true);
    const rules = fs.readFileSync(rule.from, 'utf8');
    expect(rules).toMatch(/SUBSYSTEM=="hidraw".*GROUP="plugdev"/);
    const afterInstall = fs.readFileSync(config.deb.afterInstall, 'utf8');
    expect(afterInstall).toContain(`resources/${rule.to}`);
    expect(afterInstall).toContain('/etc/udev/rules.d/');
    expect(fs.statSync(config.deb.afterInstall).mode & 0o111).not.toBe(0);
  });
});
