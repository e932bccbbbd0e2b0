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
 * One entry per issuer: service "ticket-kiosk", account = the issuer base URL
 * in canonical form (docs/protocol.md "Base URL"), so re-enrolling with
 * another issuer does not overwrite or reuse the old key by accident.
 */
import { baseUrlProblem } from '../../../protocol/base-url.js';

type Keytar = typeof import('keytar');

/**
 * What the core needs to keep its key; it never sees how or where the key is
 * kept. The core always passes `iss`, the issuer base URL the key belongs to
 * (at enrollment the key is saved before the enrollment state exists, so the
 * store cannot look it up). Stores that keep one key per kiosk may ignore it.
 */
export interface ApiKeyStore {
  saveApiKey(apiKey: string, iss?: string): Promise<void>;
  /** The saved key, or null when there is none. */
  loadApiKey(iss?: string): Promise<string | null>;
  deleteApiKey(iss?: string): Promise<void>;
  /**
   * Optional: the event's LAN key (docs/kiosk.md "Kiosks on one LAN"), kept like the API key. A store
   * without these methods keeps none, and the kiosk does not take part in LAN warnings.
   */
  saveLanKey?(lanKey: string, iss: string): Promise<void>;
  loadLanKey?(iss: string): Promise<string | null>;
  deleteLanKey?(iss: string): Promise<void>;
  /**
   * Optional: resolves when the store can keep a key right now, throws an
   * error with a secret-free message for the operator otherwise. Enrollment
   * calls it BEFORE spending the single-use token on the issuer.
   */
  checkAvailable?(): Promise<void>;
}

/**
 * The core's ApiKeyStore on the OS keychain: one SecretStore entry per
 * issuer, account = the issuer base URL, service "ticket-kiosk" unless told
 * otherwise. Hosts wire it in one line:
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

  async saveApiKey(apiKey: string, iss?: string): Promise<void> {
    return this.secrets.saveApiKey(accountOf(iss), apiKey);
  }

  async loadApiKey(iss?: string): Promise<string | null> {
    return this.secrets.loadApiKey(accountOf(iss));
  }

  async deleteApiKey(iss?: string): Promise<void> {
    await this.secrets.deleteApiKey(accountOf(iss));
  }

  checkAvailable(): Promise<void> {
    return this.secrets.checkAvailable();
  }

  async saveLanKey(lanKey: string, iss: string): Promise<void> {
    return this.secrets.saveApiKey(lanKeyAccountOf(iss), lanKey);
  }

  async loadLanKey(iss: string): Promise<string | null> {
    return this.secrets.loadApiKey(lanKeyAccountOf(iss));
  }

  async deleteLanKey(iss: string): Promise<void> {
    await this.secrets.deleteApiKey(lanKeyAccountOf(iss));
  }
}

/**
 * The LAN key's keyring account: the issuer base URL with the fragment `#lan-key` (an issuer base URL
 * never has a fragment, so it cannot collide with an API key's account).
 */
export function lanKeyAccountOf(iss: string): string {
  return `${accountOf(iss)}#lan-key`;
}

function accountOf(iss: string | undefined): string {
  // The core always names the issuer; a caller that does not is a bug, not a missing key.
  if (iss === undefined) throw new TypeError('the keychain store needs the issuer base URL the key belongs to');
  return iss;
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

  /** Stores (or replaces) the API key for this issuer. */
  async saveApiKey(issuerBaseUrl: string, apiKey: string): Promise<void> {
    requireAccount(issuerBaseUrl);
    if (typeof apiKey !== 'string' || apiKey.length === 0) throw new TypeError('the API key must be a non-empty string');
    const keytar = await this.load();
    await keyringCall(() => keytar.setPassword(this.serviceName, issuerBaseUrl, apiKey), apiKey);
  }

  /** The stored API key for this issuer, or null when there is none. */
  async loadApiKey(issuerBaseUrl: string): Promise<string | null> {
    requireAccount(issuerBaseUrl);
    const keytar = await this.load();
    return keyringCall(() => keytar.getPassword(this.serviceName, issuerBaseUrl));
  }

  /** Removes the key for this issuer. True when there was one. */
  async deleteApiKey(issuerBaseUrl: string): Promise<boolean> {
    requireAccount(issuerBaseUrl);
    const keytar = await this.load();
    return keyringCall(() => keytar.deletePassword(this.serviceName, issuerBaseUrl));
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

function requireAccount(issuerBaseUrl: string): void {
  if (typeof issuerBaseUrl !== 'string') throw new TypeError('the issuer base URL must be a string');
  // The LAN key's entry (lanKeyAccountOf): the same issuer base URL, marked with its fragment.
  const problem = baseUrlProblem(issuerBaseUrl.endsWith('#lan-key') ? issuerBaseUrl.slice(0, -'#lan-key'.length) : issuerBaseUrl);
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
