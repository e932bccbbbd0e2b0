/**
 * Attention flags and check-in notes, one answer online and offline (docs/protocol.md "Attention notes (project
 * extension)", docs/kiosk.md "Attention notes"): the SAME cases through the REAL issuer (HTTP on a loopback port, a
 * real SQLite file) and through a KioskCore that synced the notes list and then lost the issuer. The issuer's status
 * and check-in answers and the kiosk's offline verdict carry the same `attention` (flag of the type OR the ticket,
 * the type's note first). An attention verdict holds the door: the next ticket is refused until Done, or until the
 * hold's time passes; a verdict without attention holds nothing.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/attention-notes.test.ts
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Attention } from '../../../protocol/attention.js';
import type { AttentionChange } from '../../../issuer/store/attention-notes.js';
import { setTicketTypeAttention, updateTicketAttention } from '../../../issuer/services/attention-notes.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** The kiosk's hold in these tests (kiosk-config `attention_hold_seconds`). */
const HOLD_SECONDS = 20;

interface Case {
  /** The type "Bar"'s rule, set before anything is synced. */
  type: AttentionChange | null;
  /** Each ticket's own rule, set before the first sync. */
  ticket: AttentionChange | null;
  /** A change of each ticket's own rule after the kiosk's first sync (it reaches the kiosk at the next sync). */
  later: AttentionChange | null;
  expected: Attention | null;
}

const CASES: readonly [string, Case][] = [
  ['nothing set', { type: null, ticket: null, later: null, expected: null }],
  ['the type flagged, no note', { type: { attention: true }, ticket: null, later: null, expected: { required: true, notes: [] } }],
  [
    "the type's note only",
    { type: { note: 'Green wristband' }, ticket: null, later: null, expected: { required: false, notes: ['Green wristband'] } },
  ],
  [
    "the ticket's flag and note",
    {
      type: null,
      ticket: { attention: true, note: 'Wheelchair user: side door' },
      later: null,
      expected: { required: true, notes: ['Wheelchair user: side door'] },
    },
  ],
  [
    "both notes: the type's first",
    {
      type: { note: 'Green wristband' },
      ticket: { attention: true, note: 'Under 16: with a guardian' },
      later: null,
      expected: { required: true, notes: ['Green wristband', 'Under 16: with a guardian'] },
    },
  ],
  [
    "the ticket's flag cleared after the first sync",
    { type: null, ticket: { attention: true, note: 'Call the manager' }, later: { attention: false, note: null }, expected: null },
  ],
  [
    "a note added after the first sync, the type's flag with it",
    {
      type: { attention: true },
      ticket: null,
      later: { note: 'Press pass: photo pit' },
      expected: { required: true, notes: ['Press pass: photo pit'] },
    },
  ],
  [
    'flag and note set to nothing',
    { type: { attention: false, note: null }, ticket: { attention: false, note: null }, later: null, expected: null },
  ],
];

async function checkIn(tid: string): Promise<{ status: string; attention?: Attention }> {
  const { fx, event } = rig.issuer;
  const scanner = fx.enrollScanner(event.eid);
  const response = await fetch(`${rig.issuer.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tid,
      eid: event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; attention?: Attention };
}

async function status(tid: string): Promise<{ attention?: Attention }> {
  const { fx, event } = rig.issuer;
  const scanner = fx.enrollScanner(event.eid);
  const response = await fetch(`${rig.issuer.url}/api/v1/tickets/${tid}/status`, {
    headers: { authorization: `Bearer ${scanner.apiKey}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { attention?: Attention };
}

/** A scan at the kiosk; the kiosk's clock then moves past the verdict's time on screen (docs/kiosk.md "Double reads"). */
async function scanAt(kiosk: KioskCore, qr: string) {
  const result = await kiosk.scan(qr);
  rig.skew += 7_000;
  return result;
}

describe('the same attention answer through the issuer and through an offline kiosk', () => {
  it.each(CASES)(
    '%s',
    async (_name, { type, ticket, later, expected }) => {
      const { fx, event } = rig.issuer;
      const now = new Date().toISOString();
      if (type !== null) await setTicketTypeAttention(fx.sql, event.eid, 'Bar', type, now);
      const atIssuer = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
      const first = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
      const second = fx.issueTicket(event.eid, { holderName: 'Ada Lovelace', ticketType: 'Bar' });
      const plain = [1, 2, 3].map(() => fx.issueTicket(event.eid, { holderName: 'Grace Hopper', ticketType: 'Standard' }));
      const flagged = [atIssuer, first, second];
      if (ticket !== null) for (const t of flagged) await updateTicketAttention(fx.sql, t.tid, ticket);

      // The kiosk syncs the list, then the later change is made at the issuer and synced in turn.
      const keys = rig.kiosks.keychain('door');
      rig.kiosks.track(keys);
      const kiosk = rig.kiosks.open(keys, { db: 'door.db', heartbeatIntervalMs: 0, now: rig.clock, attentionHoldSeconds: HOLD_SECONDS });
      await enrollWith(kiosk, rig.issuer.setupCode().code);
      await kiosk.syncRevocations();
      if (later !== null) {
        for (const t of flagged) await updateTicketAttention(fx.sql, t.tid, later);
        await kiosk.syncRevocations();
      }

      // Online: the status answer and a check-in answer.
      expect((await status(atIssuer.tid)).attention ?? null).toEqual(expected);
      const answer = await checkIn(atIssuer.tid);
      expect(answer.status).toBe('valid');
      expect(answer.attention ?? null).toEqual(expected);
      expect((await checkIn(plain[0]!.tid)).attention).toBeUndefined();

      // Offline: the same answer from the synced list.
      await rig.issuer.stop();
      const verdict = verdictOf(await scanAt(kiosk, first.qr));
      expect(verdict.kind).toBe('admit');
      expect(verdict.kind === 'admit' ? (verdict.attention ?? null) : 'not admitted').toEqual(expected);

      if (expected === null) {
        // No hold: the next ticket is decided at once.
        expect((await kiosk.getState()).attention_hold).toBeNull();
        expect(verdictOf(await scanAt(kiosk, plain[1]!.qr)).kind).toBe('admit');
        return;
      }
      // The door is held: another ticket is refused (not checked in) until Done.
      expect((await kiosk.getState()).attention_hold).toMatchObject({ tid: first.tid });
      expect((await scanAt(kiosk, plain[1]!.qr)).type).toBe('attention_held');
      await kiosk.attentionDone();
      expect((await kiosk.getState()).attention_hold).toBeNull();
      expect(verdictOf(await scanAt(kiosk, plain[1]!.qr)).kind).toBe('admit');

      // Held again, and this time nobody taps Done: the hold ends when its time has passed.
      expect(verdictOf(await scanAt(kiosk, second.qr))).toMatchObject({ kind: 'admit', attention: expected });
      expect((await scanAt(kiosk, plain[2]!.qr)).type).toBe('attention_held');
      rig.skew += HOLD_SECONDS * 1000;
      expect((await kiosk.getState()).attention_hold).toBeNull();
      expect(verdictOf(await scanAt(kiosk, plain[2]!.qr)).kind).toBe('admit');
    },
    60_000,
  );
});
