/**
 * The drain's share of the rate limit (main/kiosk/sync/queue-drain.ts; docs/protocol.md "Rate limits"): it stops with
 * a tenth of the window (at least 10) left for the door, also when its answers come back together. A real queue
 * (LocalStore on a SQLite file) and the real IssuerClient; the issuer is a stand-in at the fetch boundary, so that
 * the order of arrival and answer can be set exactly: it counts each request as it arrives, as the issuer's rate
 * limiter does, and holds the answers to requests arriving close together, then answers them all at once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IssuerClient, type FetchLike } from '../../../main/kiosk/sync/issuer-client.js';
import { LocalStore } from '../../../main/kiosk/store/local-store.js';
import { drainQueue, liveScanReserve } from '../../../main/kiosk/sync/queue-drain.js';
import { tempDir } from '../../support/temp-dir.js';

const ISS = 'https://tickets.example.org';
const LIMIT = 40;

let dir: { dir: string; cleanup: () => void };
let store: LocalStore;
beforeEach(() => {
  dir = tempDir();
  store = LocalStore.open(join(dir.dir, 'kiosk.db'));
  for (let i = 0; i < LIMIT; i++) {
    store.insertScan({
      code: `tkt1.T${i}`,
      iss: ISS,
      tid: `T${i}`,
      eid: 'E1',
      gate_id: null,
      scanner_id: randomUUID(),
      scanned_at: '2026-06-01T19:00:00.000Z',
      signature_status: 'valid',
      queue_state: 'pending',
    });
  }
});
afterEach(() => {
  store.close();
  dir.cleanup();
});

/** A window of LIMIT requests a minute; the answers to requests that arrive within `windowMs` are released together. */
function bunchingIssuer(windowMs: number): { fetch: FetchLike; arrived: () => number } {
  let arrived = 0;
  let held: (() => void)[] = [];
  const fetch: FetchLike = (_url, init) => {
    arrived += 1;
    const remaining = Math.max(0, LIMIT - arrived);
    const { tid, eid } = JSON.parse(String(init?.body)) as { tid: string; eid: string };
    return new Promise<Response>((resolve) => {
      held.push(() =>
        resolve(
          new Response(JSON.stringify({ status: 'valid', ticket: { tid, eid, checked_in_at: new Date().toISOString() } }), {
            status: 200,
            headers: {
              'content-type': 'application/json',
              'ratelimit-limit': String(LIMIT),
              'ratelimit-remaining': String(remaining),
              'ratelimit-reset': '60',
            },
          }),
        ),
      );
      if (held.length === 1) {
        setTimeout(() => {
          const release = held;
          held = [];
          for (const answer of release) answer();
        }, windowMs);
      }
    });
  };
  return { fetch, arrived: () => arrived };
}

it('answers that come back together do not let the drain eat into the door reserve', async () => {
  const issuer = bunchingIssuer(20);
  const report = await drainQueue({
    store,
    client: new IssuerClient({ fetch: issuer.fetch }),
    iss: ISS,
    checkInUrl: `${ISS}/api/v1/tickets/check-in`,
    apiKey: 'tvk_test',
    now: Date.now,
    concurrency: 8,
  });
  expect(report.stop).toBe('leaving_room');
  // 40 a minute, 10 kept for the door: at most 30 sent, though the answers arrive in bunches.
  expect(issuer.arrived()).toBeLessThanOrEqual(LIMIT - liveScanReserve(LIMIT));
  expect(issuer.arrived()).toBeGreaterThanOrEqual(LIMIT - liveScanReserve(LIMIT) - 8);
  expect(report.settled).toHaveLength(issuer.arrived());
  expect(report.retryAt).toBeGreaterThan(Date.now());
});
