import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiKeyStore } from '../../../../main/kiosk/api-key-store.js';

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

/** A fresh temp dir, removed by the returned cleanup. */
export function tempDir(prefix = 'kiosk-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
