/**
 * Where the kiosk keeps its Bearer API key: the interface the core depends
 * on (ApiKeyStore), and its one real implementation on the OS keyring
 * through keytar (KeychainApiKeyStore over SecretStore). Tests use an
 * in-memory ApiKeyStore instead.
 *
 * Spec "Authentication" 8 and EnrollResponse.api_key: the key MUST be kept in
 * platform secure storage and never logged, put in crash reports or stored in
 * plain text. So there is no fallback to a file: without a keyring the kiosk
 * stops with SecretStoreUnavailableError, whose message tells IT what to
 * install. No message built here ever contains the key; text that comes from
 * the keyring is scrubbed of it too.
 *
 * keytar is a native module and is loaded on first use, so the rest of the
 * kiosk (and its tests) starts even where it cannot load.
 *
 * One entry per kiosk (docs/kiosk.md "Secret storage"): service "ticket-kiosk",
 * account = the issuer base URL in canonical form (docs/protocol.md "Base URL")
 * followed by `#scanner=` and the kiosk's scanner id. Several kiosks under one
 * OS user (each with its own data folder, so its own scanner id) enrolled with
 * one issuer each keep their own key; re-enrolling with another issuer does not
 * overwrite or reuse the old key by accident. An entry of the older form (the
 * bare issuer base URL) is taken over by the first kiosk that reads it.
 */
import { baseUrlProblem } from '../../../protocol/base-url.js';

type Keytar = typeof import('keytar');

/** Whose key it is: this kiosk (its scanner id, made once per data folder) enrolled with this issuer. */
export interface KeyOwner {
  iss: string;
  scanner_id: string;
}

/**
 * What the core needs to keep its key; it never sees how or where the key is
 * kept. The core always names the owner (at enrollment the key is saved before
 * the enrollment state exists, so the store cannot look it up). Stores that
 * keep one key per kiosk may ignore it.
 */
export interface ApiKeyStore {
  saveApiKey(apiKey: string, owner: KeyOwner): Promise<void>;
  /** The saved key, or null when there is none. */
  loadApiKey(owner: KeyOwner): Promise<string | null>;
  deleteApiKey(owner: KeyOwner): Promise<void>;
  /**
   * Optional: the event's LAN key (docs/kiosk.md "Kiosks on one LAN"), kept like the API key. A store
   * without these methods keeps none, and the kiosk does not take part in LAN warnings.
   */
  saveLanKey?(lanKey: string, owner: KeyOwner): Promise<void>;
  loadLanKey?(owner: KeyOwner): Promise<string | null>;
  deleteLanKey?(owner: KeyOwner): Promise<void>;
  /**
   * Optional: resolves when the store can keep a key right now, throws an
   * error with a secret-free message for the operator otherwise. Enrollment
   * calls it BEFORE spending the single-use token on the issuer.
   */
  checkAvailable?(): Promise<void>;
}

/**
 * The core's ApiKeyStore on the OS keychain: one SecretStore entry per kiosk
 * and issuer (apiKeyAccountOf), service "ticket-kiosk" unless told otherwise.
 * Hosts wire it in one line:
 *
 *   new KioskCore({ dbPath, apiKeys: new KeychainApiKeyStore() })
 *
 * There is deliberately no fallback: without a usable keyring every call
 * throws SecretStoreUnavailableError.
 */
export class KeychainApiKeyStore implements ApiKeyStore {
  readonly secrets: SecretStore;

  constructor(options: SecretStoreOptions | SecretStore = {}) {
    this.secrets = options instanceof SecretStore ? options : new SecretStore(options);
  }

  async saveApiKey(apiKey: string, owner: KeyOwner): Promise<void> {
    await this.replace(apiKeyAccountOf(owner), owner.iss, apiKey);
  }

  async loadApiKey(owner: KeyOwner): Promise<string | null> {
    return this.loadTakingOver(apiKeyAccountOf(owner), owner.iss);
  }

  async deleteApiKey(owner: KeyOwner): Promise<void> {
    await this.replace(apiKeyAccountOf(owner), owner.iss, null);
  }

  checkAvailable(): Promise<void> {
    return this.secrets.checkAvailable();
  }

  async saveLanKey(lanKey: string, owner: KeyOwner): Promise<void> {
    await this.replace(lanKeyAccountOf(owner), legacyLanKeyAccountOf(owner.iss), lanKey);
  }

  async loadLanKey(owner: KeyOwner): Promise<string | null> {
    return this.loadTakingOver(lanKeyAccountOf(owner), legacyLanKeyAccountOf(owner.iss));
  }

  async deleteLanKey(owner: KeyOwner): Promise<void> {
    await this.replace(lanKeyAccountOf(owner), legacyLanKeyAccountOf(owner.iss), null);
  }

  /**
   * The kiosk's own entry; when it has none, the entry of the older form (one per issuer, before one per
   * kiosk) is copied into it, so a kiosk enrolled before the change keeps working without re-enrolling.
   * The old entry is left in place: it may hold another kiosk's key (the second kiosk enrolled with the
   * issuer replaced the first one's there), and that kiosk takes it over on its own first start. It goes
   * once the kiosk that took it over replaces or deletes its key (replace).
   */
  private async loadTakingOver(account: string, legacyAccount: string): Promise<string | null> {
    const own = await this.secrets.loadApiKey(account);
    if (own !== null) return own;
    const legacy = await this.secrets.loadApiKey(legacyAccount);
    if (legacy === null) return null;
    await this.secrets.saveApiKey(account, legacy);
    return legacy;
  }

  /** Saves (or with null deletes) the kiosk's entry; an old per-issuer entry holding the same key was this kiosk's, and goes too. */
  private async replace(account: string, legacyAccount: string, secret: string | null): Promise<void> {
    const before = await this.secrets.loadApiKey(account);
    if (secret === null) await this.secrets.deleteApiKey(account);
    else await this.secrets.saveApiKey(account, secret);
    if (before !== null && (await this.secrets.loadApiKey(legacyAccount)) === before) await this.secrets.deleteApiKey(legacyAccount);
  }
}

/** The API key's keyring account: the issuer base URL, then `#scanner=` and the kiosk's scanner id. */
export function apiKeyAccountOf(owner: KeyOwner): string {
  requireOwner(owner);
  return `${owner.iss}#scanner=${owner.scanner_id}`;
}

/**
 * The LAN key's keyring account: the kiosk's API key account with the fragment `#lan-key` added (an issuer
 * base URL never has a fragment, so it cannot collide with another entry).
 */
export function lanKeyAccountOf(owner: KeyOwner): string {
  return `${apiKeyAccountOf(owner)}#lan-key`;
}

/** The LAN key's account before one entry per kiosk: the issuer base URL and `#lan-key`. */
function legacyLanKeyAccountOf(iss: string): string {
  return `${iss}#lan-key`;
}

/** A scanner id as the kiosk makes it (a UUID), or any plain identifier: nothing that could run into the next part of an account. */
const SCANNER_ID_IN_ACCOUNT = /^[A-Za-z0-9_.-]{1,128}$/;

function requireOwner(owner: KeyOwner | undefined): void {
  // The core always names the owner; a caller that does not is a bug, not a missing key.
  if (typeof owner !== 'object' || owner === null || typeof owner.iss !== 'string' || typeof owner.scanner_id !== 'string') {
    throw new TypeError('the keychain store needs the issuer base URL and the scanner id the key belongs to');
  }
  if (!SCANNER_ID_IN_ACCOUNT.test(owner.scanner_id)) throw new TypeError('the scanner id in a keyring account is a plain identifier');
}

export const DEFAULT_SERVICE_NAME = 'ticket-kiosk';
const AVAILABILITY_PROBE_ACCOUNT = 'availability-check';

export type SecretStoreUnavailableReason =
  /** The keytar native module (or a library it needs, e.g. libsecret) could not be loaded. */
  | 'keytar_not_loadable'
  /** keytar loaded, but the keyring refused or could not be reached (no D-Bus session, no Secret Service, locked). */
  | 'keyring_failed';

export class SecretStoreUnavailableError extends Error {
  override readonly name = 'SecretStoreUnavailableError';

  constructor(
    readonly reason: SecretStoreUnavailableReason,
    message: string,
  ) {
    super(message);
  }
}

export interface SecretStoreOptions {
  /** Keyring service name. Tests use their own so they never touch a real kiosk's key. */
  serviceName?: string;
}

/** The keyring itself (keytar): one entry per account, under one service name. */
export class SecretStore {
  private readonly serviceName: string;
  private keytar: Keytar | null = null;

  constructor(options: SecretStoreOptions = {}) {
    this.serviceName = options.serviceName ?? DEFAULT_SERVICE_NAME;
  }

  /** Stores (or replaces) the secret of this account (apiKeyAccountOf, lanKeyAccountOf, or an older form's bare issuer base URL). */
  async saveApiKey(account: string, apiKey: string): Promise<void> {
    requireAccount(account);
    if (typeof apiKey !== 'string' || apiKey.length === 0) throw new TypeError('the API key must be a non-empty string');
    const keytar = await this.load();
    await keyringCall(() => keytar.setPassword(this.serviceName, account, apiKey), apiKey);
  }

  /** The stored secret of this account, or null when there is none. */
  async loadApiKey(account: string): Promise<string | null> {
    requireAccount(account);
    const keytar = await this.load();
    return keyringCall(() => keytar.getPassword(this.serviceName, account));
  }

  /** Removes the secret of this account. True when there was one. */
  async deleteApiKey(account: string): Promise<boolean> {
    requireAccount(account);
    const keytar = await this.load();
    return keyringCall(() => keytar.deletePassword(this.serviceName, account));
  }

  /** The accounts that have an entry under this service name (never their secrets). */
  async accounts(): Promise<string[]> {
    const keytar = await this.load();
    const found = await keyringCall(() => keytar.findCredentials(this.serviceName));
    return found.map((entry) => entry.account);
  }

  /** Removes every entry under this service name (a test's own service, or IT clearing a retired kiosk user). */
  async deleteAll(): Promise<number> {
    let deleted = 0;
    for (const account of await this.accounts()) if (await this.deleteApiKey(account)) deleted += 1;
    return deleted;
  }

  /**
   * Resolves when the keyring can store, return and delete an entry right now
   * (so it is reachable and unlocked); throws SecretStoreUnavailableError
   * otherwise. Run at startup so a kiosk without a keyring fails before the
   * operator scans a setup code.
   */
  async checkAvailable(): Promise<void> {
    const keytar = await this.load();
    const probe = `probe-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    await keyringCall(() => keytar.setPassword(this.serviceName, AVAILABILITY_PROBE_ACCOUNT, probe), probe);
    const readBack = await keyringCall(() => keytar.getPassword(this.serviceName, AVAILABILITY_PROBE_ACCOUNT), probe);
    await keyringCall(() => keytar.deletePassword(this.serviceName, AVAILABILITY_PROBE_ACCOUNT), probe);
    if (readBack !== probe) {
      throw new SecretStoreUnavailableError('keyring_failed', unavailableMessage('the keyring did not return the entry just stored'));
    }
  }

  private async load(): Promise<Keytar> {
    if (this.keytar) return this.keytar;
    try {
      const imported = await import('keytar');
      // keytar is CommonJS: `default` is module.exports.
      this.keytar = imported.default ?? imported;
      return this.keytar;
    } catch (error) {
      // Not cached: a later call retries (e.g. after IT installs libsecret and restarts nothing else).
      throw new SecretStoreUnavailableError(
        'keytar_not_loadable',
        unavailableMessage(
          `the keytar native module could not be loaded (${errorText(error)}); reinstall the kiosk package built for this platform`,
        ),
      );
    }
  }
}

/** The parts after the issuer base URL an account may have: the kiosk's scanner id, the LAN key's mark. */
const ACCOUNT_FRAGMENT = /^(#scanner=[A-Za-z0-9_.-]{1,128})?(#lan-key)?$/;

function requireAccount(account: string): void {
  if (typeof account !== 'string') throw new TypeError('the keyring account must be a string');
  const hash = account.indexOf('#');
  const baseUrl = hash === -1 ? account : account.slice(0, hash);
  const problem = baseUrlProblem(baseUrl) ?? (ACCOUNT_FRAGMENT.test(account.slice(baseUrl.length)) ? null : 'unknown_fragment');
  // The value is not echoed: swapped arguments would otherwise put the API key in the message.
  if (problem) throw new TypeError(`the keyring account must be a canonical issuer base URL (${problem})`);
}

/** Runs a keytar call; any failure means the keyring is unusable. `secret` is scrubbed from the keyring's text. */
async function keyringCall<T>(call: () => Promise<T>, secret?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // The cause is not attached: its own message and stack are not ours to vouch for.
    throw new SecretStoreUnavailableError(
      'keyring_failed',
      unavailableMessage(`the keyring call failed: ${scrub(errorText(error), secret)}`),
    );
  }
}

function unavailableMessage(detail: string): string {
  return `No usable OS keyring to keep the kiosk's API key: ${detail}. ${platformAdvice()}`;
}

/** What IT has to provide, per platform (keytar uses libsecret, Keychain, Credential Manager). */
function platformAdvice(): string {
  switch (process.platform) {
    case 'darwin':
      return 'macOS kiosks keep the key in the login Keychain of the kiosk user; the Keychain must be unlocked in that session.';
    case 'win32':
      return 'Windows kiosks keep the key in Credential Manager; run the kiosk as a logged-on user with a loaded profile.';
    default:
      return (
        'Linux kiosks need a Secret Service keyring such as gnome-keyring, running and unlocked in the session ' +
        '(install gnome-keyring and libsecret-1-0; the session needs a D-Bus session bus; ' +
        'without a desktop login, start it with `gnome-keyring-daemon --unlock --components=secrets` inside that D-Bus session). ' +
        'See docs/kiosk.md, "Secret storage".'
      );
  }
}

function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
