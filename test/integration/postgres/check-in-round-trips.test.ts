/**
 * The check-in on PostgreSQL in two round trips (docs/issuer.md "The check-in on PostgreSQL: two round trips"):
 * the facts in one statement, every write in one more, no BEGIN or COMMIT. Counted on the real `pg` client of a
 * real cluster, for each kind of check-in the door sends, so that a change that adds a statement fails here
 * instead of showing up months later as a slower benchmark.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, type ScannerCredential } from '../../../issuer/auth.js';
import { resolveDataDir } from '../../../issuer/data-dir.js';
import { checkIn, type CheckInResult } from '../../../issuer/services/check-in.js';
import type { CheckInBody } from '../../../issuer/services/check-in-decision.js';
import { openIssuerDatabase } from '../../../issuer/store/open.js';
import type { SqlDatabase } from '../../../issuer/store/sql.js';
import { cliJson, issueTickets, LOOPBACK_SERVE, scratchDir, serveCli } from '../../support/cli-harness.js';
import { enroll } from '../../support/issuer-http.js';
import { useTwoNodeIssuerOnPostgres } from '../../support/issuer-on-store.js';

const issuer = useTwoNodeIssuerOnPostgres('Round Trips');
let database: SqlDatabase;
let credential: ScannerCredential;

beforeAll(async () => {
  database = (await openIssuerDatabase(resolveDataDir(issuer.data), { schema: 'require-current' })).database;
  // A scanner key as a door gets it (enrolled at a serve process), then checked here as the route's hook checks it.
  const server = await serveCli(['--data', issuer.nodes[0]!, ...LOOPBACK_SERVE, '--enroll-rpm', '1000']);
  const scanner = await enroll(server.url, issuer.data, issuer.event.eid);
  credential = (await authenticate(database.read, `Bearer ${scanner.apiKey}`, new Date()))!;
  expect(credential.scannerId).toBe(scanner.scannerId);
}, 60_000);

afterAll(async () => {
  await database?.close();
});

/** The statements the process sent to PostgreSQL while `action` ran (every one is a round trip). */
async function statementsOf<T>(action: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  const statements: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string };
    statements.push(typeof first === 'string' ? first : first.text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    return { value: await action(), statements };
  } finally {
    pg.Client.prototype.query = query;
  }
}

function body(tid: string, extra: Partial<CheckInBody> = {}): CheckInBody {
  return {
    tid,
    eid: issuer.event.eid,
    scanned_at: new Date().toISOString(),
    scanner_id: credential.scannerId,
    idempotency_key: crypto.randomUUID(),
    ...extra,
  } as CheckInBody;
}

/** One check-in through the service, as the route calls it; its answer and the statements it sent. */
async function counted(request: CheckInBody): Promise<{ answer: Record<string, unknown>; statements: string[] }> {
  const { value, statements } = await statementsOf<CheckInResult>(() => checkIn(database, credential, request, undefined));
  if (!value.ok) throw new Error(`refused: ${value.error.message}`);
  return { answer: JSON.parse(value.responseBody) as Record<string, unknown>, statements };
}

function expectTwoRoundTrips(statements: string[]): void {
  expect(statements, statements.join('\n---\n')).toHaveLength(2);
  expect(statements[0]).toMatch(/^\s*SELECT/);
  expect(statements.some((text) => /^\s*(BEGIN|COMMIT)/i.test(text))).toBe(false);
}

describe('a check-in on PostgreSQL is two round trips', () => {
  it('a first entry, its replay, a second scan, and an exit: two statements each, every write in the second', async () => {
    const [tid] = await issueTickets(issuer.data, issuer.event.eid, 1);
    const first = body(tid!);
    const entered = await counted(first);
    expect(entered.answer.status).toBe('valid');
    expectTwoRoundTrips(entered.statements);
    // The second statement holds the writes: the check-in, occupancy, history, webhook outbox, answer, scan log.
    for (const table of ['checkins', 'occupancy', 'admission_events', 'webhook_deliveries', 'idempotency', 'scan_log']) {
      expect(entered.statements[1]).toContain(`INSERT INTO ${table}`);
    }

    const replay = await counted(first);
    expect(replay.answer).toEqual(entered.answer);
    expectTwoRoundTrips(replay.statements);

    const again = await counted(body(tid!));
    expect(again.answer.status).toBe('already_used');
    expectTwoRoundTrips(again.statements);

    // An exit (door operations): a compare-and-set on the version read, asserted in the same statement.
    const left = await counted(body(tid!, { action: 'exit' }));
    expect(left.answer.status, JSON.stringify(left.answer)).toBe('exited');
    expectTwoRoundTrips(left.statements);
    expect(left.statements[1]).toContain('UPDATE checkins');
    expect(left.statements[1]).toContain('issuer_expect_one_row');
    const state = await database.read.get<{ state: string; entries: number; version: number }>(
      'SELECT state, entries, version FROM checkins WHERE tid = ?',
      [tid!],
    );
    expect(state).toEqual({ state: 'outside', entries: 1, version: 1 });
  });

  it('a party entry and exit, with a webhook endpoint taking them: still two, and the outbox has each message', async () => {
    const secretFile = path.join(scratchDir(), 'hook.secret');
    await cliJson([
      'webhook',
      'add',
      'https://receiver.example/hooks',
      '--data',
      issuer.data,
      '--events',
      'checkin.created,checkin.exited',
      '--secret-file',
      secretFile,
      '--json',
    ]);
    expect(fs.existsSync(secretFile)).toBe(true);
    const [tid] = await issueTickets(issuer.data, issuer.event.eid, 1, ['--party', '4']);
    const entered = await counted(body(tid!, { action: 'entry', people: 3 }));
    expect(entered.answer.status).toBe('valid');
    expectTwoRoundTrips(entered.statements);
    const left = await counted(body(tid!, { action: 'exit', people: 2 }));
    expect(left.answer.status).toBe('exited');
    expectTwoRoundTrips(left.statements);
    const counts = await database.read.get<{ party_inside: number; party_admitted: number }>(
      'SELECT party_inside, party_admitted FROM checkins WHERE tid = ?',
      [tid!],
    );
    expect(counts).toEqual({ party_inside: 1, party_admitted: 3 });
    const messages = await database.read.all<{ type: string }>(
      "SELECT m.type FROM webhook_messages m JOIN webhook_deliveries d ON d.message_id = m.message_id WHERE m.payload LIKE '%' || ? || '%' ORDER BY m.seq",
      [tid!],
    );
    expect(messages.map((message) => message.type)).toEqual(['checkin.created', 'checkin.exited']);
  });

  it('a compare-and-set that lost undoes every write of its statement and runs again: exits raced at one ticket leave it out once', async () => {
    const [tid] = await issueTickets(issuer.data, issuer.event.eid, 1);
    expect((await counted(body(tid!))).answer.status).toBe('valid');
    const exits = await Promise.all(
      Array.from({ length: 8 }, () => checkIn(database, credential, body(tid!, { action: 'exit' }), undefined)),
    );
    const statuses = exits.map((result) =>
      result.ok ? (JSON.parse(result.responseBody) as { status: string }).status : result.error.code,
    );
    expect(statuses.filter((status) => status === 'exited')).toHaveLength(1);
    const history = await database.read.all<{ action: string }>('SELECT action FROM admission_events WHERE tid = ? ORDER BY id', [tid!]);
    expect(history.map((row) => row.action)).toEqual(['entry', 'exit']);
    const answers = await database.read.get<{ stored: number }>(
      'SELECT count(*) AS stored FROM idempotency i JOIN scan_log s ON s.idempotency_key = i.idempotency_key WHERE s.tid = ?',
      [tid!],
    );
    expect(answers?.stored).toBe(9);
  });
});
