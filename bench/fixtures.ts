/**
 * Small fixtures shared by the benchmarks and the tests (which import them
 * from here): an in-memory API key store, a free loopback port, percentiles,
 * scanner keys in an issuer's store.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { addHours, isoUtc } from '../issuer/time.js';
import { hashSecret, newApiKey, newApiKeyId, newTokenId } from '../issuer/secrets.js';
import type { Db } from '../issuer/store/database.js';
import type { EventRow } from '../issuer/store/events.js';
import { insertApiKey, insertEnrollmentToken } from '../issuer/store/scanners.js';
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

export interface BenchScanner {
  apiKey: string;
  scannerId: string;
}

/** Scanner keys as enrollment would leave them, created directly in the issuer's store. */
export function createBenchScanners(db: Db, event: EventRow, count: number, now: Date): BenchScanner[] {
  return Array.from({ length: count }, () => {
    const tokenId = newTokenId();
    const expires = isoUtc(addHours(now, 48));
    insertEnrollmentToken(db, { token_id: tokenId, token_hash: hashSecret(crypto.randomUUID()), eid: event.eid, gate_id: null, expires_at: expires, key_expires_at: expires, created_at: isoUtc(now) });
    const scanner = { apiKey: newApiKey(), scannerId: crypto.randomUUID() };
    insertApiKey(db, {
      api_key_id: newApiKeyId(),
      key_hash: hashSecret(scanner.apiKey),
      token_id: tokenId,
      scanner_id: scanner.scannerId,
      scanner_name: 'bench',
      scanner_platform: null,
      eid: event.eid,
      gate_id: null,
      expires_at: expires,
      created_at: isoUtc(now),
    });
    return scanner;
  });
}
