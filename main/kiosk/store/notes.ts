/**
 * The synced attention notes (docs/kiosk.md "Attention notes"; docs/protocol.md "Attention notes (project
 * extension)"): per ticket its flag and note, per ticket type its rule, and the list's owner (issuer, event),
 * cursor and last good sync. An ADMIT decided offline shows what these give (decide/attention.ts), so offline
 * and online show the same screen. sync/notes.ts fetches the pages.
 */
import type { IsoDateTime, VerdictAttention } from '../../../protocol/index.js';
import { combineAttention, type TicketNote, type TypeNote } from '../decide/attention.js';
import { idCheckFromList, parseIdCheck, type AgeBand, type IdCheck } from '../../../protocol/id-check.js';
import type { Statements } from './database.js';
import type { TicketHandoutRow, TypeHandoutRow } from '../../../protocol/handouts.js';
import { applyHandoutTypes } from './handouts.js';
import { clearListed, countNoted, listedOf, putListed, type ListedTicket } from './listed-tickets.js';

/** One page of the issuer's notes list as the kiosk keeps it (AttentionNotes.applyPage). */
export interface AttentionNotesPage {
  iss: string;
  eid: string;
  /** [tid, attention 0/1, note or null]: the ticket's current state; [tid, 0, null] clears it. */
  tickets: ReadonlyArray<readonly [string, 0 | 1, string | null]>;
  /** Every type rule of the event, whole. */
  types: ReadonlyArray<{ ticket_type: string; attention: boolean; note: string | null }>;
  /** docs/kiosk.md "ID checks": every type's check, whole (absent: the issuer has none), and the listed tickets' bands. */
  idChecks?: ReadonlyArray<{ ticket_type: string; id_check: string }>;
  idBands?: ReadonlyArray<readonly [string, AgeBand]>;
  /** docs/kiosk.md "Party tickets": the listed tickets' party sizes ([tid, size]; a listed ticket without a row: one). */
  parties?: ReadonlyArray<readonly [string, number]>;
  /** docs/kiosk.md "Handouts": every type's items, whole, and the listed tickets' own items and handouts given. */
  handoutTypes?: readonly TypeHandoutRow[];
  handouts?: readonly TicketHandoutRow[];
  cursor: string;
  reset: boolean;
  /** Set on the page that completes a sync; otherwise the last good sync's time is kept. */
  syncedAt: IsoDateTime | null;
}

export interface AttentionSyncRow {
  iss: string;
  eid: string;
  cursor: string;
  synced_at: IsoDateTime | null;
}

export class AttentionNotes {
  constructor(private readonly sql: Statements) {}

  /**
   * One page in one transaction: a list of another issuer or event, or `reset`, starts over; each listed ticket's
   * row becomes what the page says of it (its band, size and own handouts: the page's, or none); the type rules are
   * replaced whole.
   */
  applyPage(page: AttentionNotesPage): void {
    const { sql } = this;
    sql.transaction(() => {
      const before = this.sync();
      const sameList = before !== null && before.iss === page.iss && before.eid === page.eid;
      if (!sameList || page.reset) clearListed(sql);
      putListed(sql, listedRows(sql, page));
      sql.statement('DELETE FROM id_check_types').run();
      const check = sql.statement('INSERT OR REPLACE INTO id_check_types (ticket_type, id_check) VALUES (?, ?)');
      for (const rule of page.idChecks ?? []) check.run(rule.ticket_type, rule.id_check);
      sql.statement('DELETE FROM attention_types').run();
      const type = sql.statement('INSERT OR REPLACE INTO attention_types (ticket_type, attention, note) VALUES (?, ?, ?)');
      for (const rule of page.types) type.run(rule.ticket_type, rule.attention ? 1 : 0, rule.note);
      applyHandoutTypes(sql, page.handoutTypes);
      const syncedAt = page.syncedAt ?? (sameList && !page.reset ? before.synced_at : null);
      sql
        .statement('INSERT OR REPLACE INTO attention_sync (id, iss, eid, cursor, synced_at) VALUES (1, ?, ?, ?, ?)')
        .run(page.iss, page.eid, page.cursor, syncedAt);
    });
  }

  /** The list's owner, cursor and last good sync; null before the first page. */
  sync(): AttentionSyncRow | null {
    return (
      (this.sql.statement('SELECT iss, eid, cursor, synced_at FROM attention_sync WHERE id = 1').get() as AttentionSyncRow | undefined) ??
      null
    );
  }

  /** What applies to a ticket of `owner`'s event (its row, its type's rule); null when the list is another event's or nothing applies. */
  attentionOf(owner: { iss: string; eid: string }, tid: string, ticketType: string | null): VerdictAttention | null {
    const sync = this.sync();
    if (sync === null || sync.iss !== owner.iss || sync.eid !== owner.eid) return null;
    const listed = listedOf(this.sql, tid);
    const ticket = listed === undefined ? undefined : { attention: listed.attention, note: listed.note };
    const type =
      ticketType === null
        ? undefined
        : (this.sql.statement('SELECT attention, note FROM attention_types WHERE ticket_type = ?').get(ticketType) as RawNote | undefined);
    return combineAttention(noteOf(type), noteOf(ticket));
  }

  /**
   * docs/kiosk.md "ID checks": the check a ticket of `owner`'s event needs by the synced list (its type's check, its
   * band), the same extension the issuer's answers carry; null when none applies; `unsynced` when the kiosk has no
   * list of this event yet (the door then asks the issuer's status before checking in).
   */
  idCheckOf(
    owner: { iss: string; eid: string },
    tid: string,
    ticketType: string | null,
    holderName: string | null,
  ): IdCheck | null | 'unsynced' {
    const sync = this.sync();
    if (sync === null || sync.iss !== owner.iss || sync.eid !== owner.eid || sync.synced_at === null) return 'unsynced';
    if (ticketType === null) return null;
    const type = this.sql.statement('SELECT id_check FROM id_check_types WHERE ticket_type = ?').get(ticketType) as
      { id_check: string } | undefined;
    if (type === undefined) return null;
    return idCheckFromList(parseIdCheck(type.id_check), holderName, listedOf(this.sql, tid)?.band ?? null);
  }

  /**
   * docs/kiosk.md "Party tickets": how many people a ticket of `owner`'s event admits by the synced list (1: one);
   * `unsynced` when the kiosk has no complete list of this event yet.
   */
  partySizeOf(owner: { iss: string; eid: string }, tid: string): number | 'unsynced' {
    const sync = this.sync();
    if (sync === null || sync.iss !== owner.iss || sync.eid !== owner.eid || sync.synced_at === null) return 'unsynced';
    return listedOf(this.sql, tid)?.party ?? 1;
  }

  /** Tickets with a flag or a note in the list (shown on Setup beside the revocation list). */
  count(): number {
    return countNoted(this.sql);
  }
}

interface RawNote {
  attention: number;
  note: string | null;
}

function noteOf(row: RawNote | undefined): TicketNote & TypeNote {
  return row === undefined ? { attention: false, note: null } : { attention: row.attention === 1, note: row.note };
}

/**
 * What the page says of each ticket it lists, whole. A ticket named only in the page's bands, sizes or handouts (the
 * issuer lists each in `tickets` too) keeps what the list said of it before, with that field replaced.
 */
function listedRows(sql: Statements, page: AttentionNotesPage): ListedTicket[] {
  const rows = new Map<string, ListedTicket>();
  for (const [tid, attention, note] of page.tickets) rows.set(tid, { tid, attention, note, band: null, party: null, handouts: null });
  const rowOf = (tid: string): ListedTicket => {
    let row = rows.get(tid);
    if (row === undefined)
      rows.set(tid, (row = { tid, attention: 0, note: null, band: null, party: null, handouts: null, ...listedOf(sql, tid) }));
    return row;
  };
  for (const [tid, band] of page.idBands ?? []) rowOf(tid).band = band;
  for (const [tid, size] of page.parties ?? []) rowOf(tid).party = size;
  for (const [tid, items, given] of page.handouts ?? []) rowOf(tid).handouts = { items, given };
  return [...rows.values()];
}
