/**
 * A real KioskCore for the kiosk-vs-issuer tests: a temp SQLite file and the
 * API key in the real OS keyring (KeychainApiKeyStore over SecretStore), under
 * a service name of the test's own so a real kiosk's key is never touched.
 * Needs a keyring session: scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Verdict } from '../../../../protocol/index.js';
import { KeychainApiKeyStore } from '../../../../main/kiosk/store/api-key-store.js';
import type { ScanResult } from '../../../../main/kiosk/kiosk-api.js';
import { KioskCore, type KioskCoreOptions } from '../../../../main/kiosk/kiosk-core.js';

export const HOW_TO_RUN =
  'The kiosk-vs-issuer tests keep the API key in a real, unlocked Secret Service keyring. ' +
  'Run them inside one: scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer';

/** Fails (never skips) with the instruction above when there is no usable keyring. */
export async function requireKeyring(keys: KeychainApiKeyStore): Promise<void> {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) throw new Error(`${HOW_TO_RUN} (DBUS_SESSION_BUS_ADDRESS is not set)`);
  try {
    await keys.checkAvailable();
  } catch (error) {
    throw new Error(`${HOW_TO_RUN}\nThe keyring check said: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** A keychain store under a service name of the test's own, so a real kiosk's key is never touched. */
export function testKeychain(label: string): KeychainApiKeyStore {
  return new KeychainApiKeyStore({ serviceName: `ticket-kiosk-test-${process.pid}-${label}` });
}

export class KioskHarness {
  readonly dir = mkdtempSync(join(tmpdir(), 'kiosk-vs-issuer-'));
  private readonly cores: KioskCore[] = [];
  private readonly stores: KeychainApiKeyStore[] = [];

  keychain(label: string): KeychainApiKeyStore {
    return testKeychain(label);
  }

  open(keys: KeychainApiKeyStore, options: Partial<KioskCoreOptions> & { db?: string } = {}): KioskCore {
    const { db = 'kiosk.db', ...rest } = options;
    // A generous budget: the tests assert which path a scan took, not how fast (a loaded 2-core machine).
    const core = new KioskCore({ dbPath: join(this.dir, db), apiKeys: keys, autoDrain: false, onlineBudgetMs: 5000, ...rest });
    this.cores.push(core);
    return core;
  }

  /** Remembers a keychain store (a service name of the test's own) whose every entry goes at cleanup. */
  track(keys: KeychainApiKeyStore): void {
    this.stores.push(keys);
  }

  async cleanup(): Promise<void> {
    for (const core of this.cores.splice(0)) await core.close();
    for (const keys of this.stores.splice(0)) await keys.secrets.deleteAll().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function verdictOf(result: ScanResult): Verdict {
  if (result.type !== 'verdict') throw new Error(`expected a verdict, got ${JSON.stringify(result)}`);
  return result.verdict;
}

export async function enrollWith(core: KioskCore, setupCode: string): Promise<void> {
  const result = await core.scan(setupCode);
  expect(result, JSON.stringify(result)).toMatchObject({ type: 'enrolled' });
}

/** Polls `condition` until it holds; fails after `timeoutMs` (a bound, not an assertion on speed). */
export async function eventually(condition: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
