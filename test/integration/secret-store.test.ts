/**
 * The secret store against the real OS keyring (gnome-keyring over D-Bus).
 * Run inside a keyring session:
 *   scripts/with-keyring.sh npx vitest run test/integration/secret-store.test.ts
 * Outside one, every test fails with that instruction (no silent skip).
 *
 * The "unavailable" paths run for real in child node processes: one whose
 * D-Bus address points at a socket that does not exist, and one where the
 * keytar module cannot be resolved at all.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretStore, SecretStoreUnavailableError } from '../../main/kiosk/store/api-key-store.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const HOW_TO_RUN =
  'The secret-store integration test needs a real, unlocked Secret Service keyring. ' +
  'Run it inside one: scripts/with-keyring.sh npx vitest run test/integration/secret-store.test.ts';

// A service name of our own, so the test never reads or deletes a real kiosk's key.
const SERVICE = `ticket-kiosk-test-${process.pid}`;
const ISSUER = 'https://issuer.example.test';
const OTHER_ISSUER = 'https://other-issuer.example.test';
const API_KEY = 'tvk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

const store = new SecretStore({ serviceName: SERVICE });

beforeAll(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) throw new Error(`${HOW_TO_RUN} (DBUS_SESSION_BUS_ADDRESS is not set)`);
  try {
    await store.checkAvailable();
  } catch (error) {
    throw new Error(`${HOW_TO_RUN}\nThe keyring check said: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
});

afterAll(async () => {
  await store.deleteApiKey(ISSUER).catch(() => false);
  await store.deleteApiKey(OTHER_ISSUER).catch(() => false);
});

describe('SecretStore on the real keyring', () => {
  it('saves, loads and deletes an API key', async () => {
    await store.saveApiKey(ISSUER, API_KEY);
    expect(await store.loadApiKey(ISSUER)).toBe(API_KEY);
    // A second store instance (a restarted kiosk) finds it too.
    expect(await new SecretStore({ serviceName: SERVICE }).loadApiKey(ISSUER)).toBe(API_KEY);

    expect(await store.deleteApiKey(ISSUER)).toBe(true);
    expect(await store.loadApiKey(ISSUER)).toBeNull();
    expect(await store.deleteApiKey(ISSUER)).toBe(false);
  });

  it('overwrites the key on re-enrollment and keeps issuers apart', async () => {
    await store.saveApiKey(ISSUER, 'tvk_first_key_000000000000');
    await store.saveApiKey(ISSUER, API_KEY);
    await store.saveApiKey(OTHER_ISSUER, 'tvk_other_issuer_key_1111');

    expect(await store.loadApiKey(ISSUER)).toBe(API_KEY);
    expect(await store.loadApiKey(OTHER_ISSUER)).toBe('tvk_other_issuer_key_1111');
  });

  it('rejects a non-canonical account or an empty key without echoing values', async () => {
    const swapped = store.saveApiKey(API_KEY, ISSUER); // arguments the wrong way round
    await expect(swapped).rejects.toThrow(TypeError);
    await expect(swapped).rejects.not.toThrow(API_KEY);
    await expect(store.saveApiKey(`${ISSUER}/`, API_KEY)).rejects.toThrow('canonical issuer base URL (trailing_slash)');
    await expect(store.saveApiKey(ISSUER, '')).rejects.toThrow('the API key must be a non-empty string');
  });

  it('checkAvailable() leaves no probe entry behind', async () => {
    await store.checkAvailable();
    const keytar = (await import('keytar')).default;
    const leftovers = await keytar.findCredentials(SERVICE);
    expect(leftovers.map((entry) => entry.account)).not.toContain('availability-check');
  });
});

describe('SecretStore without a usable keyring (child processes)', () => {
  let sandbox: string;

  beforeAll(async () => {
    sandbox = await mkdtemp(join(tmpdir(), 'secret-store-test-'));
    await transpileInto(join(sandbox, 'with-keytar'), true);
    await transpileInto(join(sandbox, 'without-keytar'), false);
  });

  afterAll(async () => {
    await rm(sandbox, { recursive: true, force: true });
  });

  it('throws SecretStoreUnavailableError saying what to install when D-Bus is unreachable, never the key', async () => {
    const outcome = await runChild(join(sandbox, 'with-keytar'), {
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/ticket-kiosk-test-bus',
    });

    for (const call of ['save', 'load', 'check'] as const) {
      const result = outcome[call];
      expect(result, call).toMatchObject({ typed: true, name: 'SecretStoreUnavailableError', reason: 'keyring_failed' });
      expect(result.message, call).toContain(
        'Linux kiosks need a Secret Service keyring such as gnome-keyring, running and unlocked in the session',
      );
      expect(result.message, call).toContain('install gnome-keyring and libsecret-1-0');
      expect(result.message, call).toMatch(/keyring call failed: .+/);
      expect(result.everything, call).not.toContain(API_KEY);
    }
  });

  it('throws SecretStoreUnavailableError when the keytar module cannot be loaded', async () => {
    const outcome = await runChild(join(sandbox, 'without-keytar'), {});

    expect(outcome.save).toMatchObject({ typed: true, name: 'SecretStoreUnavailableError', reason: 'keytar_not_loadable' });
    expect(outcome.save.message).toContain('the keytar native module could not be loaded');
    expect(outcome.save.message).toContain('Linux kiosks need a Secret Service keyring such as gnome-keyring');
    expect(outcome.save.everything).not.toContain(API_KEY);
  });

  it('is the same error class in this process, for callers that catch it', () => {
    const error = new SecretStoreUnavailableError('keyring_failed', 'x');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SecretStoreUnavailableError');
  });
});

interface ChildResult {
  typed: boolean;
  name: string;
  reason: string;
  message: string;
  /** Message, stack and every own property, to check nothing carries the key. */
  everything: string;
}

/**
 * Node 20 cannot run TypeScript, so the module under test (and the protocol
 * file it imports) is transpiled as-is into `dir`, keeping relative paths.
 * `withKeytar` links the repository's node_modules so `import('keytar')` resolves.
 */
async function transpileInto(dir: string, withKeytar: boolean): Promise<void> {
  for (const file of ['main/kiosk/store/api-key-store.ts', 'protocol/base-url.ts']) {
    const source = await readFile(join(repoRoot, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    const target = join(dir, file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  if (withKeytar) await symlink(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'child.js'), CHILD_SCRIPT);
}

const CHILD_SCRIPT = `
import { SecretStore, SecretStoreUnavailableError } from './main/kiosk/store/api-key-store.js';
const store = new SecretStore({ serviceName: 'ticket-kiosk-test-child' });
const key = process.argv[2];
async function attempt(call) {
  try {
    await call();
    return { typed: false, name: 'none', reason: 'none', message: 'no error', everything: '' };
  } catch (error) {
    const everything = [error.message, error.stack, JSON.stringify(error), String(error.cause)].join('\\n');
    return { typed: error instanceof SecretStoreUnavailableError, name: error.name, reason: error.reason, message: error.message, everything };
  }
}
const outcome = {
  save: await attempt(() => store.saveApiKey('https://issuer.example.test', key)),
  load: await attempt(() => store.loadApiKey('https://issuer.example.test')),
  check: await attempt(() => store.checkAvailable()),
};
process.stdout.write(JSON.stringify(outcome));
`;

function runChild(dir: string, env: Record<string, string>): Promise<Record<'save' | 'load' | 'check', ChildResult>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(dir, 'child.js'), API_KEY],
      { cwd: dir, env: { ...process.env, ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`child failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as Record<'save' | 'load' | 'check', ChildResult>);
      },
    );
  });
}
