/**
 * The kiosk core's ApiKeyStore on the OS keyring (secret-store.ts). Electron-free.
 *
 * The core keeps one key per kiosk state (ApiKeyStore has no issuer
 * parameter, and the key is saved before the enrollment names the issuer),
 * while SecretStore files keys under an account that must look like an issuer
 * base URL. So the account names the kiosk's data directory instead: a
 * reserved `.invalid` host (RFC 2606) that no real issuer can have, derived
 * from the directory's absolute path. Two kiosk states on one machine (the
 * Electron app, a web host with --data, a test) never share or overwrite a key.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { ApiKeyStore } from '../kiosk/api-key-store.js';
import type { SecretStore } from '../kiosk/secret-store.js';

export function keyringAccountFor(dataDir: string): string {
  const digest = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24);
  return `https://kiosk-${digest}.invalid`;
}

export class KeyringApiKeys implements ApiKeyStore {
  constructor(
    private readonly secrets: SecretStore,
    private readonly account: string,
  ) {}

  saveApiKey(apiKey: string): Promise<void> {
    return this.secrets.saveApiKey(this.account, apiKey);
  }

  loadApiKey(): Promise<string | null> {
    return this.secrets.loadApiKey(this.account);
  }

  async deleteApiKey(): Promise<void> {
    await this.secrets.deleteApiKey(this.account);
  }
}
