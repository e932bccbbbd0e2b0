/**
 * The exits and handouts this kiosk learned from its LAN peers (docs/kiosk.md "Kiosks on one LAN", "Party tickets",
 * "Handouts"), within fixed bounds like the admissions' (lan-learned.ts): per ticket, and all tickets together, the
 * tickets learned first going first beyond it, so a hostile peer with a valid certificate cannot grow a kiosk's
 * memory past a fixed bound. Pure: lan-peers.ts decides which messages are authentic and hands their contents here.
 */
import { MAX_HANDOUT_COUNT, MAX_HANDOUT_ITEMS, type GivenRow } from '../../../protocol/handouts.js';
import { keptPerTicket, MAX_KNOWN_ADMISSIONS, MAX_KNOWN_PARTS } from './lan-learned.js';
import type { PeerExit, PeerHandout } from './lan-moves.js';

/** Every ticket's exits kept together; tickets at most MAX_KNOWN_ADMISSIONS. */
export const MAX_KNOWN_EXITS = MAX_KNOWN_PARTS;
/** Every ticket's handouts kept together; tickets at most MAX_KNOWN_ADMISSIONS. */
export const MAX_KNOWN_HANDOUTS = MAX_KNOWN_ADMISSIONS;
/** A ticket's handouts kept: no ticket gets more (MAX_HANDOUT_ITEMS items of at most MAX_HANDOUT_COUNT each). */
export const MAX_HANDOUTS_PER_TICKET = MAX_HANDOUT_ITEMS * MAX_HANDOUT_COUNT;

/**
 * Lists per ticket under two bounds: entries per ticket (the caller's) and entries and tickets together. Beyond the
 * latter, the tickets learned first are dropped whole.
 */
export class BoundedTicketLists<T> {
  private readonly lists = new Map<string, T[]>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxTickets: number = MAX_KNOWN_ADMISSIONS,
  ) {}

  of(tid: string): readonly T[] {
    return this.lists.get(tid) ?? [];
  }

  /** Entries of every ticket together. */
  get size(): number {
    return this.total;
  }

  get tickets(): number {
    return this.lists.size;
  }

  clear(): void {
    this.lists.clear();
    this.total = 0;
  }

  /**
   * Keeps `entry` unless `same` finds it kept already: the ticket's list stays ordered by `order` and at most `kept`
   * long, dropping its first entries (`drop: 'first'`) or its last. True when the entry is kept.
   */
  add(
    tid: string,
    entry: T,
    rule: { same: (a: T, b: T) => boolean; order: (a: T, b: T) => number; kept: number; drop: 'first' | 'last' },
  ): boolean {
    const known = [...(this.lists.get(tid) ?? [])];
    if (known.some((other) => rule.same(other, entry))) return false;
    known.push(entry);
    known.sort(rule.order);
    const over = Math.max(0, known.length - rule.kept);
    const standing = rule.drop === 'first' ? known.slice(over) : known.slice(0, known.length - over);
    if (!standing.includes(entry)) return false;
    this.total -= this.lists.get(tid)?.length ?? 0;
    this.lists.delete(tid);
    // Room by dropping the tickets learned first; this one, learned anew, goes to the end of the order.
    while (this.lists.size > 0 && (this.total + standing.length > this.maxEntries || this.lists.size >= this.maxTickets)) {
      const [oldest, list] = this.lists.entries().next().value as [string, T[]];
      this.lists.delete(oldest);
      this.total -= list.length;
    }
    this.lists.set(tid, standing);
    this.total += standing.length;
    return true;
  }

  /** Drops the ticket's entries `undone` names; how many were dropped. */
  removeWhere(tid: string, undone: (entry: T) => boolean): number {
    const known = this.lists.get(tid);
    if (known === undefined) return 0;
    const standing = known.filter((entry) => !undone(entry));
    this.total -= known.length - standing.length;
    if (standing.length === 0) this.lists.delete(tid);
    else this.lists.set(tid, standing);
    return known.length - standing.length;
  }
}

const byTime =
  <T>(at: (entry: T) => string) =>
  (a: T, b: T): number =>
    Date.parse(at(a)) - Date.parse(at(b));

/** The peers' exits and handouts this kiosk keeps. */
export class LearnedMoves {
  private readonly exits: BoundedTicketLists<PeerExit>;
  private readonly handouts: BoundedTicketLists<PeerHandout>;

  /** `partySize`: a ticket's party size by the synced list (absent: one person), read when an exit is kept. */
  constructor(
    bounds: { exits?: number; handouts?: number } = {},
    private readonly partySize: () => ((tid: string) => number) | undefined = () => undefined,
  ) {
    this.exits = new BoundedTicketLists(bounds.exits ?? MAX_KNOWN_EXITS);
    this.handouts = new BoundedTicketLists(bounds.handouts ?? MAX_KNOWN_HANDOUTS);
  }

  clear(): void {
    this.exits.clear();
    this.handouts.clear();
  }

  /**
   * Keeps a peer's exit: of a ticket, the latest up to a party's size (keptPerTicket), since the exits after the
   * issuer's last answer are the ones that count. True when it is new and kept.
   */
  learnExit(exit: PeerExit): boolean {
    return this.exits.add(exit.tid, exit, {
      same: (a, b) => a.scanner_id === b.scanner_id && a.exited_at === b.exited_at,
      order: byTime((e) => e.exited_at),
      kept: keptPerTicket(this.partySize()?.(exit.tid)),
      drop: 'first',
    });
  }

  /** Keeps a peer's handout, once per id (the earliest up to MAX_HANDOUTS_PER_TICKET). True when it is new and kept. */
  learnHandout(handout: PeerHandout): boolean {
    return this.handouts.add(handout.tid, handout, {
      same: (a, b) => a.hid === b.hid,
      order: byTime((h) => h.given_at),
      kept: MAX_HANDOUTS_PER_TICKET,
      drop: 'last',
    });
  }

  exitsOf(tid: string): readonly PeerExit[] {
    return this.exits.of(tid);
  }

  /** The handouts of the ticket peers told of, as the issuer's answers carry a handout given (docs/kiosk.md "Handouts"). */
  handoutsOf(tid: string): GivenRow[] {
    return this.handouts.of(tid).map((h) => ({ hid: h.hid, item: h.item, at: h.given_at, gate: h.gate, scanner: h.scanner }));
  }

  /** An annulment undid the ticket's admissions up to a time: the exits `undone` names go with them. */
  forgetExits(tid: string, undone: (exit: PeerExit) => boolean): number {
    return this.exits.removeWhere(tid, undone);
  }

  /** Every ticket's exits kept, together (at most MAX_KNOWN_EXITS, or the option's bound). */
  get knownExits(): number {
    return this.exits.size;
  }

  /** Every ticket's handouts kept, together (at most MAX_KNOWN_HANDOUTS, or the option's bound). */
  get knownHandouts(): number {
    return this.handouts.size;
  }
}
