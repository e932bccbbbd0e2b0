/**
 * The LAN's log budgets (docs/kiosk.md "Kiosks on one LAN", its log budgets): the lines of ignored messages and of
 * what was learned from peers, limited per minute, so a flood on a hostile LAN cannot fill the disk or bury the
 * lines that matter. Pure: the caller passes "now".
 */
import type { PeerExit, PeerHandout } from './lan-moves.js';
import type { PeerAddress, PeerAdmission } from './lan-wire.js';

/** Ignored messages logged one by one per minute at most, per kind; the rest are counted in one line (docs/kiosk.md). */
export const IGNORED_LINES_PER_MINUTE = 10;
/** Admissions learned from peers logged one by one per minute at most; the rest are counted in one line. */
export const LEARNED_LINES_PER_MINUTE = 20;

/**
 * Which log budget an ignored message's line counts against (docs/kiosk.md "Kiosks on one LAN"): a flood of
 * forged datagrams must not use up the lines that say a real kiosk's message was replayed or out of time.
 */
export type IgnoredKind = 'forged' | 'revoked' | 'replayed' | 'malformed';

/** What a datagram's handling has to log (lan-peers.ts Handling). */
export interface LoggedHandling {
  log?: string;
  /** The budget `log` counts against. */
  logKind?: IgnoredKind;
  /** Admissions learned from the datagram, each logged (rate-limited) with the peer that told it. */
  learnedAdmissions?: PeerAdmission[];
  /** Exits and handouts learned, logged against the same budget. */
  learnedExits?: PeerExit[];
  learnedHandouts?: PeerHandout[];
}

/**
 * The log lines of ignored messages, limited: a flood of forged or replayed datagrams (a hostile LAN, or a
 * kiosk enrolled elsewhere shouting) must not fill the disk or bury the lines that matter. The first
 * IGNORED_LINES_PER_MINUTE of each minute are written as they come; the rest are counted and said in one
 * line once the minute is over (at the next ignored message or the next `due`, whichever comes first).
 */
export class IgnoredMessageLog {
  private minuteStart = Number.NEGATIVE_INFINITY;
  private written = 0;
  private unwritten = 0;

  /** `summary`: the line for `n` lines not written one by one in a minute. */
  constructor(
    private readonly perMinute = IGNORED_LINES_PER_MINUTE,
    private readonly summary: (n: number) => string = (n) =>
      `LAN: ${n} more message(s) ignored in the last minute, not logged one by one (forged, replayed or for another event).`,
  ) {}

  /** The lines to write now for one ignored message: the last minute's count (if any), then the line itself (if allowed). */
  lines(line: string, nowMs: number): string[] {
    const out = this.due(nowMs);
    if (this.written < this.perMinute) {
      this.written++;
      out.push(line);
    } else {
      this.unwritten++;
    }
    return out;
  }

  /** The count of a minute that is over, once; called on a timer too, so a flood that stopped is still told. */
  due(nowMs: number): string[] {
    if (nowMs - this.minuteStart < 60_000) return [];
    const out = this.unwritten > 0 ? [this.summary(this.unwritten)] : [];
    this.minuteStart = nowMs;
    this.written = 0;
    this.unwritten = 0;
    return out;
  }
}

/**
 * The LAN's log budgets (docs/kiosk.md "Kiosks on one LAN"): one per kind of ignored message, so forged datagrams
 * cannot bury a replayed or out-of-time one, and one for the admissions learned from peers.
 */
export class LanLogBudgets {
  private readonly ignored: Record<IgnoredKind, IgnoredMessageLog> = {
    forged: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'with a bad certificate or signature (forged)')),
    revoked: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'from revoked kiosks')),
    replayed: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'replayed or out of time')),
    malformed: new IgnoredMessageLog(IGNORED_LINES_PER_MINUTE, (n) => summaryOf(n, 'malformed or for another event')),
  };
  private readonly learned = new IgnoredMessageLog(
    LEARNED_LINES_PER_MINUTE,
    (n) => `LAN: ${n} more admission(s) learned from peers in the last minute, not logged one by one.`,
  );

  /** Exits and handouts learned: a budget of their own, so a busy exit cannot hide the admissions learned. */
  private readonly learnedMoves = new IgnoredMessageLog(
    LEARNED_LINES_PER_MINUTE,
    (n) => `LAN: ${n} more exit(s) or handout(s) learned from peers in the last minute, not logged one by one.`,
  );

  /** The lines to write now for one datagram's handling. */
  lines<H extends LoggedHandling>(handling: H, from: PeerAddress, nowMs: number): string[] {
    const out: string[] = [];
    if (handling.log !== undefined) out.push(...this.ignored[handling.logKind ?? 'malformed'].lines(handling.log, nowMs));
    for (const admission of handling.learnedAdmissions ?? []) out.push(...this.learned.lines(learnedLine(admission, from), nowMs));
    const moves = [
      ...(handling.learnedExits ?? []).map((exit) => learnedExitLine(exit, from)),
      ...(handling.learnedHandouts ?? []).map((handout) => learnedHandoutLine(handout, from)),
    ];
    for (const line of moves) out.push(...this.learnedMoves.lines(line, nowMs));
    return out;
  }

  /** The counts of minutes that are over (called on a timer too). */
  due(nowMs: number): string[] {
    return [...Object.values(this.ignored).flatMap((log) => log.due(nowMs)), ...this.learned.due(nowMs), ...this.learnedMoves.due(nowMs)];
  }
}

function summaryOf(n: number, what: string): string {
  return `LAN: ${n} more message(s) ${what} ignored in the last minute, not logged one by one.`;
}

/** One admission learned from a peer, for the log: which ticket, when, where, and which kiosk said so. */
export function learnedLine(admission: PeerAdmission, from: PeerAddress): string {
  const gate = admission.gate === null ? 'no gate' : `gate ${admission.gate}`;
  const how = admission.offline ? 'offline' : 'online';
  return `LAN: learned admission of ticket ${admission.tid} at ${gate}, ${admission.admitted_at} (${how}), from scanner ${admission.scanner_id} (${from.address}:${from.port}).`;
}

const gateText = (gate: string | null): string => (gate === null ? 'no gate' : `gate ${gate}`);

/** One exit learned from a peer, for the log: which ticket, how many people, when, where, and which kiosk said so. */
export function learnedExitLine(exit: PeerExit, from: PeerAddress): string {
  const people = exit.people === 1 ? '1 person' : `${exit.people} people`;
  return `LAN: learned exit of ticket ${exit.tid} (${people}) at ${gateText(exit.gate)}, ${exit.exited_at} (${exit.offline ? 'offline' : 'online'}), from scanner ${exit.scanner_id} (${from.address}:${from.port}).`;
}

/** One handout learned from a peer, for the log: which item to which ticket, when, where, and which kiosk said so. */
export function learnedHandoutLine(handout: PeerHandout, from: PeerAddress): string {
  return `LAN: learned handout of ${handout.item} to ticket ${handout.tid} at ${gateText(handout.gate)}, ${handout.given_at}, from scanner ${handout.scanner_id} (${from.address}:${from.port}).`;
}
