/** `key rotate` and `checkins export`. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTicketCode } from '../../../protocol/ticket-code.js';
import { appendScanLog, insertCheckin } from '../../../issuer/store/checkins.js';
import { openDatabase } from '../../../issuer/store/database.js';
import { publishedKeys } from '../../../issuer/store/signing-keys.js';
import { cliFailure, cliJson, createEvent, initIssuer, runCli } from '../../support/cli-harness.js';
import { sqliteSql } from '../../../issuer/store/sqlite-database.js';

interface Issued {
  tickets: { tid: string; qr: string }[];
}

describe('key rotate', () => {
  it('prints {kid, retired}; new tickets use the new key; the old kid stays published while its tickets live', async () => {
    const { data, kid: firstKid } = await initIssuer();
    const event = await createEvent(data);
    const before = await cliJson<Issued>(['ticket', 'issue', '--data', data, '--event', event.eid]);

    const rotated = await cliJson<{ kid: string; retired: string[] }>(['key', 'rotate', '--data', data]);
    expect(Object.keys(rotated)).toEqual(['kid', 'retired']);
    expect(rotated).toEqual({ kid: expect.stringMatching(/^[0-9a-f]{8}$/), retired: [firstKid] });
    expect(rotated.kid).not.toBe(firstKid);
    expect(fs.statSync(path.join(data, 'keys', `${rotated.kid}.key`)).mode & 0o777).toBe(0o600);

    const after = await cliJson<Issued>(['ticket', 'issue', '--data', data, '--event', event.eid]);
    expect(decodeTicketCode(before.tickets[0]!.qr).payload.kid).toBe(firstKid);
    expect(decodeTicketCode(after.tickets[0]!.qr).payload.kid).toBe(rotated.kid);

    const db = openDatabase(path.join(data, 'issuer.db'));
    const published = await publishedKeys(sqliteSql(db), Math.floor(Date.now() / 1000));
    db.close();
    expect(published.map((k) => k.kid)).toEqual([rotated.kid, firstKid]);
    expect(published[1]!.valid_until).not.toBeNull();

    const again = await cliJson<{ kid: string; retired: string[] }>(['key', 'rotate', '--data', data]);
    expect(again.retired).toEqual([rotated.kid]);
  });
});

describe('checkins export', () => {
  it('lists each check-in and each refused scan of the event, as JSON rows or CSV', async () => {
    const { data } = await initIssuer();
    const event = await createEvent(data);
    const other = await createEvent(data);
    const { tickets } = await cliJson<Issued>([
      'ticket',
      'issue',
      '--data',
      data,
      '--event',
      event.eid,
      '--holder',
      'Ada, Countess',
      '--type',
      'VIP',
      '--count',
      '2',
    ]);
    const first = tickets[0]!;
    const second = tickets[1]!;

    // What the HTTP API records during the event, written directly.
    const db = openDatabase(path.join(data, 'issuer.db'));
    const scan = { scanner_id: 'scanner-1', api_key_id: 'key_1', gate_id: 'North' };
    await appendScanLog(sqliteSql(db), {
      at: '2026-12-01T19:00:01Z',
      scanned_at: '2026-12-01T19:00:00Z',
      tid: first.tid,
      eid: event.eid,
      ...scan,
      idempotency_key: 'k1',
      outcome: 'valid',
      details: null,
    });
    await insertCheckin(sqliteSql(db), {
      tid: first.tid,
      checked_in_at: '2026-12-01T19:00:00Z',
      ...scan,
      idempotency_key: 'k1',
      recorded_at: '2026-12-01T19:00:01Z',
      state: 'inside',
      state_at: '2026-12-01T19:00:00Z',
      first_checked_in_at: '2026-12-01T19:00:00Z',
      entries: 1,
      version: 0,
    });
    await appendScanLog(sqliteSql(db), {
      at: '2026-12-01T19:05:01Z',
      scanned_at: '2026-12-01T19:05:00Z',
      tid: first.tid,
      eid: event.eid,
      ...scan,
      idempotency_key: 'k2',
      outcome: 'already_used',
      details: null,
    });
    await appendScanLog(sqliteSql(db), {
      at: '2026-12-01T19:06:01Z',
      scanned_at: '2026-12-01T19:06:00Z',
      tid: 'FORGED',
      eid: event.eid,
      ...scan,
      idempotency_key: 'k3',
      outcome: 'invalid_signature',
      details: '{"reason":"invalid_signature"}',
    });
    await appendScanLog(sqliteSql(db), {
      at: '2026-12-01T19:07:01Z',
      scanned_at: '2026-12-01T19:07:00Z',
      tid: second.tid,
      eid: other.eid,
      ...scan,
      idempotency_key: 'k4',
      outcome: 'wrong_event',
      details: null,
    });
    db.close();

    const rows = await cliJson<Record<string, unknown>[]>(['checkins', 'export', '--data', data, '--event', event.eid]);
    expect(rows).toEqual([
      {
        source: 'checkins',
        at: '2026-12-01T19:00:01Z',
        outcome: 'checked_in',
        tid: first.tid,
        eid: event.eid,
        holder_name: 'Ada, Countess',
        ticket_type: 'VIP',
        scanned_at: '2026-12-01T19:00:00Z',
        scanner_id: 'scanner-1',
        api_key_id: 'key_1',
        gate_id: 'North',
        idempotency_key: 'k1',
        details: null,
      },
      expect.objectContaining({
        source: 'scan_log',
        outcome: 'already_used',
        tid: first.tid,
        holder_name: 'Ada, Countess',
        idempotency_key: 'k2',
      }),
      expect.objectContaining({
        source: 'scan_log',
        outcome: 'invalid_signature',
        tid: 'FORGED',
        holder_name: null,
        details: '{"reason":"invalid_signature"}',
      }),
    ]);
    expect(await cliJson(['checkins', 'export', '--data', data, '--event', other.eid, '--format', 'json'])).toEqual([
      expect.objectContaining({ outcome: 'wrong_event', tid: second.tid, eid: other.eid }),
    ]);

    const csv = await runCli(['checkins', 'export', '--data', data, '--event', event.eid, '--format', 'csv']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'source,at,outcome,tid,eid,holder_name,ticket_type,scanned_at,scanner_id,api_key_id,gate_id,idempotency_key,details',
    );
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(
      `checkins,2026-12-01T19:00:01Z,checked_in,${first.tid},${event.eid},"Ada, Countess",VIP,2026-12-01T19:00:00Z,scanner-1,key_1,North,k1,`,
    );
    expect(lines[3]).toContain(',"{""reason"":""invalid_signature""}"');

    // Plain `--format json` without --json is the same JSON; --json with CSV is refused (stdout must be JSON).
    const plainJson = await runCli(['checkins', 'export', '--data', data, '--event', event.eid, '--format', 'json']);
    expect(JSON.parse(plainJson.stdout)).toEqual(rows);
    expect((await cliFailure(['checkins', 'export', '--data', data, '--event', event.eid, '--format', 'csv'])).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await cliFailure(['checkins', 'export', '--data', data, '--event', event.eid, '--format', 'xml'])).code).toBe(
      'INVALID_ARGUMENT',
    );
  });
});
