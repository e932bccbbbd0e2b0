/**
 * Check-in rules, one function online and offline (docs/protocol.md "Check-in rules", docs/kiosk.md
 * "Check-in rules offline"): the SAME cases through the REAL issuer (HTTP on a loopback port, a real SQLite
 * file, a scanner key of each gate) and through KioskCore kiosks of each gate that got the rules from the
 * heartbeat and then lost the issuer (stopped). Both must give identical outcomes.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/check-in-rules.test.ts
 */
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseRules, type CheckInRules } from '../../../protocol/check-in-rules.js';
import type { DoorCheckInResponse } from '../../../protocol/door.js';
import type { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { saveCheckInRules } from '../../../issuer/store/check-in-rules.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import type { RealIssuer } from './helpers/real-issuer.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

const HOUR = 3600_000;
/** `HH:MM` in UTC, `hours` from now (wrapping past midnight: the rules' windows may cross it). */
const utcTime = (hours: number): string => new Date(Date.now() + hours * HOUR).toISOString().slice(11, 16);

/** Windows around now in UTC: open now, opening in an hour, closed an hour ago. */
function rulesFile(): CheckInRules {
  return parseRules({
    version: 1,
    time_zone: 'UTC',
    rules: [
      { name: 'VIP entrance', gates: ['VIP'], only_ticket_types: ['VIP'], message: { en: 'VIP entrance only', de: 'Nur VIP-Eingang' } },
      { name: 'Crew gate', ticket_types: ['Crew'], only_gates: ['C'] },
      { name: 'Early entry', ticket_types: ['Early'], window: { from: utcTime(-1), to: utcTime(1) } },
      { name: 'Late doors', ticket_types: ['Late'], window: { from: utcTime(1), to: utcTime(3) } },
      { name: 'Afternoon only', ticket_types: ['Gone'], window: { from: utcTime(-4), to: utcTime(-1) } },
      { name: 'Day pass', ticket_types: ['Day'], max_entries_per_day: 1 },
    ],
  });
}

/**
 * Entries are counted per calendar day (UTC here): a test that ran across midnight would see its first
 * entry on another day. Within a minute of midnight, wait until just after it (and say so).
 */
async function clearOfMidnight(): Promise<void> {
  const now = Date.now();
  const untilMidnight = 86_400_000 - (now % 86_400_000);
  if (untilMidnight > 60_000) return;
  console.log(`waiting ${Math.ceil(untilMidnight / 1000) + 1} s for UTC midnight to pass: entries are counted per day`);
  await new Promise((resolve) => setTimeout(resolve, untilMidnight + 1_000));
}

async function setRules(rules: CheckInRules): Promise<void> {
  await saveCheckInRules(rig.issuer.fx.sql, rig.issuer.event.eid, rules, new Date().toISOString());
}

function ticketOfType(ticketType: string): { tid: string; code: string } {
  const ticket = rig.issuer.fx.issueTicket(rig.issuer.event.eid, { ticketType });
  return { tid: ticket.tid, code: ticket.qr };
}

/** A kiosk of `gate`, enrolled through a real setup code, with the rules of its first heartbeat. */
async function gateKiosk(gate: string): Promise<KioskCore> {
  const keys = rig.kiosks.keychain(`gate-${gate}`);
  rig.kiosks.track(keys, rig.issuer.url);
  const core = rig.kiosks.open(keys, { db: `gate-${gate}.db`, heartbeatIntervalMs: 0, now: rig.clock });
  await enrollWith(core, rig.issuer.setupCode({ gateId: gate }).code);
  await core.heartbeat();
  return core;
}

/** The issuer's answer to an explicit entry (or exit) sent by a scanner key of `gate`, as a comparable outcome. */
async function issuerOutcome(gate: string, tid: string, action: 'entry' | 'exit' = 'entry'): Promise<string> {
  const scanner = scannerKeys.get(gate) ?? rig.issuer.fx.enrollScanner(rig.issuer.event.eid, { gateId: gate });
  scannerKeys.set(gate, scanner);
  const response = await fetch(`${rig.issuer.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tid,
      eid: rig.issuer.event.eid,
      scanned_at: new Date(rig.clock()).toISOString(),
      scanner_id: scanner.scannerId,
      gate_id: gate,
      idempotency_key: randomUUID(),
      action,
    }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as DoorCheckInResponse;
  if (body.status === 'valid') return 'admit';
  if (body.status === 'exited') return 'exit';
  return body.rule ? `refuse:${body.status}:${body.rule.code}#${body.rule.rule} "${body.rule.message}"` : `refuse:${body.status}`;
}
let scannerKeys = new Map<string, ReturnType<RealIssuer['fx']['enrollScanner']>>();
beforeEach(() => {
  scannerKeys = new Map();
});

/** The kiosk's verdict, in the same terms as issuerOutcome. */
async function kioskOutcome(core: KioskCore, code: string): Promise<string> {
  const verdict = verdictOf(await core.scan(code));
  rig.skew += 7_000;
  if (verdict.kind !== 'refuse') return verdict.kind;
  const rule = verdict.rule;
  return rule ? `refuse:${verdict.reason}:${rule.code}#${rule.rule} "${rule.message}"` : `refuse:${verdict.reason}`;
}

/**
 * The late window (opening in an hour) as docs/protocol.md "Check-in rules" words it: "Opens at" its start,
 * except between 23:00 and 24:00 UTC, when it runs 00:MM-02:MM, a same-day window already over today: "Closed since".
 */
function lateWindowRefusal(rules: CheckInRules): string {
  const { from, to } = rules.rules[3]!.window!;
  return from < to && utcTime(0) >= to ? `closed#3 "Closed since ${to}"` : `not_open_yet#3 "Opens at ${from}"`;
}

/** ticket type, gate, the outcome both must give (the late window's times from the rules file). */
const cases = (rules: CheckInRules): readonly [string, string, string][] => [
  ['VIP', 'VIP', 'admit'],
  ['Standard', 'VIP', 'refuse:rule_refused:ticket_type_not_allowed#0 "VIP entrance only"'],
  ['VIP', 'A', 'admit'],
  ['Standard', 'A', 'admit'],
  ['Crew', 'C', 'admit'],
  ['Crew', 'A', 'refuse:rule_refused:wrong_gate#1 "Use gate C"'],
  ['Crew', 'VIP', 'refuse:rule_refused:ticket_type_not_allowed#0 "VIP entrance only"'],
  ['Early', 'A', 'admit'],
  ['Late', 'A', `refuse:rule_refused:${lateWindowRefusal(rules)}`],
  ['Day', 'A', 'admit'],
];

describe('the same cases through the issuer and through an offline kiosk', () => {
  it('give identical outcomes: gates, ticket types, time windows', async () => {
    const rules = rulesFile();
    await setRules(rules);
    const CASES = cases(rules);
    const gates = [...new Set(CASES.map(([, gate]) => gate))];
    const cores = new Map<string, KioskCore>();
    for (const gate of gates) cores.set(gate, await gateKiosk(gate));

    // Online: the issuer judges (a fresh ticket per case, so neither path sees the other's admission).
    const online: string[] = [];
    for (const [type, gate] of CASES) online.push(await issuerOutcome(gate, ticketOfType(type).tid));

    // Offline: the kiosks judge alone, with the rules of their last heartbeat.
    await rig.issuer.stop();
    const offline: string[] = [];
    const afternoon: string[] = [];
    for (const [type, gate] of CASES) {
      offline.push(await kioskOutcome(cores.get(gate)!, ticketOfType(type).code));
    }
    afternoon.push(await kioskOutcome(cores.get('A')!, ticketOfType('Gone').code));

    expect(offline).toEqual(online);
    expect(online).toEqual(CASES.map(([, , expected]) => expected));

    // A window that closed an hour ago: refused on both sides, with the same words.
    await rig.issuer.start();
    const gone = await issuerOutcome('A', ticketOfType('Gone').tid);
    expect(gone).toMatch(/^refuse:rule_refused:(closed|not_open_yet)#4 /);
    expect(afternoon).toEqual([gone]);
  });

  it('entries per day on a re-entry event: the second entry of the day is refused by both', async () => {
    await clearOfMidnight();
    rig.issuer.fx.db.prepare(`UPDATE events SET entry_policy = 'reentry' WHERE eid = ?`).run(rig.issuer.event.eid);
    await setRules(rulesFile());
    const kiosk = await gateKiosk('A');

    // Issuer: in, out, in again → the day's one entry is used.
    const atIssuer = ticketOfType('Day');
    expect(await issuerOutcome('A', atIssuer.tid)).toBe('admit');
    expect(await issuerOutcome('A', atIssuer.tid, 'exit')).toBe('exit');
    const online = await issuerOutcome('A', atIssuer.tid);

    // Kiosk: admitted by this kiosk online, let out at another gate, then back at this kiosk while the issuer is down.
    const atKiosk = ticketOfType('Day');
    expect(await kioskOutcome(kiosk, atKiosk.code)).toBe('admit');
    expect(await issuerOutcome('X', atKiosk.tid, 'exit')).toBe('exit');
    await rig.issuer.stop();
    const offline = await kioskOutcome(kiosk, atKiosk.code);

    expect(online).toBe('refuse:rule_refused:daily_limit#5 "Entry limit reached: 1 per day"');
    expect(offline).toBe(online);
  }, 120_000); // up to a minute's wait at midnight (clearOfMidnight), beyond the usual 30 s

  it('a rules change reaches the kiosk with the next heartbeat; cleared rules admit again on both sides', async () => {
    const kiosk = await gateKiosk('VIP');
    await setRules(rulesFile());
    await kiosk.heartbeat();
    const standard = ticketOfType('Standard');
    await rig.issuer.stop();
    expect(await kioskOutcome(kiosk, standard.code)).toBe('refuse:rule_refused:ticket_type_not_allowed#0 "VIP entrance only"');

    await rig.issuer.start();
    await setRules(parseRules({ rules: [] }));
    await kiosk.heartbeat();
    await rig.issuer.stop();
    expect(await kioskOutcome(kiosk, ticketOfType('Standard').code)).toBe('admit');
  });

  it('a spec-only scanner (no action) gets the spec answers: the rules do not apply to it', async () => {
    await setRules(rulesFile());
    const scanner = rig.issuer.fx.enrollScanner(rig.issuer.event.eid, { gateId: 'VIP' });
    const ticket = ticketOfType('Standard');
    const response = await fetch(`${rig.issuer.url}/api/v1/tickets/check-in`, {
      method: 'POST',
      headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tid: ticket.tid,
        eid: rig.issuer.event.eid,
        scanned_at: new Date().toISOString(),
        scanner_id: scanner.scannerId,
        gate_id: 'VIP',
        idempotency_key: randomUUID(),
      }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body['status']).toBe('valid');
    expect(body).not.toHaveProperty('rule');
  });
});
