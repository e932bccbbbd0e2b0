// The layer rule (lint/layers.js) refuses the imports docs/architecture.md forbids, and allows the ones it names.
import { describe, expect, it } from 'vitest';
import { layerOf, layerViolation } from '../../../lint/layers.js';

describe('layers: what each folder may import', () => {
  it('keeps protocol/ pure: no Node module, nothing outside itself', () => {
    expect(layerViolation('protocol/verdict.ts', 'node:fs')).toMatch(/protocol\/ imports no Node module/);
    expect(layerViolation('protocol/verdict.ts', 'crypto')).toMatch(/no Node module/);
    expect(layerViolation('protocol/verdict.ts', '../issuer/errors.js')).toMatch(/protocol\/ may not import issuer\/errors/);
    expect(layerViolation('protocol/verdict.ts', './ticket-code.js')).toBeNull();
    expect(layerViolation('protocol/ed25519.ts', '@noble/ed25519')).toBeNull();
  });

  it('lets only main/electron/ import electron', () => {
    expect(layerViolation('main/electron/main.ts', 'electron')).toBeNull();
    expect(layerViolation('main/host/kiosk-runtime.ts', 'electron')).toMatch(/Only main\/electron\/ imports electron/);
    expect(layerViolation('main/web-host/server.ts', 'electron')).toMatch(/Only main\/electron\//);
    expect(layerViolation('renderer/app.ts', 'electron')).toMatch(/Only main\/electron\//);
  });

  it('keeps the host-neutral runtime and the kiosk core free of either host', () => {
    expect(layerViolation('main/host/kiosk-runtime.ts', '../electron/security.js')).toMatch(
      /main\/host\/ may not import main\/electron\/security/,
    );
    expect(layerViolation('main/host/kiosk-runtime.ts', '../web-host/server.js')).toMatch(/may not import main\/web-host/);
    expect(layerViolation('main/kiosk/kiosk-core.ts', '../host/kiosk-runtime.js')).toMatch(/main\/kiosk\/ may not import main\/host/);
    expect(layerViolation('main/web-host/server.ts', '../host/kiosk-runtime.js')).toBeNull();
    expect(layerViolation('main/web-host/server.ts', '../electron/security.js')).toMatch(/main\/web-host\/ may not import main\/electron/);
  });

  it('keeps the browser pages to protocol/ and their own types', () => {
    expect(layerViolation('renderer/app.ts', '../protocol/verdict.js')).toBeNull();
    expect(layerViolation('renderer/app.ts', '../main/kiosk/kiosk-core.js')).toMatch(/renderer\/ may not import main\/kiosk\/kiosk-core/);
    expect(layerViolation('renderer/app.ts', 'node:fs')).toMatch(/renderer\/ imports no Node module/);
    expect(layerViolation('dashboard/api.ts', '../issuer/store/database.js')).toMatch(/dashboard\/ may not import issuer\/store\/database/);
  });

  it('keeps the CLI out of the issuer service and routes', () => {
    expect(layerViolation('issuer/services/check-in.ts', '../cli/output.js')).toMatch(
      /issuer\/services\/ may not import issuer\/cli\/output: the service never imports the CLI/,
    );
    expect(layerViolation('issuer/routes/check-in.ts', '../cli/main.js')).toMatch(/the routes never import the CLI/);
    expect(layerViolation('issuer/services/check-in.ts', '../store/checkins.js')).toBeNull();
    expect(layerViolation('issuer/app.ts', '../main/kiosk/kiosk-core.js')).toMatch(/issuer\/ may not import main\/kiosk/);
  });

  it('keeps tests off bench/ and unit tests off files, sockets, processes and the keyring', () => {
    expect(layerViolation('test/integration/issuer/check-in.test.ts', '../../../bench/fixtures.js')).toMatch(/tests never import bench\//);
    expect(layerViolation('test/unit/kiosk/backoff.test.ts', 'node:fs')).toMatch(/a unit test touches no socket, file, process or keyring/);
    expect(layerViolation('test/unit/kiosk/backoff.test.ts', 'better-sqlite3')).toMatch(/a unit test touches no/);
    expect(layerViolation('test/unit/kiosk/backoff.test.ts', 'keytar')).toMatch(/a unit test touches no/);
    expect(layerViolation('test/integration/kiosk/local-store.test.ts', 'node:fs')).toBeNull();
    expect(layerViolation('bench/soak-bench.ts', '../test/support/ports.js')).toBeNull();
  });

  it('finds the most specific layer for a file', () => {
    expect(layerOf('issuer/services/check-in.ts').layer).toBe('issuer/services/');
    expect(layerOf('issuer/app.ts').layer).toBe('issuer/');
    expect(layerOf('renderer/vite.config.ts').node).toBe(true);
    expect(layerOf('scripts/demo.mjs').mayImport).toBeNull();
  });
});
