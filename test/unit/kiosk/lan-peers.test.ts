/**
 * The pure part of "kiosks on one LAN warn each other" (main/kiosk/sync/lan-peers.ts):
 * encoding and MAC, the replay window, the peer table that discovery and
 * configuration share, catch-up, and the offline check `seen_by_peer`.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMISSIONS_PER_DATAGRAM,
  CATCHUP_LIMIT,
  canonicalBytes,
  decodeMessage,
  encodeMessage,
  IGNORED_LINES_PER_MINUTE,
  IgnoredMessageLog,
  LanPeerState,
  type LanAdmission,
  type LanMembership,
  type LanMessage,
} from '../../../main/kiosk/sync/lan-peers.js';
import { CHECK_REASON, OFFLINE_CHECKS } from '../../../protocol/index.js';

const KEY = Buffer.alloc(32, 1);
const NOW = Date.parse('2026-07-18T21:03:00Z');
const EID = 'evt_summer';
const member = (scannerId: string, gate: string | null = scannerId, key: Uint8Array = KEY, eid = EID): LanMembership => ({
  eid,
  scannerId,
  gate,
  key,
});
const admission = (tid: string, at = '2026-07-18T21:03:00.000Z'): LanAdmission => ({ tid, admitted_at: at, gate: 'A', offline: true });
const A_ADDR = { address: '127.0.0.1', port: 41001 };
const B_ADDR = { address: '127.0.0.1', port: 41002 };

function kiosk(scannerId: string, options: ConstructorParameters<typeof LanPeerState>[0] = {}, key: Uint8Array = KEY): LanPeerState {
  const state = new LanPeerState(options);
  state.setMembership(member(scannerId, scannerId, key));
  return state;
}

const message: LanMessage = {
  type: 'admit',
  eid: EID,
  from: 'scn_a',
  gate: 'A',
  seq: 7,
  ts: NOW,
  since: null,
  adm: [admission('T1')],
};

describe('LAN message encoding', () => {
  it('round-trips every field, with a 32-byte MAC', () => {
    const decoded = decodeMessage(encodeMessage(message, KEY));
    expect(decoded).toMatchObject({ ok: true, message });
    expect(decoded.ok && decoded.mac.length).toBe(32);
  });

  it('the canonical bytes are a fixed-order array, and every field changes them', () => {
    expect(canonicalBytes(message).toString()).toBe(
      JSON.stringify(['tvlan/1', 'admit', EID, 'scn_a', 'A', 7, NOW, null, [['T1', '2026-07-18T21:03:00.000Z', 'A', 1]]]),
    );
    const variants: Partial<LanMessage>[] = [
      { type: 'catchup_reply' },
      { eid: 'other' },
      { from: 'scn_b' },
      { gate: 'B' },
      { gate: null },
      { seq: 8 },
      { ts: NOW + 1 },
      { since: '2026-07-18T20:00:00.000Z' },
      { adm: [admission('T2')] },
      { adm: [{ ...admission('T1'), offline: false }] },
    ];
    const base = canonicalBytes(message).toString();
    for (const variant of variants) expect(canonicalBytes({ ...message, ...variant }).toString(), JSON.stringify(variant)).not.toBe(base);
  });

  it('refuses shapes it does not know, without throwing', () => {
    const wire = JSON.parse(encodeMessage(message, KEY).toString()) as Record<string, unknown>;
    const bad = (patch: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify({ ...wire, ...patch }));
    expect(decodeMessage(Buffer.from('not json'))).toEqual({ ok: false, problem: 'not JSON' });
    expect(decodeMessage(bad({ p: 'tvlan/2' }))).toMatchObject({ ok: false });
    expect(decodeMessage(bad({ type: 'admit_all' }))).toMatchObject({ ok: false, problem: 'unknown message type' });
    expect(decodeMessage(bad({ seq: -1 }))).toMatchObject({ ok: false, problem: 'bad sequence number' });
    expect(decodeMessage(bad({ adm: [['T1', 'yesterday', 'A', 1]] }))).toMatchObject({ ok: false, problem: 'bad admission' });
    expect(decodeMessage(bad({ mac: 'short' }))).toMatchObject({ ok: false, problem: 'bad MAC field' });
    expect(decodeMessage(Buffer.alloc(9000, 32))).toMatchObject({ ok: false });
  });
});

describe('receiving', () => {
  it('learns a peer admission from an authentic message, keeping the earliest', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const handling = b.receive(a.build('admit', NOW, { adm: [admission('T1', '2026-07-18T21:03:00.000Z')] })!, A_ADDR, NOW);
    expect(handling).toMatchObject({ learned: 1 });
    expect(handling.log).toBeUndefined();
    b.receive(a.build('admit', NOW + 1, { adm: [admission('T1', '2026-07-18T21:05:00.000Z')] })!, A_ADDR, NOW + 1);
    expect(b.admissionOf('T1')).toEqual({ ...admission('T1', '2026-07-18T21:03:00.000Z'), scanner_id: 'scn_a' });
  });

  it('ignores and logs a forged message (another key), naming no secret', () => {
    const forger = kiosk('scn_x', {}, Buffer.alloc(32, 9));
    const b = kiosk('scn_b');
    const handling = b.receive(forger.build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW);
    expect(handling.learned).toBe(0);
    expect(handling.log).toMatch(/^LAN admit from 127\.0\.0\.1:41001 \(scanner scn_x, seq \d+\) ignored: bad MAC/);
    expect(handling.log).not.toContain(KEY.toString('base64url'));
    expect(b.admissionOf('T1')).toBeUndefined();
  });

  it('ignores and logs a message for another event', () => {
    const other = new LanPeerState();
    other.setMembership(member('scn_x', 'X', KEY, 'evt_other'));
    const handling = kiosk('scn_b').receive(other.build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW);
    expect(handling.log).toMatch(/ignored: for another event \(evt_other\)/);
    expect(handling.learned).toBe(0);
  });

  it('ignores and logs a replay: the same datagram again, or an older sequence number', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const first = a.build('admit', NOW, { adm: [admission('T1')] })!;
    const second = a.build('admit', NOW, { adm: [admission('T2')] })!;
    expect(b.receive(second, A_ADDR, NOW).learned).toBe(1);
    expect(b.receive(second, A_ADDR, NOW).log).toMatch(/ignored: replayed \(sequence not newer than \d+\)/);
    const older = b.receive(first, A_ADDR, NOW);
    expect(older.log).toMatch(/ignored: replayed/);
    expect(b.admissionOf('T1')).toBeUndefined();
  });

  it('ignores and logs a message whose timestamp is outside the window, either way', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b', { replayWindowMs: 60_000 });
    expect(b.receive(a.build('admit', NOW - 61_000, { adm: [admission('T1')] })!, A_ADDR, NOW).log).toMatch(/timestamp -61 s off/);
    expect(b.receive(a.build('admit', NOW + 61_000, { adm: [admission('T2')] })!, A_ADDR, NOW).log).toMatch(/timestamp 61 s off/);
    expect(b.receive(a.build('admit', NOW - 59_000, { adm: [admission('T3')] })!, A_ADDR, NOW).learned).toBe(1);
  });

  it('says nothing about its own messages looped back, and nothing before it has joined', () => {
    const a = kiosk('scn_a');
    expect(a.receive(a.build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW)).toEqual({ send: [], learned: 0 });
    const notJoined = new LanPeerState();
    expect(notJoined.receive(a.build('hello', NOW)!, A_ADDR, NOW)).toEqual({ send: [], learned: 0 });
    expect(notJoined.build('hello', NOW)).toBeNull();
  });

  it('sequence numbers keep increasing across a restart (they start from the clock)', () => {
    const before = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(before.build('hello', NOW)!, A_ADDR, NOW);
    b.receive(before.build('hello', NOW)!, A_ADDR, NOW);
    const restarted = kiosk('scn_a');
    expect(b.receive(restarted.build('admit', NOW + 5, { adm: [admission('T1')] })!, A_ADDR, NOW + 5).learned).toBe(1);
  });

  it('a new event forgets what peers said about the old one', () => {
    const b = kiosk('scn_b');
    b.receive(kiosk('scn_a').build('admit', NOW, { adm: [admission('T1')] })!, A_ADDR, NOW);
    b.setMembership(member('scn_b', 'B', KEY, 'evt_next'));
    expect(b.admissionOf('T1')).toBeUndefined();
  });
});

describe('the log of ignored messages', () => {
  it('writes the first lines of a minute, counts the rest, and says the count once the minute is over', () => {
    const log = new IgnoredMessageLog();
    const written: string[] = [];
    for (let i = 0; i < 500; i++) written.push(...log.lines(`forged ${i}`, NOW + i));
    expect(written).toEqual(Array.from({ length: IGNORED_LINES_PER_MINUTE }, (_, i) => `forged ${i}`));
    expect(log.due(NOW + 59_999)).toEqual([]);
    // The flood stopped: the timer tells the count; once only.
    const summary = log.due(NOW + 60_000);
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain(`${500 - IGNORED_LINES_PER_MINUTE} more message(s) ignored in the last minute`);
    expect(log.due(NOW + 120_000)).toEqual([]);
    // A new minute writes its first lines again.
    expect(log.lines('replayed', NOW + 130_000)).toEqual(['replayed']);
  });

  it('a message after a flooded minute brings the count first, then its own line', () => {
    const log = new IgnoredMessageLog(2);
    for (let i = 0; i < 5; i++) log.lines(`bad MAC ${i}`, NOW);
    const lines = log.lines('for another event', NOW + 61_000);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^LAN: 3 more message\(s\) ignored/);
    expect(lines[1]).toBe('for another event');
  });
});

describe('discovery and catch-up', () => {
  it('a hello from a kiosk it never heard adds it to the same peer list configured peers are in, and is answered', () => {
    const b = kiosk('scn_b', { peers: [B_ADDR] });
    expect(b.destinations(NOW)).toEqual([B_ADDR]);
    const handling = b.receive(kiosk('scn_a').build('hello', NOW)!, A_ADDR, NOW);
    expect(b.destinations(NOW)).toEqual([B_ADDR, A_ADDR]);
    // A hello back and a catch-up request, both to the new peer only.
    expect(
      handling.send.map((s) => [s.to, decodeMessage(s.bytes).ok && (decodeMessage(s.bytes) as { message: LanMessage }).message.type]),
    ).toEqual([
      [A_ADDR, 'hello'],
      [A_ADDR, 'catchup'],
    ]);
    // Heard recently: no answer to its next hello.
    expect(b.receive(kiosk('scn_a').build('hello', NOW + 5000)!, A_ADDR, NOW + 5000).send).toEqual([]);
  });

  it('a discovered peer silent past the timeout is dropped; a configured one stays', () => {
    const b = kiosk('scn_b', { peers: [B_ADDR], peerTimeoutMs: 20_000 });
    b.receive(kiosk('scn_a').build('hello', NOW)!, A_ADDR, NOW);
    expect(b.destinations(NOW + 20_000)).toHaveLength(2);
    expect(b.destinations(NOW + 20_001)).toEqual([B_ADDR]);
  });

  it('a peer heard again after a silence is asked from a minute before it was last heard', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b', { peerTimeoutMs: 20_000 });
    b.receive(a.build('hello', NOW)!, A_ADDR, NOW);
    const later = NOW + 10 * 60_000;
    const ask = b.receive(a.build('hello', later)!, A_ADDR, later).send.find((s) => s.bytes.includes('"catchup"'));
    const decoded = decodeMessage(ask!.bytes);
    expect(decoded.ok && decoded.message.since).toBe(new Date(NOW - 60_000).toISOString());
  });

  it('a catch-up request is handed to the kiosk to answer, at most once per sender in two seconds', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const since = '2026-07-18T20:00:00.000Z';
    expect(b.receive(a.build('catchup', NOW, { since })!, A_ADDR, NOW).catchupFrom).toEqual({ to: A_ADDR, since });
    expect(b.receive(a.build('catchup', NOW + 1000, { since })!, A_ADDR, NOW + 1000).catchupFrom).toBeUndefined();
    expect(b.receive(a.build('catchup', NOW + 2000, { since })!, A_ADDR, NOW + 2000).catchupFrom).toEqual({ to: A_ADDR, since });
  });

  it('a catch-up answer holds the newest admissions, bounded, in small datagrams the asker learns from', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    const own = Array.from({ length: CATCHUP_LIMIT + 50 }, (_, i) => admission(`T${i}`, new Date(NOW - i * 1000).toISOString()));
    const replies = a.catchupReplies(own, NOW);
    expect(replies).toHaveLength(Math.ceil(CATCHUP_LIMIT / ADMISSIONS_PER_DATAGRAM));
    for (const reply of replies) expect(reply.length).toBeLessThan(1400); // no IP fragmentation on Ethernet
    let learned = 0;
    for (const reply of replies) learned += b.receive(reply, A_ADDR, NOW).learned;
    expect(learned).toBe(CATCHUP_LIMIT);
    expect(b.admissionOf('T0')).toBeDefined();
    expect(b.admissionOf(`T${CATCHUP_LIMIT}`)).toBeUndefined(); // the oldest beyond the bound
  });
});

describe('annulments', () => {
  const at = (minutes: number): string => new Date(NOW + minutes * 60_000).toISOString();

  it('an annul message forgets the admissions made up to it, and an admission made after it stands', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0)), admission('T2', at(0))] })!, A_ADDR, NOW);
    const handling = b.receive(a.build('annul', NOW + 1, { adm: [admission('T1', at(1)), admission('T9', at(1))] })!, A_ADDR, NOW + 1);
    expect(handling).toMatchObject({ forgotten: 1, learned: 0 });
    expect(handling.log).toBeUndefined();
    expect(b.admissionOf('T1')).toBeUndefined();
    expect(b.admissionOf('T2')).toBeDefined();
    // Admitted again after the annulment (at A or anywhere): a new admission, known again.
    expect(b.receive(a.build('admit', NOW + 2, { adm: [admission('T1', at(2))] })!, A_ADDR, NOW + 2).learned).toBe(1);
  });

  it('an admission heard late (a catch-up from another peer) but made before a known annulment is not learned', () => {
    const a = kiosk('scn_a');
    const c = kiosk('scn_c');
    const b = kiosk('scn_b');
    b.receive(a.build('annul', NOW, { adm: [admission('T1', at(5))] })!, A_ADDR, NOW);
    expect(b.receive(c.build('catchup_reply', NOW + 1, { adm: [admission('T1', at(1))] })!, B_ADDR, NOW + 1).learned).toBe(0);
    expect(b.admissionOf('T1')).toBeUndefined();
  });

  it('a forged annulment (another key) forgets nothing', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(a.build('admit', NOW, { adm: [admission('T1', at(0))] })!, A_ADDR, NOW);
    const forger = kiosk('scn_x', {}, Buffer.alloc(32, 9));
    const handling = b.receive(forger.build('annul', NOW + 1, { adm: [admission('T1', at(1))] })!, B_ADDR, NOW + 1);
    expect(handling.log).toMatch(/ignored: bad MAC/);
    expect(b.admissionOf('T1')).toBeDefined();
  });

  it('a catch-up answer ends with the answering kiosk’s annulments, which the asker applies', () => {
    const a = kiosk('scn_a');
    const b = kiosk('scn_b');
    b.receive(kiosk('scn_c').build('admit', NOW, { adm: [admission('T7', at(0))] })!, B_ADDR, NOW);
    const replies = a.catchupReplies([admission('T1', at(0))], NOW + 1, [admission('T7', at(1))]);
    expect(replies.map((reply) => (decodeMessage(reply) as { message: LanMessage }).message.type)).toEqual(['catchup_reply', 'annul']);
    for (const reply of replies) b.receive(reply, A_ADDR, NOW + 1);
    expect(b.admissionOf('T1')).toBeDefined();
    expect(b.admissionOf('T7')).toBeUndefined();
  });
});

describe('the offline check', () => {
  it('seen_by_peer comes right after seen_here and refuses as admitted_at_other_gate', () => {
    expect(OFFLINE_CHECKS.indexOf('seen_by_peer')).toBe(OFFLINE_CHECKS.indexOf('seen_here') + 1);
    expect(CHECK_REASON.seen_by_peer).toBe('admitted_at_other_gate');
  });
});
