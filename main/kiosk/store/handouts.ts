/**
 * Handouts at the kiosk (docs/kiosk.md "Handouts"; docs/protocol.md "Handouts (project extension)"): the synced
 * list's type items and the listed tickets' own items and handouts given (applied with the notes list's page, in its
 * transaction), and the handouts confirmed here: a durable queue, each row committed before it is shown or sent, its
 * id the issuer's idempotency key, drained like the scans (sync/handout-drain.ts). What a ticket gets, and whether a
 * handout is refused, is the one rule of protocol/handouts.ts on these rows, so offline refuses as the issuer does.
 */
import {
  handoutsOf,
  isHandoutList,
  mergeHandouts,
  type GivenRow,
  type Handout,
  type HandoutAnswer,
  type HandoutItem,
  type TypeHandoutRow,
} from '../../../protocol/handouts.js';
import type { Statements } from './database.js';
import { listedOf } from './listed-tickets.js';

/** One handout confirmed at this kiosk. */
export interface LocalHandout {
  hid: string;
  iss: string;
  eid: string;
  tid: string;
  item: string;
  gate_id: string | null;
  staff_id: string | null;
  given_at: string;
  queue_state: 'pending' | 'done' | 'failed';
  attempts: number;
  result_status: string | null;
  answered_at: string | null;
}

const parse = <T>(json: string | null | undefined, fallback: T): T => {
  if (json === null || json === undefined) return fallback;
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
};

/** The page's type items, replaced whole, in the notes page's transaction (store/notes.ts applyPage). */
export function applyHandoutTypes(sql: Statements, handoutTypes: readonly TypeHandoutRow[] | undefined): void {
  sql.statement('DELETE FROM handout_types').run();
  const type = sql.statement('INSERT OR REPLACE INTO handout_types (ticket_type, items) VALUES (?, ?)');
  for (const row of handoutTypes ?? []) type.run(row.ticket_type, JSON.stringify(row.items));
}

export class KioskHandouts {
  constructor(private readonly sql: Statements) {}

  /** The items a ticket gets by the synced list (its type's merged with its own); [] when none. */
  private listedItems(tid: string, ticketType: string | null): { items: HandoutItem[]; given: GivenRow[] } {
    const type =
      ticketType === null
        ? undefined
        : (this.sql.statement('SELECT items FROM handout_types WHERE ticket_type = ?').get(ticketType) as { items: string } | undefined);
    const ticket = listedOf(this.sql, tid)?.handouts ?? null;
    return { items: mergeHandouts(parse<HandoutItem[]>(type?.items, []), ticket?.items ?? []), given: ticket?.given ?? [] };
  }

  /** The handouts confirmed here for `tid` and not refused, as the wire's given records (this scanner's name). */
  private localGiven(tid: string, scannerName: string): GivenRow[] {
    const rows = this.sql
      .statement(
        `SELECT hid, item, given_at, gate_id FROM handouts WHERE tid = ? AND (result_status IS NULL OR result_status = 'given') ORDER BY seq`,
      )
      .all(tid) as Array<{ hid: string; item: string; given_at: string; gate_id: string | null }>;
    return rows.map((row) => ({ hid: row.hid, item: row.item, at: row.given_at, gate: row.gate_id, scanner: scannerName }));
  }

  /**
   * What a ticket gets and what was given, for the screen and the refusal rule: the issuer's answer when it sent one
   * (it knows every kiosk's handouts), else the synced list; with this kiosk's own handouts and those its LAN peers
   * told of (`peers`, docs/kiosk.md "Handouts") not yet in either, each once by its id. Null when the ticket has no
   * items.
   */
  handoutsFor(
    tid: string,
    ticketType: string | null,
    scannerName: string,
    fromAnswer: Handout[] | null,
    peers: readonly GivenRow[] = [],
  ): Handout[] | null {
    const own = [...this.localGiven(tid, scannerName), ...peers];
    if (fromAnswer !== null) {
      const known = new Set(fromAnswer.flatMap((handout) => handout.given.map((record) => record.hid)));
      const items = fromAnswer.map(({ item, count }) => ({ item, count }));
      const given = [
        ...fromAnswer.flatMap((handout) => handout.given.map((record) => ({ ...record, item: handout.item }))),
        ...own.filter((record) => !known.has(record.hid)),
      ];
      return items.length === 0 ? null : handoutsOf(items, given);
    }
    const listed = this.listedItems(tid, ticketType);
    if (listed.items.length === 0) return null;
    const known = new Set(listed.given.map((record) => record.hid));
    return handoutsOf(listed.items, [...listed.given, ...own.filter((record) => !known.has(record.hid))]);
  }

  /** Commits one handout confirmed here, pending, before it is sent or shown. */
  record(handout: Omit<LocalHandout, 'queue_state' | 'attempts' | 'result_status' | 'answered_at'>): void {
    this.sql
      .statement(
        `INSERT INTO handouts (hid, iss, eid, tid, item, gate_id, staff_id, given_at, queue_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
      )
      .run(handout.hid, handout.iss, handout.eid, handout.tid, handout.item, handout.gate_id, handout.staff_id, handout.given_at);
  }

  /** The issuer's answer (or a final refusal of the request): the row leaves the queue. */
  settle(hid: string, status: string, answer: HandoutAnswer | null, at: string): void {
    this.sql
      .statement(`UPDATE handouts SET queue_state = ?, result_status = ?, result = ?, answered_at = ? WHERE hid = ?`)
      .run(
        status === 'given' || status === 'refused' ? 'done' : 'failed',
        status,
        answer === null ? null : JSON.stringify(answer),
        at,
        hid,
      );
  }

  /** A send that did not get an answer: the row stays in the queue. */
  noteAttempt(hid: string): void {
    this.sql.statement('UPDATE handouts SET attempts = attempts + 1 WHERE hid = ?').run(hid);
  }

  /** The pending handouts of an issuer, oldest first. */
  pending(iss: string, limit = 200): LocalHandout[] {
    return this.sql
      .statement(`SELECT * FROM handouts WHERE queue_state = 'pending' AND iss = ? ORDER BY seq LIMIT ?`)
      .all(iss, limit) as LocalHandout[];
  }

  pendingCount(): number {
    return (this.sql.statement(`SELECT COUNT(*) AS n FROM handouts WHERE queue_state = 'pending'`).get() as { n: number }).n;
  }

  /**
   * Handouts confirmed here that the issuer refused when the queue drained (docs/kiosk.md "Handouts"): a second
   * handout given offline while another kiosk had given it already; for the conflict report.
   */
  refusedLate(): Array<LocalHandout & { result: string | null }> {
    return this.sql.statement(`SELECT * FROM handouts WHERE result_status = 'refused' ORDER BY seq`).all() as Array<
      LocalHandout & { result: string | null }
    >;
  }

  find(hid: string): (LocalHandout & { result: string | null }) | undefined {
    return this.sql.statement('SELECT * FROM handouts WHERE hid = ?').get(hid) as (LocalHandout & { result: string | null }) | undefined;
  }
}

/** The issuer's stored answer of a settled row, checked, or null. */
export function storedHandoutAnswer(json: string | null): HandoutAnswer | null {
  const answer = parse<HandoutAnswer | null>(json, null);
  return answer !== null && isHandoutList(answer.handouts) ? answer : null;
}
