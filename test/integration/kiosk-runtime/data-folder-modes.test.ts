/**
 * The kiosk's data folder is private at every start (docs/kiosk.md "Where the
 * kiosk keeps its data"): a --data folder that already exists with a looser
 * mode is tightened to 0700 with a log line; kiosk.db is 0600.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startKioskRuntime, type KioskRuntime } from '../../../main/host/kiosk-runtime.js';

let runtime: KioskRuntime | null = null;
let dataDir: string | null = null;

afterEach(async () => {
  await runtime?.close();
  runtime = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = null;
});

describe('kiosk data folder modes', () => {
  it('an existing 0755 --data folder becomes 0700, with a log line; kiosk.db is 0600', async () => {
    if (!process.env.DBUS_SESSION_BUS_ADDRESS)
      throw new Error('The kiosk runtime keeps its API key in the OS keyring: run this test inside scripts/with-keyring.sh');
    dataDir = mkdtempSync(join(tmpdir(), 'kiosk-modes-'));
    chmodSync(dataDir, 0o755);
    const log: string[] = [];
    runtime = await startKioskRuntime({
      dataDir,
      keyringService: `ticket-kiosk-modes-test-${process.pid}`,
      hidScanners: false,
      core: { autoDrain: false },
      log: (line) => log.push(line),
    });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'kiosk.db')).mode & 0o777).toBe(0o600);
    expect(log).toContain(`Data folder ${dataDir} was readable by others (mode 0755); it is now 0700.`);
  });
});
