/**
 * An honest 503 from PostgreSQL (docs/protocol.md "When the database cannot take a request (503)"), all real: a
 * throwaway cluster, the built CLI, a serve child process on loopback, and scanners sending check-ins and status
 * requests all the while. The database refuses connections (`ALLOW_CONNECTIONS false` plus `pg_terminate_backend`),
 * ends them (`pg_terminate_backend` alone), and restarts (fast, and a crash with recovery). At none of them is an
 * answer a 500: each is a 200, or a 503 with Retry-After and `database_unavailable` (a 401 or 429 would be a lie
 * too, and are counted as failures); `/readyz` says 503 while it lasts, and serve recovers by itself.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliJson, createEvent, issueTickets, LOOPBACK_SERVE, scratchDir, serveCli } from '../../support/cli-harness.js';
import { TEST_BASE_URL } from '../../support/issuer-on-store.js';
import { enroll, type HttpScanner } from '../../support/issuer-http.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

let cluster: PostgresCluster;
let admin: pg.Pool;
let url: string;
let scanner: HttpScanner;
let eid: string;
let tids: string[];
let serveLog: () => string = () => '';
let dataDir: string;

beforeAll(async () => {
  cluster = await startPostgresCluster({ database: 'issuer' });
  // The admin connection is to another database of the cluster: ALLOW_CONNECTIONS on `issuer` does not shut it out.
  admin = new pg.Pool({ connectionString: cluster.url.replace(/\/issuer$/, '/postgres'), max: 1 });
  // A restart ends this pool's idle connection too: pg reports it here, and the next query opens another.
  admin.on('error', () => undefined);
  const data = path.join(scratchDir(), 'issuer-data');
  await cliJson(['init', '--data', data, '--database', cluster.url, '--base-url', TEST_BASE_URL, '--name', 'Platform']);
  eid = (await createEvent(data)).eid;
  tids = await issueTickets(data, eid, 400);
  dataDir = data;
}, 180_000);

// One serve per test: the harness stops serving processes after each test.
beforeEach(async () => {
  const served = await serveCli(['--data', dataDir, ...LOOPBACK_SERVE, '--scanner-rpm', '1000000']);
  url = served.url;
  serveLog = served.stderr;
  scanner = await enroll(url, dataDir, eid);
}, 60_000);

afterEach((context) => {
  // What serve logged, for the failure's report: the database errors it met and how it answered them.
  if (context.task.result?.state === 'fail')
    console.error(
      serveLog()
        .split('\n')
        .filter((line) => line.includes('request failed'))
        .slice(0, 5)
        .join('\n'),
    );
});

afterAll(async () => {
  await admin?.end();
  await cluster?.stop();
}, 60_000);

interface Answer {
  status: number;
  retryAfter: string | null;
  reason: unknown;
}

let nextTicket = 0;

/** One check-in of a fresh ticket, or a status request, as a kiosk sends them. */
async function oneRequest(kind: 'check-in' | 'status'): Promise<Answer> {
  const tid = tids[nextTicket++ % tids.length]!;
  const headers = { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' };
  const response =
    kind === 'status'
      ? await fetch(`${url}/api/v1/tickets/${tid}/status`, { headers })
      : await fetch(`${url}/api/v1/tickets/check-in`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            tid,
            eid,
            scanned_at: new Date().toISOString(),
            scanner_id: scanner.scannerId,
            idempotency_key: crypto.randomUUID(),
          }),
        });
  const text = await response.text();
  let reason: unknown;
  try {
    reason = (JSON.parse(text) as { error?: { details?: { reason?: unknown } } }).error?.details?.reason ?? null;
  } catch {
    reason = `not JSON: ${text.slice(0, 80)}`;
  }
  return { status: response.status, retryAfter: response.headers.get('retry-after'), reason };
}

/** Four scanners' worth of requests, back to back, until `fault` has run and the issuer answers 200 again. */
async function underLoad(fault: () => Promise<void>): Promise<{ answers: Answer[]; readyDuring: number[] }> {
  const answers: Answer[] = [];
  const readyDuring: number[] = [];
  let stop = false;
  const worker = async (index: number): Promise<void> => {
    while (!stop) answers.push(await oneRequest(index % 2 === 0 ? 'check-in' : 'status'));
  };
  const workers = [0, 1, 2, 3].map(worker);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await fault();
  readyDuring.push((await fetch(`${url}/readyz`)).status);
  stop = true;
  await Promise.all(workers);
  return { answers, readyDuring };
}

/** The issuer answers a check-in with 200 again, by itself, within 30 s. */
async function recovers(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await oneRequest('check-in');
    if (answer.status === 200) break;
    if (Date.now() > deadline) throw new Error(`serve did not recover: still ${JSON.stringify(answer)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
}

function expectHonest(answers: Answer[]): void {
  const dishonest = answers.filter(
    (a) => !(a.status === 200 || (a.status === 503 && Number(a.retryAfter) >= 1 && a.reason === 'database_unavailable')),
  );
  expect(dishonest).toEqual([]);
  expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
}

const terminateAll = () =>
  admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'issuer' AND pid <> pg_backend_pid()");

describe('PostgreSQL away, under load: 503 with Retry-After, never 500, and recovery without restarting serve', () => {
  it('ALLOW_CONNECTIONS false and every connection ended', async () => {
    const { answers, readyDuring } = await underLoad(async () => {
      await admin.query('ALTER DATABASE issuer ALLOW_CONNECTIONS false');
      await terminateAll();
      await new Promise((resolve) => setTimeout(resolve, 1500));
    });
    try {
      expectHonest(answers);
      expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
      expect(readyDuring).toEqual([503]);
    } finally {
      await admin.query('ALTER DATABASE issuer ALLOW_CONNECTIONS true');
    }
    await recovers();
  }, 90_000);

  it('every connection ended while connections are allowed (pg_terminate_backend)', async () => {
    const { answers } = await underLoad(async () => {
      await terminateAll();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await terminateAll();
      await new Promise((resolve) => setTimeout(resolve, 500));
    });
    expectHonest(answers);
    await recovers();
  }, 90_000);

  it('the server restarts (fast: 57P01 to every client), then crashes and recovers (immediate)', async () => {
    for (const mode of ['fast', 'immediate'] as const) {
      const { answers } = await underLoad(() => cluster.restart(mode));
      expectHonest(answers);
      await recovers();
    }
  }, 120_000);
});
