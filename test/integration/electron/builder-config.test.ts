/**
 * Installers cannot be built here (electron-builder downloads Electron and its
 * tools), so this test holds the configuration to electron-builder's own schema
 * and to what the kiosk needs from its installers (docs/kiosk.md "Packaging").
 */
import type { Configuration } from 'electron-builder';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  validateConfiguration: (config: unknown, debugLogger: { isEnabled: boolean; add: () => void }) => Promise<void>;
};

const config = yaml.load(fs.readFileSync('electron-builder.yml', 'utf8')) as Configuration;
const quietLogger = { isEnabled: false, add: () => undefined };

describe('electron-builder.yml', () => {
  it("passes electron-builder's own configuration schema", async () => {
    await expect(validateConfiguration(config, quietLogger)).resolves.toBeUndefined();
  });

  it('the schema check is real: a misspelt option is refused', async () => {
    await expect(validateConfiguration({ ...config, linux: { ...config.linux, targte: ['deb'] } }, quietLogger)).rejects.toThrow(
      /configuration.linux/,
    );
  });

  it('names the app and builds AppImage + deb, NSIS and dmg', () => {
    expect(config.appId).toBe('org.ticketverification.kiosk');
    expect(config.productName).toBe('Ticket Kiosk');
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.target).toEqual(['dmg']);
  });

  it('unpacks and rebuilds every native module the kiosk loads', () => {
    expect(config.npmRebuild).toBe(true);
    for (const module of ['better-sqlite3', 'keytar', 'node-hid']) {
      expect(config.asarUnpack).toContain(`node_modules/${module}/**`);
    }
    expect(config.asarUnpack).toContain('**/*.node');
  });

  it('flips every fuse the kiosk needs in the shipped binary', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
    // The asar they check is really built.
    expect(config.asar).toBe(true);
  });

  const packagedBinary = ['release/linux-unpacked/ticket-kiosk', 'release/linux-unpacked/Ticket Kiosk'].find((file) => fs.existsSync(file));
  if (!packagedBinary) {
    console.log(
      '[builder-config] no packaged app under release/: electron-builder must download Electron to build one, which this machine cannot; the fuses are read back from the binary on a release machine',
    );
  }
  it.skipIf(!packagedBinary)('the packaged binary carries those fuses (read back with @electron/fuses)', async () => {
    // @electron/fuses comes with electron-builder; its wire stores '0' (48) for off and '1' (49) for on.
    const { getCurrentFuseWire, FuseV1Options } = await import('@electron/fuses');
    const FuseState = { DISABLE: 48, ENABLE: 49 } as const;
    const wire = await getCurrentFuseWire(packagedBinary!);
    expect(wire[FuseV1Options.RunAsNode]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(FuseState.DISABLE);
  });

  it('ships the udev rule and installs it from the .deb', () => {
    // electron-builder.yml lists each extra resource as {from, to}.
    const resources = (config.extraResources ?? []) as { from: string; to: string }[];
    const rule = resources.find((r) => r.from.endsWith('.rules'));
    expect(rule).toBeDefined();
    if (!rule) return;
    expect(fs.existsSync(rule.from)).toBe(true);
    const rules = fs.readFileSync(rule.from, 'utf8');
    expect(rules).toMatch(/SUBSYSTEM=="hidraw".*GROUP="plugdev"/);
    const afterInstallScript = config.deb?.afterInstall;
    expect(afterInstallScript).toEqual(expect.any(String));
    const afterInstall = fs.readFileSync(afterInstallScript!, 'utf8');
    expect(afterInstall).toContain(`resources/${rule.to}`);
    expect(afterInstall).toContain('/etc/udev/rules.d/');
    expect(fs.statSync(afterInstallScript!).mode & 0o111).not.toBe(0);
  });
});
