/** Scanner keys in an issuer's store, for the benchmarks that load the issuer with many scanners. */
import crypto from 'node:crypto';
import { addHours, isoUtc } from '../issuer/time.js';
import { hashSecret, newApiKey, newApiKeyId, newTokenId } from '../issuer/secrets.js';
import type { Sql, SqlDatabase } from '../issuer/store/sql.js';
import type { EventRow } from '../issuer/store/events.js';
import { insertApiKey, insertEnrollmentToken } from '../issuer/store/scanners.js';

export interface BenchScanner {
  apiKey: string;
  apiKeyId: string;
  scannerId: string;
}

/** Scanner keys as enrollment would leave them, created directly in the issuer's store. */
export function createBenchScanners(database: SqlDatabase, event: EventRow, count: number, now: Date): Promise<BenchScanner[]> {
  return database.write(async (db) => {
    const scanners: BenchScanner[] = [];
    for (let i = 0; i < count; i++) scanners.push(await createBenchScanner(db, event, now));
    return scanners;
  });
}

async function createBenchScanner(db: Sql, event: EventRow, now: Date): Promise<BenchScanner> {
  {
    const tokenId = newTokenId();
    const expires = isoUtc(addHours(now, 48));
    await insertEnrollmentToken(db, {
      token_id: tokenId,
      token_hash: hashSecret(crypto.randomUUID()),
      eid: event.eid,
      gate_id: null,
      expires_at: expires,
      key_expires_at: expires,
      created_at: isoUtc(now),
      direction: null,
      role: 'steward',
      pin_required: 0,
    });
    const scanner = { apiKey: newApiKey(), apiKeyId: newApiKeyId(), scannerId: crypto.randomUUID() };
    await insertApiKey(db, {
      api_key_id: scanner.apiKeyId,
      key_hash: hashSecret(scanner.apiKey),
      token_id: tokenId,
      scanner_id: scanner.scannerId,
      scanner_name: 'bench',
      scanner_platform: null,
      eid: event.eid,
      gate_id: null,
      expires_at: expires,
      created_at: isoUtc(now),
      role: 'steward',
    });
    return scanner;
  }
}
