/** Shared by tests and benchmarks (so no vitest here: bench/ compiles it). */
import type { ApiKeyStore } from '../../../main/kiosk/store/api-key-store.js';

/** An in-memory ApiKeyStore: the real one (keytar) is tested with the OS keyring elsewhere. */
export class MemoryApiKeys implements ApiKeyStore {
  key: string | null = null;
  async saveApiKey(apiKey: string): Promise<void> {
    this.key = apiKey;
  }
  async loadApiKey(): Promise<string | null> {
    return this.key;
  }
  async deleteApiKey(): Promise<void> {
    this.key = null;
  }
}
