/**
 * The check-ins the issuer benchmark sends (docs/benchmarks.md "Issuer (`npm run bench:issuer`)"): each a first
 * check-in of a fresh ticket from one of the scanners (http-load.ts runs them closed-loop, paced or in bursts), the
 * race of one ticket sent to every process at once, and the count of check-ins the store holds, to compare with the
 * `valid` answers sent.
 */
import crypto from 'node:crypto';
import type { DataDir } from '../../issuer/data-dir.js';
import type { EventRow } from '../../issuer/store/events.js';
import { openDatabase } from '../../issuer/store/database.js';
import { openIssuerDatabase } from '../../issuer/store/open.js';
import type { BenchScanner as Scanner } from '../bench-scanners.js';
import { runLoad, type LoadResult } from '../http-load.js';
import type { Settings } from './settings.js';
import { CHECK_IN_PATH } from './server-thread.js';

/** Check-ins sent before each measured run, to warm the server up. */
export const WARM_UP_REQUESTS = 2_000;
/** Tickets each raced by all N processes at once in the correctness check. */
export const RACED_TICKETS = 200;

export function checkInLoad(
  url: string | readonly string[],
  settings: Settings,
  event: EventRow,
  tids: readonly string[],
  scanners: readonly Scanner[],
  maxMs: number,
  ratePerSecond?: number,
  bursts = false,
): Promise<LoadResult> {
  return runLoad({
    url,
    ...(ratePerSecond === undefined ? {} : { ratePerSecond, bursts }),
    concurrency: settings.concurrency,
    maxRequests: tids.length,
    maxMs,
    request: (i, client) => {
      const scanner = scanners[client % scanners.length]!;
      return {
        path: CHECK_IN_PATH,
        headers: { authorization: `Bearer ${scanner.apiKey}` },
        body: checkInBody(tids[i]!, event, scanner),
      };
    },
    outcome: (status, body) =>
      `${status} ${(JSON.parse(body) as { status?: string; error?: { code: string } }).status ?? (JSON.parse(body) as { error?: { code: string } }).error?.code}`,
  });
}

function checkInBody(tid: string, event: EventRow, scanner: Scanner): string {
  return JSON.stringify({
    tid,
    eid: event.eid,
    scanned_at: new Date().toISOString(),
    scanner_id: scanner.scannerId,
    idempotency_key: crypto.randomUUID(),
  });
}

export interface RaceResult {
  tickets: number;
  requests: number;
  /** Tickets that got exactly one `valid` (the rest of their answers `already_used`). */
  exactlyOnce: number;
  valid: number;
  outcomes: Map<string, number>;
}

/**
 * Every ticket sent to all the servers at the same moment (at least twice,
 * so one server races itself), each copy from another scanner with its own
 * idempotency key: exactly one copy may be `valid`.
 */
export async function raceCheckIns(
  urls: readonly string[],
  event: EventRow,
  tids: readonly string[],
  scanners: readonly Scanner[],
): Promise<RaceResult> {
  const copies = Math.max(2, urls.length);
  const outcomes = new Map<string, number>();
  let exactlyOnce = 0;
  let valid = 0;
  for (const tid of tids) {
    const answers = await Promise.all(
      Array.from({ length: copies }, async (_, copy) => {
        const scanner = scanners[copy % scanners.length]!;
        const response = await fetch(`${urls[copy % urls.length]!}${CHECK_IN_PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
          body: checkInBody(tid, event, scanner),
        });
        const body = (await response.json()) as { status?: string; error?: { code: string } };
        return `${response.status} ${body.status ?? body.error?.code}`;
      }),
    );
    for (const label of answers) outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
    const valids = answers.filter((label) => label === '200 valid').length;
    valid += valids;
    if (valids === 1 && answers.every((label) => label === '200 valid' || label === '200 already_used')) exactlyOnce++;
  }
  return { tickets: tids.length, requests: tids.length * copies, exactlyOnce, valid, outcomes };
}

/** Check-ins stored so far: COUNT(*) of `checkins`, from the SQLite file as before, or through openIssuerDatabase on PostgreSQL. */
export async function storedCheckIns(dataDir: DataDir): Promise<number> {
  if (dataDir.postgres === undefined) {
    const db = openDatabase(dataDir.database);
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 1 });
  try {
    return (await database.read.get<{ n: number }>('SELECT COUNT(*) AS n FROM checkins'))!.n;
  } finally {
    await database.close();
  }
}

export const validAnswers = (result: LoadResult): number => result.outcomes.get('200 valid') ?? 0;
