/**
 * An in-memory KioskApi for the dev page and screenshot checks ONLY (loaded by
 * dev/index.html, never by the production index.html). It does not verify
 * signatures; it reads the payload to have names to show. `window.fakeKiosk`
 * lets a person or a script set the situation (offline, queue, …).
 */
import type {
  KioskApi,
  KioskState,
  LanesRequest,
  LanguageCode,
  LeaveKioskModeResult,
  ScanResult,
  SetLanguageResult,
  RemoveStaffPinResult,
  SetStaffPinResult,
  SetupSummary,
  StaffUnlockResult,
  LogCheckResult,
  StatusLookupResult,
  TicketSearchOutcome,
  ManualCheckInOutcome,
  Verdict,
  GiveHandoutResult,
  VerdictDetailsResult,
} from '../kiosk-bridge-types.js';
import { KIOSK_READY_EVENT } from '../kiosk-bridge.js';
import { SETUP_PREFIX } from '../../protocol/setup-code.js';
import { TICKET_PREFIX } from '../../protocol/ticket-code.js';

interface Payload {
  tid?: string;
  eid?: string;
  hn?: string;
  tt?: string;
  ev?: { name?: string };
  event_name?: string;
  gate_id?: string;
  iss?: string;
  expires_at?: string;
}

function readPayload(code: string): Payload | null {
  const segment = code.split('.')[1];
  if (!segment) return null;
  try {
    const json = atob(segment.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Payload;
  } catch {
    return null;
  }
}

function encodeSegment(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export class FakeKiosk implements KioskApi {
  private listeners = new Set<(state: KioskState) => void>();
  private admitted = new Map<string, string>();
  /** When set, the next ticket scan answers this verdict instead of the usual rules. */
  forcedVerdict: Verdict | null = null;
  state: KioskState = {
    enrolled: false,
    authorised: true,
    scanner: { id: '5f0c8a52-7d1e-4e43-9a55-0d3a9b1c2e7f', name: 'Door kiosk 1' },
    issuer: null,
    event: null,
    gate_id: null,
    api_key_id: null,
    key_expires_at: null,
    connection: 'online',
    offline_policy: 'optimistic',
    pending_scans: 0,
    last_verdicts: [],
    double_admissions: [],
    re_enroll_pending: null,
    read_again: null,
    staff_code_ignored: null,
    calibration: null,
    calibration_to_confirm: null,
    hid_scanner: null,
    storage: null,
    staff: {
      pin_set: false,
      pin_needed: false,
      unlocked: true,
      unlocked_until: null,
      locked_until: null,
      attempts_left: 5,
      can_leave_kiosk_mode: false,
      role: 'technician',
      person: null,
      people: [],
    },
    language: { primary: 'en', secondary: null },
    direction: 'entry',
    door: null,
    offline_exposure: [],
  };

  async scan(text: string): Promise<ScanResult> {
    if (text.startsWith(SETUP_PREFIX)) return this.scanSetup(text);
    if (!this.state.enrolled) return { type: 'not_enrolled', message: 'scan the setup code first' };
    if (!this.state.authorised) return { type: 'scanner_unauthorized', message: 'scanner no longer authorised — re-enroll' };
    const verdict = this.forcedVerdict ?? this.decide(text);
    this.forcedVerdict = null;
    this.change({
      last_verdicts: [verdict, ...this.state.last_verdicts].slice(0, 20),
      pending_scans: this.state.pending_scans + (verdict.offline ? 1 : 0),
    });
    return { type: 'verdict', verdict };
  }

  async confirmReEnroll(): Promise<ScanResult> {
    const pending = this.state.re_enroll_pending;
    if (!pending) return { type: 'nothing_to_confirm' };
    return this.enroll(pending);
  }

  async cancelReEnroll(): Promise<KioskState> {
    this.change({ re_enroll_pending: null });
    return this.state;
  }

  /** The demo has no issuer to search (docs/kiosk.md "Finding a ticket" is online only). */
  async searchTickets(): Promise<TicketSearchOutcome> {
    return { type: 'offline', message: 'the demo page has no issuer' };
  }

  async manualCheckIn(): Promise<ManualCheckInOutcome> {
    return { type: 'offline', message: 'the demo page has no issuer' };
  }

  async lookupStatus(codeOrTid: string): Promise<StatusLookupResult> {
    const tid = codeOrTid.startsWith(TICKET_PREFIX) ? readPayload(codeOrTid)?.tid : codeOrTid;
    if (!tid) return { type: 'not_a_ticket' };
    if (this.state.connection === 'offline') return { type: 'unavailable', message: 'offline' };
    const payload = codeOrTid.startsWith(TICKET_PREFIX) ? readPayload(codeOrTid) : null;
    const usedAt = this.admitted.get(tid);
    const status = {
      tid,
      eid: this.state.event?.eid ?? '',
      issued_at: '2026-05-02T10:15:00Z',
      checked_in_at: usedAt ?? null,
      status: usedAt ? ('checked_in' as const) : ('valid' as const),
    };
    return {
      type: 'status',
      status: { ...status, ...(payload?.hn ? { holder_name: payload.hn } : {}), ...(payload?.tt ? { ticket_type: payload.tt } : {}) },
    };
  }

  async getState(): Promise<KioskState> {
    return this.state;
  }

  async setScannerName(name: string): Promise<KioskState> {
    this.change({ scanner: { ...this.state.scanner, name } });
    return this.state;
  }

  async calibrate(): Promise<KioskState> {
    this.change({ calibration_to_confirm: null });
    return this.state;
  }

  async resetCalibration(): Promise<KioskState> {
    this.change({ calibration: null });
    return this.state;
  }

  /** The dev page's staff PIN is 1234 once set; no lockout. */
  async unlockStaff(pin: string): Promise<StaffUnlockResult> {
    if (!this.state.staff.pin_set) return { type: 'no_pin' };
    if (pin !== '1234') return { type: 'wrong_pin', attempts_left: 4, locked_until: null };
    this.change({ staff: { ...this.state.staff, unlocked: true } });
    return {
      type: 'unlocked',
      unlocked_until: new Date(Date.now() + 120_000).toISOString(),
      person: { staff_id: 'kiosk-pin', name: 'Kiosk PIN', role: 'technician', via: 'kiosk_pin' },
    };
  }

  async verifyLog(): Promise<LogCheckResult> {
    return { type: 'log_check', ok: true, records: 42, head: { position: 42, hash: 'ab'.repeat(32) }, broken: null };
  }

  /** docs/kiosk.md "Attention notes": Done ends the hold. */
  async attentionDone(): Promise<KioskState> {
    this.change({ attention_hold: null });
    return this.state;
  }

  /** docs/kiosk.md "Attention notes": a supervisor's override ends the hold too (the fake records nothing). */
  async overrideAttention(): Promise<KioskState> {
    this.change({ attention_hold: null });
    return this.state;
  }

  /** docs/kiosk.md "ID checks": the fake never asks for one; an answer finds nothing waiting. */
  async confirmIdCheck(): Promise<ScanResult> {
    this.change({ id_check_prompt: null });
    return { type: 'nothing_to_confirm' };
  }

  async denyIdCheck(): Promise<ScanResult> {
    return this.confirmIdCheck();
  }

  async overrideIdCheck(): Promise<ScanResult> {
    return this.confirmIdCheck();
  }

  /** docs/kiosk.md "Party tickets": the fake never asks how many; a pick finds nothing waiting. */
  async chooseParty(): Promise<ScanResult> {
    this.change({ party_prompt: null });
    return { type: 'nothing_to_confirm' };
  }

  async cancelParty(): Promise<ScanResult> {
    return this.chooseParty();
  }

  /** docs/kiosk.md "Handouts": the fake records nothing; a tap on a listed item with some left is given. */
  async giveHandout(decidedAt: string, item: string): Promise<GiveHandoutResult> {
    const verdict = this.state.last_verdicts.find((v) => v.decided_at === decidedAt);
    if (!verdict || verdict.kind !== 'admit' || verdict.handouts === undefined) return { type: 'no_such_verdict', decided_at: decidedAt };
    const handouts = verdict.handouts.map((handout) =>
      handout.item === item
        ? {
            ...handout,
            given: [...handout.given, { hid: `fake-${handout.given.length}`, at: new Date().toISOString(), gate: null, scanner: 'Fake' }],
          }
        : handout,
    );
    return { type: 'handout_given', decided_at: decidedAt, item, offline: false, handouts };
  }

  /** docs/kiosk.md "Verdict details": the fake's verdicts, with their codes. */
  async verdictDetails(decidedAt: string): Promise<VerdictDetailsResult> {
    const verdict = this.state.last_verdicts.find((v) => v.decided_at === decidedAt);
    if (!verdict) return { type: 'no_such_verdict', decided_at: decidedAt };
    return {
      type: 'verdict_details',
      details: {
        decided_at: verdict.decided_at,
        kind: verdict.kind,
        reason: verdict.kind === 'refuse' ? verdict.reason : null,
        decided_by: verdict.decided_by,
        offline: verdict.offline,
        lane: verdict.lane ?? null,
        tid: verdict.ticket?.tid ?? null,
        eid: verdict.ticket?.eid ?? null,
        ticket_type: verdict.ticket?.ticket_type ?? null,
        first_used: null,
        rule: null,
        detail: verdict.kind === 'refuse' ? (verdict.detail ?? null) : null,
        revocations_synced_at: null,
        attention: verdict.kind === 'admit' ? (verdict.attention ?? null) : null,
        override: null,
      },
    };
  }

  async lockStaff(): Promise<KioskState> {
    this.change({ staff: { ...this.state.staff, unlocked: !this.state.staff.pin_set } });
    return this.state;
  }

  async removeStaffPin(staffId: string): Promise<RemoveStaffPinResult> {
    return { type: 'no_such_person', staff_id: staffId };
  }

  async setStaffPin(): Promise<SetStaffPinResult> {
    this.change({ staff: { ...this.state.staff, pin_set: true, pin_needed: false, unlocked: true } });
    return { type: 'pin_set' };
  }

  async setLanguage(primary: LanguageCode, secondary: LanguageCode | null): Promise<SetLanguageResult> {
    this.change({ language: { primary, secondary } });
    return { type: 'language_set', language: this.state.language };
  }

  /** docs/kiosk.md "Several scanners": the dev page maps at once, the first lane taking the window's scans. */
  async configureLanes(request: LanesRequest): Promise<KioskState> {
    if (request.action !== 'map') {
      this.change({ lanes: null });
      return this.state;
    }
    const lanes = request.lanes.map((lane, index) => ({
      id: `lane-${index + 1}`,
      label: lane.label,
      direction: lane.direction ?? this.state.direction,
      own_direction: lane.direction !== null,
      scanner: `Scanner ${index + 1}`,
      connected: true,
    }));
    this.change({ lanes: { source: 'setup', lanes, window_lane: 'lane-1', mapping: null } });
    return this.state;
  }

  async setDirection(direction: 'entry' | 'exit'): Promise<KioskState> {
    this.change({ direction });
    return this.state;
  }

  async annul(tid: string): Promise<{ type: 'annulled'; tid: string }> {
    return { type: 'annulled', tid };
  }

  async leaveKioskMode(): Promise<LeaveKioskModeResult> {
    return { type: 'not_in_kiosk_mode', message: 'the dev page has no kiosk mode' };
  }

  onStateChange(listener: (state: KioskState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** For the dev page: set any part of the state, as the real core would after a change. */
  change(patch: Partial<KioskState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }

  /** For the dev page: a ticket code with a made-up signature. */
  makeTicketCode(fields: { tid: string; hn?: string; tt?: string; eid?: string; event?: string }): string {
    const payload = {
      v: 1,
      iss: 'https://tickets.example.org',
      kid: '0a1b2c3d',
      tid: fields.tid,
      eid: fields.eid ?? this.state.event?.eid ?? 'EVT1',
      ev: { name: fields.event ?? 'Summer Night Open Air', date: '2026-07-18T19:30:00Z', venue: 'Stadtpark' },
      hn: fields.hn,
      tt: fields.tt,
      iat: 1_780_000_000,
      exp: 1_790_000_000,
    };
    return `${TICKET_PREFIX}${encodeSegment(payload)}.${encodeSegment('not-a-real-signature-but-long-enough-for-the-shape')}`;
  }

  makeSetupCode(fields: { event_name: string; gate_id?: string; eid?: string }): string {
    return `${SETUP_PREFIX}${encodeSegment({ v: 1, iss: 'https://tickets.example.org', enroll_url: 'https://tickets.example.org/api/v1/scanners/enroll', token: 'dev-token-0123456789abcdef', eid: fields.eid ?? 'EVT1', event_name: fields.event_name, gate_id: fields.gate_id, expires_at: '2026-07-19T06:00:00Z' })}`;
  }

  private scanSetup(text: string): ScanResult {
    const setup = readPayload(text);
    if (!setup?.eid) return { type: 'enroll_failed', code: 'not_a_setup_code', message: 'not a setup code' };
    if (setup.event_name === 'Expired') return { type: 'enroll_failed', code: 'token_invalid', message: 'token used or expired' };
    const summary: SetupSummary = {
      iss: setup.iss ?? '',
      eid: setup.eid,
      event_name: setup.event_name ?? null,
      gate_id: setup.gate_id ?? null,
      expires_at: setup.expires_at ?? '',
    };
    if (this.state.enrolled) {
      this.change({ re_enroll_pending: summary });
      return {
        type: 'confirm_re_enroll',
        current: { issuer_name: this.state.issuer?.name ?? '', event_name: this.state.event?.name ?? '', gate_id: this.state.gate_id },
        proposed: summary,
        pending_scans: this.state.pending_scans,
      };
    }
    return this.enroll(summary);
  }

  private enroll(summary: SetupSummary): ScanResult {
    const name = summary.event_name ?? 'Event';
    this.change({
      enrolled: true,
      authorised: true,
      issuer: { iss: summary.iss, name: 'Example Tickets' },
      event: { eid: summary.eid, name, date: '2026-07-18T19:30:00Z' },
      gate_id: summary.gate_id,
      api_key_id: 'key_dev',
      re_enroll_pending: null,
    });
    return {
      type: 'enrolled',
      issuer_name: 'Example Tickets',
      event_name: name,
      event_date: '2026-07-18T19:30:00Z',
      gate_id: summary.gate_id,
    };
  }

  private decide(text: string): Verdict {
    const now = new Date().toISOString();
    const offline = this.state.connection === 'offline';
    const payload = text.startsWith(TICKET_PREFIX) ? readPayload(text) : null;
    if (!payload?.tid) return { kind: 'refuse', reason: 'not_a_ticket', decided_at: now, offline, decided_by: 'decode' };
    const ticket = {
      tid: payload.tid,
      eid: payload.eid ?? '',
      ...(payload.hn ? { holder_name: payload.hn } : {}),
      ...(payload.tt ? { ticket_type: payload.tt } : {}),
      ...(payload.ev?.name ? { event_name: payload.ev.name } : {}),
    };
    if (payload.eid !== this.state.event?.eid)
      return { kind: 'refuse', reason: 'wrong_event', decided_at: now, offline, decided_by: 'event', ticket };
    const usedAt = this.admitted.get(payload.tid);
    if (usedAt)
      return {
        kind: 'refuse',
        reason: 'already_used',
        decided_at: now,
        offline,
        decided_by: offline ? 'seen_here' : 'issuer',
        ticket,
        first_used_at: usedAt,
      };
    this.admitted.set(payload.tid, now);
    return { kind: 'admit', decided_at: now, offline, decided_by: offline ? 'offline_policy' : 'issuer', ticket };
  }
}

declare global {
  interface Window {
    fakeKiosk?: FakeKiosk;
  }
}

const fake = new FakeKiosk();
window.fakeKiosk = fake;
window.kiosk = fake;
window.dispatchEvent(new Event(KIOSK_READY_EVENT));
