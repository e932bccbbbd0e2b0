/**
 * Tamper-evident logs (docs/issuer.md "Audit: tamper-evident logs"): the scan_log hash chain and the kiosks'
 * reported chain heads, checked by the built `ticket-issuer audit verify` on real SQLite files. Rows are
 * edited, deleted and reordered in the file as an attacker with the database would; the chain travels to the
 * venue laptop and back through export and import.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { chainFields, chainHash, GENESIS_HASH, SCAN_LOG_CHAIN_FIELDS } from '../../../protocol/audit-chain.js';
import type { ExportResult } from '../../../issuer/transfer/export.js';
import { build } from '../../../issuer/app.js';
import { captureLog } from '../../support/unit/log-capture.js';
import { cliFailure, cliJson, createEvent, initIssuer, issueTickets, openDb, runCli, scratchDir } from '../../support/cli-harness.js';

const SLOW = 90_000;
const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function api(data: string): Promise<FastifyInstance> {
  const app = await build({ dataDir: data, logger: captureLog().logger, enrollRpm: 1000 });
  apps.push(app);
  return app;
}

async function enroll(app: FastifyInstance, data: string, eid: string, scannerId = randomUUID()): Promise<string> {
  const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', eid]);
  const { token } = decodeSetupCode(setup.setup_qr);
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/scanners/enroll',
    payload: { token, scanner_id: scannerId, scanner_name: 'Door A' },
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { api_key: string }).api_key;
}

async function checkIn(app: FastifyInstance, apiKey: string, tid: string, eid: string): Promise<number> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { tid, eid, scanned_at: new Date().toISOString(), scanner_id: 'door-a', idempotency_key: randomUUID() },
  });
  return response.statusCode;
}

async function heartbeat(app: FastifyInstance, apiKey: string, logHead?: { position: number; hash: string }): Promise<number> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/scanners/heartbeat',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { scanner_id: 'door-a', ...(logHead ? { log_head: logHead } : {}) },
  });
  return response.statusCode;
}

interface VerifyJson {
  ok: true;
  eid: string | null;
  rows: number;
  head: { position: number; hash: string };
  kiosks: number;
  heads: number;
}

const verify = (data: string, extra: string[] = []) => cliJson<VerifyJson>(['audit', 'verify', '--data', data, ...extra]);
const verifyFails = (data: string) => cliFailure(['audit', 'verify', '--data', data]);

/** A copy of the data dir, to break in one way (the original stays intact for the next case). */
function copyOf(data: string): string {
  const target = path.join(scratchDir('audit-copy-'), 'issuer-data');
  fs.cpSync(data, target, { recursive: true });
  return target;
}

function change(data: string, ...statements: string[]): void {
  const db = openDb(data);
  for (const sql of statements) db.exec(sql);
  db.close();
}

function scanLog(data: string): Record<string, string | number | null>[] {
  const db = openDb(data);
  const rows = db.prepare('SELECT * FROM scan_log ORDER BY id').all() as Record<string, string | number | null>[];
  db.close();
  return rows;
}

/** An issuer with one event, a scanner, check-ins, a refusal, an annulment and a malformed request in its log. */
async function issuerWithLog(): Promise<{ data: string; eid: string; apiKey: string; app: FastifyInstance; tids: string[] }> {
  const { data } = await initIssuer();
  const event = await createEvent(data);
  const tids = await issueTickets(data, event.eid, 6);
  const app = await api(data);
  const apiKey = await enroll(app, data, event.eid);
  for (const tid of tids.slice(0, 4)) expect(await checkIn(app, apiKey, tid, event.eid)).toBe(200);
  await checkIn(app, apiKey, tids[0]!, event.eid); // already used
  const malformed = await app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { tid: tids[5], eid: event.eid },
  });
  expect(malformed.statusCode).toBe(400);
  await cliJson(['checkins', 'annul', tids[1]!, '--data', data, '--reason', 'let in by mistake']);
  return { data, eid: event.eid, apiKey, app, tids };
}

describe('audit verify on SQLite', () => {
  it(
    'chains every kind of scan_log row and verifies them: OK with the counts',
    async () => {
      const { data, eid } = await issuerWithLog();
      const log = scanLog(data);
      expect(log.map((row) => row.outcome)).toEqual(['valid', 'valid', 'valid', 'valid', 'already_used', 'invalid_request', 'annulled']);
      // Re-verifiable with a few lines: the documented encoding, the previous hash, in id order.
      let prev = GENESIS_HASH;
      log.forEach((row, index) => {
        expect(row.position).toBe(index + 1);
        expect(row.prev_hash).toBe(prev);
        expect(row.hash).toBe(chainHash(prev, chainFields(row, SCAN_LOG_CHAIN_FIELDS)));
        prev = row.hash as string;
      });
      const report = await verify(data);
      expect(report).toMatchObject({ ok: true, eid: null, rows: 7, kiosks: 0, heads: 0, head: { position: 7, hash: prev } });
      expect((await verify(data, ['--event', eid])).rows).toBe(7);
      const human = await runCli(['audit', 'verify', '--data', data]);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(/^OK: 7 scan log row\(s\) checked/);
    },
    SLOW,
  );

  it(
    'finds an edited, a deleted, a reordered and a truncated row, and names it',
    async () => {
      const { data } = await issuerWithLog();
      const ids = scanLog(data).map((row) => Number(row.id));

      const edited = copyOf(data);
      change(edited, `UPDATE scan_log SET outcome = 'valid' WHERE id = ${ids[4]}`);
      const editedFailure = await verifyFails(edited);
      expect(editedFailure.code).toBe('AUDIT_CHAIN_BROKEN');
      expect(editedFailure.message).toContain(`row id ${ids[4]} (position 5)`);
      expect(editedFailure.message).toContain('hash does not match');

      const deleted = copyOf(data);
      change(deleted, `DELETE FROM scan_log WHERE id = ${ids[2]}`);
      const deletedFailure = await verifyFails(deleted);
      expect(deletedFailure.message).toContain('position 3 is missing');
      expect(deletedFailure.message).toContain(`(id ${ids[3]})`);

      // Two rows swap places in id order (their ids exchanged): the order of the log is no longer the chain's.
      const reordered = copyOf(data);
      change(
        reordered,
        `UPDATE scan_log SET id = -1 WHERE id = ${ids[1]}`,
        `UPDATE scan_log SET id = ${ids[1]} WHERE id = ${ids[2]}`,
        `UPDATE scan_log SET id = ${ids[2]} WHERE id = -1`,
      );
      const reorderedFailure = await verifyFails(reordered);
      expect(reorderedFailure.message).toContain(`row id ${ids[1]} has position 3 where position 2 was due`);
      expect(reorderedFailure.message).toContain('reordered');

      // A row replaced with a consistent hash of its own: the next row's link gives it away.
      const relinked = copyOf(data);
      const row = scanLog(data)[1]!;
      const forged = { ...row, outcome: 'revoked' };
      change(
        relinked,
        `UPDATE scan_log SET outcome = 'revoked', hash = '${chainHash(row.prev_hash as string, chainFields(forged, SCAN_LOG_CHAIN_FIELDS))}' WHERE id = ${ids[1]}`,
      );
      const relinkedFailure = await verifyFails(relinked);
      expect(relinkedFailure.message).toContain(`row id ${ids[2]} (position 3): prev_hash`);

      const truncated = copyOf(data);
      change(truncated, `DELETE FROM scan_log WHERE id = ${ids.at(-1)}`);
      expect((await verifyFails(truncated)).message).toContain('the chain head says position 7');

      // The original is untouched and still verifies.
      expect((await verify(data)).ok).toBe(true);
    },
    SLOW,
  );

  it(
    "keeps the kiosks' heads and flags a kiosk whose log was rewritten (same position, other hash; or a lower position)",
    async () => {
      const { data, app, apiKey } = await issuerWithLog();
      const hash = (n: number) => chainHash(GENESIS_HASH, [n]);
      expect(await heartbeat(app, apiKey, { position: 3, hash: hash(3) })).toBe(200);
      expect(await heartbeat(app, apiKey, { position: 3, hash: hash(3) })).toBe(200); // unchanged: not kept twice
      expect(await heartbeat(app, apiKey)).toBe(200); // an older kiosk without the field
      expect(await heartbeat(app, apiKey, { position: 9, hash: hash(9) })).toBe(200);
      expect(await verify(data)).toMatchObject({ ok: true, kiosks: 1, heads: 2 });
      // A malformed head is refused like any malformed field.
      expect(await heartbeat(app, apiKey, { position: 10, hash: 'nope' })).toBe(400);

      const rewritten = copyOf(data);
      const app2 = await api(rewritten);
      // Nothing is refused: the head is kept, and flagged.
      expect(await heartbeat(app2, apiKey, { position: 9, hash: hash(99) })).toBe(200);
      const failure = await verifyFails(rewritten);
      expect(failure.code).toBe('AUDIT_CHAIN_BROKEN');
      expect(failure.message).toContain('rewrote its log');
      expect(failure.message).toContain(`position 9 was reported at`);
      const db = openDb(rewritten);
      expect(db.prepare('SELECT contradiction FROM kiosk_log_heads ORDER BY id DESC LIMIT 1').get()).toMatchObject({
        contradiction: expect.stringContaining('position 9'),
      });
      db.close();

      const wentBack = copyOf(data);
      const app3 = await api(wentBack);
      expect(await heartbeat(app3, apiKey, { position: 4, hash: hash(4) })).toBe(200);
      expect((await verifyFails(wentBack)).message).toContain('position 4 is lower than position 9');
    },
    SLOW,
  );
});

describe('the chain on the trip to the venue laptop and back', () => {
  it(
    'survives export → import → export back, with check-ins on both sides meanwhile; no row twice on a second trip',
    async () => {
      const { data: office, eid, app, apiKey, tids } = await issuerWithLog();
      await heartbeat(app, apiKey, { position: 2, hash: chainHash(GENESIS_HASH, [2]) });
      const first = await cliJson<ExportResult>(['export', '--data', office, '--to', path.join(scratchDir('export-'), 'out.json')]);
      const venue = path.join(scratchDir('venue-'), 'issuer-data');
      await cliJson(['import', '--data', venue, '--from', first.file]);
      // The venue's chain is the office's: the same rows at the same positions with the same hashes.
      const strip = (rows: Record<string, unknown>[]) => rows.map(({ id: _id, ...rest }) => rest);
      expect(strip(scanLog(venue))).toEqual(strip(scanLog(office)));
      expect(await verify(venue)).toMatchObject({ ok: true, rows: 7, kiosks: 1, heads: 1 });

      // Both sides check in meanwhile: the office its 5th ticket, the venue the 6th.
      expect(await checkIn(app, apiKey, tids[4]!, eid)).toBe(200);
      const venueApp = await api(venue);
      expect(await checkIn(venueApp, apiKey, tids[5]!, eid)).toBe(200);
      expect(await heartbeat(venueApp, apiKey, { position: 5, hash: chainHash(GENESIS_HASH, [5]) })).toBe(200);

      const back = await cliJson<ExportResult>(['export', '--data', venue, '--to', path.join(scratchDir('export-'), 'back.json')]);
      await cliJson(['import', '--data', office, '--from', back.file]);
      const merged = scanLog(office);
      expect(merged).toHaveLength(9);
      // The venue's row came after the office's own 8th: re-chained here, its place at the venue kept in origin.
      const fromVenue = merged.at(-1)!;
      expect(fromVenue).toMatchObject({ position: 9, tid: tids[5] });
      const origin = JSON.parse(fromVenue.origin as string) as { position: number; prev_hash: string; hash: string; origin: null };
      const venueRow = scanLog(venue).at(-1)!;
      expect(origin).toEqual({ position: venueRow.position, prev_hash: venueRow.prev_hash, hash: venueRow.hash, origin: null });
      // …and the sender's hash can still be checked from the row itself.
      expect(
        chainHash(origin.prev_hash, chainFields({ ...fromVenue, position: origin.position, origin: null }, SCAN_LOG_CHAIN_FIELDS)),
      ).toBe(origin.hash);
      expect(await verify(office)).toMatchObject({ ok: true, rows: 9, kiosks: 1, heads: 2 });

      // And back again: nothing new for the venue but the office's 8th row (re-chained there too); no duplicates.
      const again = await cliJson<ExportResult>(['export', '--data', office, '--to', path.join(scratchDir('export-'), 'again.json')]);
      await cliJson(['import', '--data', venue, '--from', again.file]);
      expect(scanLog(venue)).toHaveLength(9);
      expect(await verify(venue)).toMatchObject({ ok: true, rows: 9, kiosks: 1, heads: 2 });
      await cliJson(['import', '--data', office, '--from', again.file]);
      expect(scanLog(office)).toHaveLength(9);
      expect((await verify(office)).ok).toBe(true);
    },
    SLOW,
  );
});
