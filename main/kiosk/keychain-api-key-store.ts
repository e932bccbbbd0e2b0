/**
 * The core's ApiKeyStore on the OS keychain (secret-store.ts, keytar): one
 * entry per issuer, account = the issuer base URL (spec "What the service
 * does" 2), service "ticket-kiosk" unless told otherwise. Hosts wire it in one line:
 *
 *   new KioskCore({ dbPath, apiKeys: new KeychainApiKeyStore() })
 *
 * There is deliberately no fallback: without a usable keyring every call
 * throws SecretStoreUnavailableError, whose message tells IT what to install
 * and never holds the key (spec "Authentication" 8).
 */
import type { ApiKeyStore } from './api-key-store.js';
import { SecretStore, type SecretStoreOptions } from './secret-store.js';

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
}

function accountOf(iss: string | undefined): string {
  // The core always names the issuer; a caller that does not is a bug, not a missing key.
  if (iss === undefined) throw new TypeError('the keychain store needs the issuer base URL the key belongs to');
  return iss;
}
