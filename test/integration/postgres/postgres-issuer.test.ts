/**
 * The issuer on PostgreSQL with several `serve` processes sharing one
 * database (docs/issuer.md "Where the database is", "Serving nodes"), all real:
 * a throwaway cluster, the built CLI, two serve child processes on loopback.
 * Every guarantee the spec makes for one process must hold across them:
 * one `valid` per ticket, idempotent replays byte for byte on any process,
 * single-use setup tokens, rate limits counted once for all, and admin
 * commands seen by every process on its next request.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { cliFailure, cliJson, createEvent, LOOPBACK_SERVE, runCli, issueTickets, scratchDir, serveCli } from '../../support/cli-harness.js';
import { checkIn, enroll, enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { useTwoNodeIssuerOnPostgres } from '../../support/issuer-on-store.js';
import { POSTGRES_SCHEMA_VERSION } from '../../../issuer/store/postgres-migrations.js';

const issuer = useTwoNodeIssuerOnPostgres('Platform Tickets');

/** Two serve processes, one per node dir, on loopback. */
async function twoServers(extra: string[] = []): Promise<string[]> {
  // Enrollment is limited per client address (10 a minute, shared by both processes), and every test enrolls from 127.0.0.1.
  const servers = await Promise.all(
    issuer.nodes.map((node) => serveCli(['--data', node, ...LOOPBACK_SERVE, '--enroll-rpm', '1000', ...extra])),
  );
  return servers.map((server) => server.url);
}

describe('init --database and the admin commands on PostgreSQL', () => {
  it('records the URL (never a password) in database.json, keeps no SQLite file, and every command reads the shared database', async () => {
    expect(JSON.parse(fs.readFileSync(path.join(issuer.data, 'database.json'), 'utf8'))).toEqual({ postgres: issuer.cluster.url });
    expect(fs.statSync(path.join(issuer.data, 'database.json')).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(issuer.data, 'issuer.db'))).toBe(false);
    expect(fs.readdirSync(path.join(issuer.data, 'keys')).length).toBe(1);

    const [tid] = await issueTickets(issuer.data, issuer.event.eid, 1);
    const shown = await cliJson<{ tid: string; status: string }>(['ticket', 'show', '--data', issuer.data, tid!]);
    expect(shown).toMatchObject({ tid, status: 'valid' });
    const { events } = await cliJson<{ events: { eid: string }[] }>(['event', 'list', '--data', issuer.data]);
    expect(events.map((e) => e.eid)).toContain(issuer.event.eid);
    expect(await cliJson(['migrate', '--data', issuer.data])).toEqual({ from: POSTGRES_SCHEMA_VERSION, to: POSTGRES_SCHEMA_VERSION });
    // A serving node reads the same database: its record names it too.
    expect(JSON.parse(fs.readFileSync(path.join(issuer.nodes[0]!, 'database.json'), 'utf8'))).toEqual({ postgres: issuer.cluster.url });
  });

  it('a second issuer on the same database is refused before anything is written; a URL with a password is refused', async () => {
    const other = path.join(scratchDir(), 'other');
    const again = await cliFailure([
      'init',
      '--data',
      other,
      '--database',
      issuer.cluster.url,
      '--base-url',
      'https://x.example',
      '--name',
      'X',
    ]);
    expect(again.code).toBe('ALREADY_INITIALISED');
    expect(again.message).toContain('Platform Tickets');
    expect(fs.existsSync(other)).toBe(false);

    const withPassword = issuer.cluster.url.replace('tickets@', 'tickets:hunter2@');
    const refused = await cliFailure([
      'init',
      '--data',
      other,
      '--database',
      withPassword,
      '--base-url',
      'https://x.example',
      '--name',
      'X',
    ]);
    expect(refused.code).toBe('DATABASE_LOCATION_INVALID');
    expect(refused.message).not.toContain('hunter2');
  });

  it('backup works on a SQLite file only, and says so', async () => {
    const failure = await cliFailure(['backup', '--data', issuer.data, '--to', path.join(scratchDir(), 'backup')]);
    expect(failure.code).toBe('DATABASE_NOT_SUPPORTED');
  });
});

describe('two serve processes on one PostgreSQL database', () => {
  it('30 concurrent check-ins of one ticket split over both: exactly one valid; a CLI revocation is refused by both', async () => {
    const urls = await twoServers();
    const scanners = [await enroll(urls[0]!, issuer.data, issuer.event.eid), await enroll(urls[1]!, issuer.data, issuer.event.eid)];
    const [raced, revoked] = await issueTickets(issuer.data, issuer.event.eid, 2);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => checkIn(urls[i % 2]!, scanners[i % 2]!, raced!, issuer.event.eid)),
    );
    expect(statuses.filter((status) => status === 'valid')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'already_used')).toHaveLength(29);

    await cliJson(['ticket', 'revoke', '--data', issuer.data, revoked!]);
    expect(await checkIn(urls[0]!, scanners[0]!, revoked!, issuer.event.eid)).toBe('revoked');
    expect(await checkIn(urls[1]!, scanners[1]!, revoked!, issuer.event.eid)).toBe('revoked');
  });

  it('door operations over both: a ticket scanned in and out at once on the two processes changes state once per answer; occupancy agrees', async () => {
    const urls = await twoServers();
    const reentry = await createEvent(issuer.data, ['--entry', 'reentry']);
    const scanners = [await enroll(urls[0]!, issuer.data, reentry.eid), await enroll(urls[1]!, issuer.data, reentry.eid)];
    const tids = await issueTickets(issuer.data, reentry.eid, 20);
    const scan = async (process: 0 | 1, tid: string, action: string, scannedAt = new Date().toISOString()): Promise<string> => {
      const body = {
        tid,
        eid: reentry.eid,
        scanned_at: scannedAt,
        scanner_id: scanners[process]!.scannerId,
        idempotency_key: crypto.randomUUID(),
        action,
      };
      const response = await postCheckIn(urls[process]!, scanners[process]!, body);
      expect(response.status).toBe(200);
      return (JSON.parse(response.text) as { status: string }).status;
    };
    for (const tid of tids) expect(await scan(0, tid, 'entry')).toBe('valid');
    // Out through one process and in again through the other, at the same moment, three times over per ticket.
    let inside = 0;
    for (const tid of tids) {
      let state: 'inside' | 'outside' = 'inside';
      for (let round = 0; round < 3; round++) {
        // Scanned at the same instant: with an exit a millisecond older than the entry, an exit reaching the issuer
        // after that entry would be older than the ticket's state, i.e. history (docs/protocol.md "Late scans are ordered by `scanned_at`").
        const at = new Date().toISOString();
        const [exit, entry] = await Promise.all([scan(0, tid, 'exit', at), scan(1, tid, 'entry', at)]);
        // Every answer is one of the two orders, applied on the state the other left (never both from the same state).
        if (state === 'inside') {
          expect(exit).toBe('exited');
          state = entry === 'valid' ? 'inside' : 'outside';
          expect(['valid', 'already_used']).toContain(entry);
        } else {
          expect(entry).toBe('valid');
          state = exit === 'exited' ? 'outside' : 'inside';
          expect(['exited', 'not_inside']).toContain(exit);
        }
      }
      if (state === 'inside') inside++;
    }
    const occupancy = await cliJson<{ inside: number }>(['event', 'occupancy', '--data', issuer.data, '--event', reentry.eid]);
    expect(occupancy.inside).toBe(inside);
    const db = new pg.Client({ connectionString: issuer.cluster.url });
    await db.connect();
    try {
      const rows = await db.query<{ inside: string }>(
        "SELECT count(*) AS inside FROM checkins c JOIN tickets t ON t.tid = c.tid WHERE t.eid = $1 AND c.state = 'inside'",
        [reentry.eid],
      );
      expect(Number(rows.rows[0]!.inside)).toBe(inside);
    } finally {
      await db.end();
    }
  });

  it('an idempotency key is global: a replay on the other process gets the same bytes; another body is 409 on both; one key raced over both applies once', async () => {
    const urls = await twoServers();
    const scanner = await enroll(urls[0]!, issuer.data, issuer.event.eid);
    const [first, raced] = await issueTickets(issuer.data, issuer.event.eid, 2);
    const scannedAt = new Date(Date.now() - 60_000).toISOString();
    const body = (tid: string, key: string) => ({
      tid,
      eid: issuer.event.eid,
      scanned_at: scannedAt,
      scanner_id: scanner.scannerId,
      idempotency_key: key,
    });
    const key = crypto.randomUUID();
    const original = await postCheckIn(urls[0]!, scanner, body(first!, key));
    expect(original.status).toBe(200);
    const replay = await postCheckIn(urls[1]!, scanner, body(first!, key));
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(original.text);
    for (const url of urls) {
      const conflict = await postCheckIn(url, scanner, { ...body(first!, key), scanned_at: new Date().toISOString() });
      expect(conflict.status).toBe(409);
    }

    const racedKey = crypto.randomUUID();
    const racedBody = body(raced!, racedKey);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => postCheckIn(urls[i % 2]!, scanner, racedBody)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 12 }, () => 200));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect((JSON.parse(answers[0]!.text) as { status: string }).status).toBe('valid');
  });

  it('one setup token, 10 concurrent enrollments split over both processes: exactly one succeeds', async () => {
    const urls = await twoServers();
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', issuer.event.eid]);
    const token = decodeSetupCode(setup.setup_qr).token;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => enrollWith(urls[i % 2]!, token, crypto.randomUUID())));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(9);
  });

  it('the per-scanner rate limit counts requests to both processes together', async () => {
    const urls = await twoServers(['--scanner-rpm', '10']);
    const scanner: HttpScanner = await enroll(urls[0]!, issuer.data, issuer.event.eid);
    const [tid] = await issueTickets(issuer.data, issuer.event.eid, 1);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${urls[i % 2]}/api/v1/tickets/${tid}/status`, {
        headers: { authorization: `Bearer ${scanner.apiKey}` },
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      await response.arrayBuffer();
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
  });

  it('checkins export and the dashboard count what every process stored', async () => {
    const urls = await twoServers();
    const scanners = [await enroll(urls[0]!, issuer.data, issuer.event.eid), await enroll(urls[1]!, issuer.data, issuer.event.eid)];
    const before = await cliJson<{ rows: { outcome: string }[] } | { outcome: string }[]>([
      'checkins',
      'export',
      '--data',
      issuer.data,
      '--event',
      issuer.event.eid,
      '--format',
      'json',
    ]);
    const rowsOf = (value: typeof before) => (Array.isArray(value) ? value : value.rows);
    const admitsBefore = rowsOf(before).filter((row) => row.outcome === 'checked_in').length;
    const tids = await issueTickets(issuer.data, issuer.event.eid, 4);
    for (const [i, tid] of tids.entries()) expect(await checkIn(urls[i % 2]!, scanners[i % 2]!, tid, issuer.event.eid)).toBe('valid');

    const after = rowsOf(
      await cliJson<typeof before>(['checkins', 'export', '--data', issuer.data, '--event', issuer.event.eid, '--format', 'json']),
    );
    expect(after.filter((row) => row.outcome === 'checked_in').length).toBe(admitsBefore + 4);

    const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data]);
    for (const url of urls) {
      const response = await fetch(`${url}/admin/api/events/${issuer.event.eid}/overview`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const overview = (await response.json()) as { totals: { checked_in: number } };
      expect(overview.totals.checked_in).toBe(admitsBefore + 4);
    }
  });

  it('serve refuses a database whose schema is newer than it knows; migrate refuses it untouched', async () => {
    const pool = new pg.Pool({ connectionString: issuer.cluster.url, max: 1 });
    try {
      await pool.query('UPDATE schema_version SET version = version + 1');
      const refused = await runCli(['serve', '--data', issuer.nodes[0]!, ...LOOPBACK_SERVE]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('upgrade ticket-issuer');
      expect((await cliFailure(['migrate', '--data', issuer.data])).code).toBe('SCHEMA_TOO_NEW');
    } finally {
      await pool.query('UPDATE schema_version SET version = version - 1');
      await pool.end();
    }
  });

  it('both answer /readyz; with the database gone, a check-in is answered 503 with Retry-After instead of hanging', async () => {
    const urls = await twoServers();
    const scanner = await enroll(urls[0]!, issuer.data, issuer.event.eid);
    const [tid] = await issueTickets(issuer.data, issuer.event.eid, 1);
    for (const url of urls) expect((await fetch(`${url}/readyz`)).status).toBe(200);

    await issuer.cluster.stop();
    const answer = await postCheckIn(urls[1]!, scanner, {
      tid: tid!,
      eid: issuer.event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: crypto.randomUUID(),
    });
    // The first process never served this scanner: it must reach the database even to authenticate.
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { details: { reason: 'database_unavailable' } } });
    expect((await fetch(`${urls[0]}/readyz`)).status).toBe(503);
  }, 60_000);
});
