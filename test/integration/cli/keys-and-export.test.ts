/** `key rotate` and `checkins export`. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTicketCode } from '../../../protocol/ticket-code.js';
import { appendScanLog, insertCheckin } from '../../../issuer/store/checkins.js';
import { openDatabase } from '../../../issuer/store/database.js';
import { publishedKeys } from '../../../issuer/store/signing-keys.js';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { cliFailure, cliJson, createEvent, initIssuer, LOOPBACK_SERVE, runCli, serveCli } from '../../support/cli-harness.js';
import { enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
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
        action: 'entry',
        state: 'inside',
        actor: 'scanner:scanner-1',
        reason: null,
        staff_id: null,
        attention_overridden_by: null,
        id_check: null,
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
      'source,at,outcome,tid,eid,holder_name,ticket_type,scanned_at,scanner_id,api_key_id,gate_id,idempotency_key,details,action,state,actor,reason,staff_id,attention_overridden_by,id_check',
    );
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(
      `checkins,2026-12-01T19:00:01Z,checked_in,${first.tid},${event.eid},"Ada, Countess",VIP,2026-12-01T19:00:00Z,scanner-1,key_1,North,k1,,entry,inside,scanner:scanner-1,,,,`,
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

  it('shows exits, re-entries and annulments with who and why, and marks an annulled check-in (docs/protocol.md "Door operations")', async () => {
    const { data } = await initIssuer();
    const event = await createEvent(data, ['--entry', 'reentry']);
    const { tickets } = await cliJson<Issued>(['ticket', 'issue', '--data', data, '--event', event.eid, '--count', '4']);
    const [t0, t1, t2, t3] = tickets.map((ticket) => ticket.tid) as [string, string, string, string];
    const server = await serveCli(['--data', data, ...LOOPBACK_SERVE, '--enroll-rpm', '1000']);
    try {
      const setup = await cliJson<{ setup_qr: string }>([
        'scanner',
        'setup',
        '--data',
        data,
        '--event',
        event.eid,
        '--gate',
        'North',
        '--can-annul',
      ]);
      const scannerId = randomUUID();
      const enrolled = await enrollWith(server.url, decodeSetupCode(setup.setup_qr).token, scannerId);
      const kiosk: HttpScanner = { apiKey: ((await enrolled.json()) as { api_key: string }).api_key, scannerId };
      const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
      const keys: Record<string, string> = {};
      const send = async (name: string, tid: string, minutesAgo: number, extra: Record<string, unknown>) => {
        keys[name] = randomUUID();
        const answer = await postCheckIn(server.url, kiosk, {
          tid,
          eid: event.eid,
          scanned_at: at(minutesAgo),
          scanner_id: scannerId,
          idempotency_key: keys[name],
          ...extra,
        });
        expect(answer.status, answer.text).toBe(200);
        return (JSON.parse(answer.text) as { status: string }).status;
      };
      expect(await send('in0', t0, 30, { action: 'entry' })).toBe('valid');
      expect(await send('out0', t0, 20, { action: 'exit' })).toBe('exited');
      expect(await send('back0', t0, 10, { action: 'entry' })).toBe('valid');
      expect(await send('in1', t1, 9, {})).toBe('valid');
      expect(await send('in2', t2, 8, { action: 'entry', admitted_offline: true })).toBe('valid');
      expect(await send('annul2', t2, 1, { action: 'annul', reason: 'scanned the partner ticket by mistake' })).toBe('annulled');
      expect(await send('refused', t0, 0, { action: 'entry' })).toBe('already_used');
      await cliJson(['checkins', 'annul', '--data', data, t1, '--reason', 'refunded at the box office']);
      // Annulled, then in again: the undone entry is marked in the history, the new one is the check-in.
      expect(await send('in3', t3, 0, { action: 'entry' })).toBe('valid');
      await cliJson(['checkins', 'annul', '--data', data, t3, '--reason', 'duplicate wristband']);
      expect(await send('back3', t3, 0, { action: 'entry' })).toBe('valid');

      const rows = await cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', data, '--event', event.eid]);
      const brief = rows.map((row) => ({
        source: row.source,
        outcome: row.outcome,
        tid: row.tid,
        key: row.idempotency_key,
        gate: row.gate_id,
        action: row.action,
        state: row.state,
        actor: row.actor,
        reason: row.reason,
        details: row.details,
      }));
      const scanner = `scanner:${scannerId}`;
      // Each ticket once from checkins (its current admission), the rest of its history once, refusals from the log.
      expect(brief).toEqual([
        {
          source: 'admission_events',
          outcome: 'entered',
          tid: t0,
          key: keys.in0,
          gate: 'North',
          action: 'entry',
          state: null,
          actor: scanner,
          reason: null,
          details: null,
        },
        {
          source: 'admission_events',
          outcome: 'exited',
          tid: t0,
          key: keys.out0,
          gate: 'North',
          action: 'exit',
          state: null,
          actor: scanner,
          reason: null,
          details: null,
        },
        {
          source: 'checkins',
          outcome: 'checked_in',
          tid: t0,
          key: keys.back0,
          gate: 'North',
          action: 'entry',
          state: 'inside',
          actor: scanner,
          reason: null,
          details: null,
        },
        {
          source: 'checkins',
          outcome: 'check_in_annulled',
          tid: t1,
          key: keys.in1,
          gate: 'North',
          action: 'entry',
          state: 'annulled',
          actor: scanner,
          reason: 'refunded at the box office',
          details: null,
        },
        {
          source: 'checkins',
          outcome: 'check_in_annulled',
          tid: t2,
          key: keys.in2,
          gate: 'North',
          action: 'entry',
          state: 'annulled',
          actor: scanner,
          reason: 'scanned the partner ticket by mistake',
          details: null,
        },
        {
          source: 'admission_events',
          outcome: 'annulled',
          tid: t2,
          key: keys.annul2,
          gate: 'North',
          action: 'annul',
          state: null,
          actor: scanner,
          reason: 'scanned the partner ticket by mistake',
          details: null,
        },
        {
          source: 'scan_log',
          outcome: 'already_used',
          tid: t0,
          key: keys.refused,
          gate: 'North',
          action: null,
          state: null,
          actor: null,
          reason: null,
          details: expect.any(String),
        },
        {
          source: 'admission_events',
          outcome: 'annulled',
          tid: t1,
          key: null,
          gate: null,
          action: 'annul',
          state: null,
          actor: 'cli',
          reason: 'refunded at the box office',
          details: null,
        },
        {
          source: 'admission_events',
          outcome: 'entry_annulled',
          tid: t3,
          key: keys.in3,
          gate: 'North',
          action: 'entry',
          state: 'annulled',
          actor: scanner,
          reason: 'duplicate wristband',
          details: null,
        },
        {
          source: 'admission_events',
          outcome: 'annulled',
          tid: t3,
          key: null,
          gate: null,
          action: 'annul',
          state: null,
          actor: 'cli',
          reason: 'duplicate wristband',
          details: null,
        },
        {
          source: 'checkins',
          outcome: 'checked_in',
          tid: t3,
          key: keys.back3,
          gate: 'North',
          action: 'entry',
          state: 'inside',
          actor: scanner,
          reason: null,
          details: null,
        },
      ]);

      // The CSV has the same rows, the new columns last.
      const csv = await runCli(['checkins', 'export', '--data', data, '--event', event.eid, '--format', 'csv']);
      const lines = csv.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(rows.length + 1);
      expect(lines[0]!.endsWith(',details,action,state,actor,reason,staff_id,attention_overridden_by,id_check')).toBe(true);
      expect(lines.find((line) => line.includes(t1) && line.startsWith('checkins,'))).toContain(`,check_in_annulled,`);
      expect(
        lines
          .find((line) => line.includes(t1) && line.startsWith('checkins,'))!
          .endsWith(`,entry,annulled,${scanner},refunded at the box office,,,`),
      ).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
    }
  }, 60_000);
});
