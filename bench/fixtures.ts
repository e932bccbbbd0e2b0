/**
 * Small fixtures shared by the benchmarks and the tests (which import them
 * from here): an in-memory API key store, a free loopback port, percentiles.
 */
import net from 'node:net';
import type { ApiKeyStore } from '../main/kiosk/api-key-store.js';

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

/** A port that was free a moment ago, on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of a set of samples (NaN when there are none). */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN };
}
