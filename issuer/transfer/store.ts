/**
 * Table access for `export` and `import` (docs/issuer.md "Moving an issuer to
 * the venue and back"): every row of the tables an issuer is made of, whole
 * or scoped to one event, and the few writes a merge needs, on SQLite and
 * PostgreSQL alike through the database port (sql.ts, which prepares each
 * statement text once per connection). The merge rules themselves live in
 * issuer/transfer/merge.ts and its modules; this module only knows SQL.
 *
 * Tables are read in keyset pages (PAGE_ROWS rows per query), so memory does
 * not grow with the table. The order is stable and the one exports always had
 * on SQLite: the rowid (insertion order; scan_log's id is its rowid). On
 * PostgreSQL every table carries an explicit `rowid` identity column and
 * scan_log an identity `id`, so an export lists the rows in insertion order
 * there too. The key a page continues from never travels in the file.
 */
import { appendChained, CONTENT_COLUMNS } from '../store/audit-log.js';
import { numberRevocation } from '../store/revocations.js';
import { setTicketAttention } from '../store/attention-notes.js';
import { fillSearchNames } from '../store/tickets.js';
import { datedTicketsOf, renumber, setTicketDob, setTypeIdCheck } from '../store/id-checks.js';
import { parseIdCheck } from '../../protocol/id-check.js';
import type { Sql, SqlValue } from '../store/sql.js';
import type { IssuerInfo } from '../store/issuer-info.js';
import { transferTypes } from '../store/columns.js';
import type { EntryPolicy } from '../../protocol/door.js';
import { afterEntry, NO_PEOPLE, partySizeOf, type PartyCounts } from '../../protocol/party.js';

/**
 * The tables that travel, in an order that satisfies their foreign keys: the export file's order, in which a
 * row only names rows of earlier tables (issuer/transfer/read.ts REFERENCES), so one read checks them.
 */
export const TRANSFER_TABLES = [
  'signing_keys',
  'events',
  'tickets',
  'checkins',
  'scan_log',
  'enrollment_tokens',
  'api_keys',
  'idempotency',
  // Format version 2 (door operations, docs/protocol.md "Door operations"). Occupancy does not travel: an import
  // counts it again from the merged check-ins and admission events (recomputeOccupancy).
  'admission_events',
  'offline_policies',
  'scanner_heartbeats',
  // Format version 3 (docs/issuer.md "Audit: tamper-evident logs"): every chain head the kiosks reported.
  'kiosk_log_heads',
  // Format version 4: each event's LAN key (docs/kiosk.md "Kiosks on one LAN"), so kiosks enrolled on either copy
  // share it, and its check-in rules (docs/protocol.md "Check-in rules").
  'event_lan_keys',
  'check_in_rules',
  // Format version 5 (docs/issuer.md "Staff roles and badges"): staff badges, so a revocation on either copy holds on both.
  'staff_badges',
  // Format version 6 (docs/protocol.md "ID checks (project extension)"): the ticket types' ID checks (id-checks.ts).
  'ticket_type_id_checks',
  // Format version 7 (docs/protocol.md "Handouts (project extension)"): the ticket types' handout items and every
  // handout recorded (issuer/transfer/handouts.ts); party sizes and counts, and a handout station's mark, are columns.
  'ticket_type_handouts',
  'handouts',
  // Format version 7 too (docs/protocol.md "Attention notes (project extension)"): the ticket types' attention flags
  // and notes (issuer/transfer/attention-notes.ts); a ticket's own are columns. Last, so a version 7 file written
  // before them, which ends at handouts, still reads (file.ts isOptionalTable).
  'ticket_type_notes',
  // Format version 8: each event's check-out at a set time (docs/protocol.md "Check-out at a set time";
  // issuer/transfer/exit-all.ts), and the kiosks' staff records their heartbeats carried (docs/protocol.md "Scanner
  // heartbeat"), so the dashboard's staff list and `checkins export` tell the same on both copies.
  'exit_all_settings',
  'staff_actions',
] as const;
export type TransferTable = (typeof TRANSFER_TABLES)[number];

/** The columns of each table as they travel, in the file's order (store/columns.ts: scan_log and admission_events without their local ids). */
export const TRANSFER_COLUMNS: Record<TransferTable, readonly string[]> = Object.fromEntries(
  TRANSFER_TABLES.map((table) => [table, Object.keys(transferTypes(table))]),
) as Record<TransferTable, string[]>;

/**
 * What makes two log rows the same row on both copies (an import adds a row only when no row here has these
 * values): scan_log's content without its chain columns, since a row one copy re-chained sits at another
 * position there (store/audit-log.ts appendChained); the other logs' every column.
 */
export const LOG_IDENTITY_COLUMNS: Record<LogTable, readonly string[]> = {
  scan_log: CONTENT_COLUMNS,
  // Without id_check: a row an older file (before format version 6) brings back is the same row as here.
  admission_events: TRANSFER_COLUMNS.admission_events.filter((c) => c !== 'id_check'),
  kiosk_log_heads: TRANSFER_COLUMNS.kiosk_log_heads,
  // What the kiosk wrote, without when this copy received it: the same record sent to both copies is one row.
  staff_actions: TRANSFER_COLUMNS.staff_actions.filter((c) => c !== 'received_at'),
};

/** Tables whose rows have no shared key that travels: append-only logs, compared whole. */
export type LogTable = 'scan_log' | 'admission_events' | 'kiosk_log_heads' | 'staff_actions';
/** Tables keyed by one column (the per-type settings have a two-column key: eid and ticket_type). */
export type KeyedTable = Exclude<TransferTable, LogTable | TypeTable>;
/** Settings per event and ticket type, keyed by both (policyKey). */
export type TypeTable = 'offline_policies' | 'ticket_type_id_checks' | 'ticket_type_handouts' | 'ticket_type_notes';

/** The primary key of each one-column-keyed table; the logs have none that travels (their rows are compared whole). */
export const TRANSFER_KEYS: Record<KeyedTable, string> = {
  signing_keys: 'kid',
  events: 'eid',
  tickets: 'tid',
  checkins: 'tid',
  enrollment_tokens: 'token_id',
  api_keys: 'api_key_id',
  idempotency: 'idempotency_key',
  scanner_heartbeats: 'api_key_id',
  event_lan_keys: 'eid',
  check_in_rules: 'eid',
  staff_badges: 'sid',
  handouts: 'hid',
  exit_all_settings: 'eid',
};

/** Rows of one event: what `export --event EID` takes from each table (signing keys are always all taken). */
const EVENT_SCOPE: Record<TransferTable, string> = {
  signing_keys: '1 = 1',
  events: 'eid = @eid',
  tickets: 'eid = @eid',
  checkins: 'tid IN (SELECT tid FROM tickets WHERE eid = @eid)',
  scan_log: 'eid = @eid',
  enrollment_tokens: 'eid = @eid',
  api_keys: 'eid = @eid',
  idempotency: 'api_key_id IN (SELECT api_key_id FROM api_keys WHERE eid = @eid)',
  admission_events: 'eid = @eid',
  offline_policies: 'eid = @eid',
  scanner_heartbeats: 'eid = @eid',
  kiosk_log_heads: 'eid = @eid',
  event_lan_keys: 'eid = @eid',
  check_in_rules: 'eid = @eid',
  staff_badges: 'eid = @eid',
  ticket_type_id_checks: 'eid = @eid',
  ticket_type_handouts: 'eid = @eid',
  handouts: 'eid = @eid',
  ticket_type_notes: 'eid = @eid',
  exit_all_settings: 'eid = @eid',
  staff_actions: 'eid = @eid',
};

export type Row = Record<string, string | number | null>;

/** Rows per keyset page (export and the audit-log read of an import), and per batched lookup or insert of an import. */
export const PAGE_ROWS = 1000;
const BATCH_ROWS = 500;

/** The alias the page key is selected under; removed from every row before it is handed on. */
const PAGE_KEY = 'transfer_page_key';

/** The column each table is paged and ordered by (see the module comment). */
function pageKey(table: TransferTable): string {
  // Handouts have no rowid on PostgreSQL: their id, unique and fixed, on both.
  if (table === 'handouts') return 'hid';
  // Insertion order on both databases: SQLite's rowid, and PostgreSQL's explicit rowid column (postgres-migrations.ts).
  return table === 'scan_log' || table === 'admission_events' || table === 'kiosk_log_heads' || table === 'staff_actions' ? 'id' : 'rowid';
}

/**
 * Pages of `SELECT columns FROM table [WHERE scope]`, in the page key's order, one query per page. Read inside
 * one snapshot (SqlDatabase.snapshot) or one write job for a consistent view of every table.
 */
async function* pagedRows(
  sql: Sql,
  table: TransferTable,
  columns: readonly string[],
  scope: string | null,
  eid: string | null,
): AsyncGenerator<Row> {
  const key = pageKey(table);
  const select = `SELECT ${columns.join(', ')}, ${key} AS ${PAGE_KEY} FROM ${table}`;
  const first = `${select}${scope === null ? '' : ` WHERE ${scope}`} ORDER BY ${key} LIMIT ${PAGE_ROWS}`;
  const next = `${select} WHERE ${scope === null ? '' : `(${scope}) AND `}${key} > @after ORDER BY ${key} LIMIT ${PAGE_ROWS}`;
  let after: SqlValue | undefined;
  for (;;) {
    const params: Record<string, SqlValue> = eid === null ? {} : { eid };
    const page =
      after === undefined ? await sql.all<Row>(first, eid === null ? undefined : params) : await sql.all<Row>(next, { ...params, after });
    for (const row of page) {
      after = row[PAGE_KEY] as SqlValue;
      delete row[PAGE_KEY];
      yield row;
    }
    if (page.length < PAGE_ROWS) return;
  }
}

/** Every row of `table` (or of one event), in a stable order, page by page. Call inside a snapshot for a consistent export. */
export function transferRows(sql: Sql, table: TransferTable, eid: string | null): AsyncGenerator<Row> {
  // A few rows per event and no rowid on PostgreSQL: read whole, in key order.
  if (table === 'ticket_type_id_checks' || table === 'ticket_type_handouts' || table === 'ticket_type_notes')
    return typeRows(sql, table, eid);
  return pagedRows(sql, table, TRANSFER_COLUMNS[table], eid === null ? null : EVENT_SCOPE[table], eid);
}

async function* typeRows(sql: Sql, table: TypeTable, eid: string | null): AsyncGenerator<Row> {
  const columns = TRANSFER_COLUMNS[table].join(', ');
  const where = eid === null ? '' : ' WHERE eid = ?';
  yield* await sql.all<Row>(`SELECT ${columns} FROM ${table}${where} ORDER BY eid, ticket_type`, eid === null ? [] : [eid]);
}

/** The writes and lookups one import needs, all through the transaction it runs in. */
export interface TransferStore {
  /** The rows of `table` whose key is one of `keys`, by key (any number of keys: looked up in batches). */
  findMany(table: KeyedTable, keys: readonly string[]): Promise<Map<string, Row>>;
  find(table: KeyedTable, key: string): Promise<Row | undefined>;
  /** Inserts the rows in their order (so they keep it in the next export), in batches. */
  insertMany(table: TransferTable, rows: readonly Row[]): Promise<void>;
  /** The active signing key's kid, or null in a data dir being created from a file. */
  activeKid(): Promise<string | null>;
  /** Sets one key's window and whether it signs; `deactivateAllKeys` first, so the one-active index holds. */
  setKeyState(kid: string, validUntil: string | null, active: boolean): Promise<void>;
  deactivateAllKeys(): Promise<void>;
  allKeys(): Promise<{ kid: string; valid_until: string | null; active: number }[]>;
  setRevocation(tid: string, revokedAt: string | null, reason: string | null): Promise<void>;
  replaceCheckin(row: Row): Promise<void>;
  setTokenState(tokenId: string, usedAt: string | null, revokedAt: string | null, failedAttempts: number): Promise<void>;
  setApiKeyRevocation(apiKeyId: string, revokedAt: string | null): Promise<void>;
  setBadgeRevocation(sid: string, revokedAt: string | null, reason: string | null): Promise<void>;
  /** Every row of a log (scan_log, admission_events), without its id, page by page, for telling rows already here from new ones. */
  logRows(table: LogTable): AsyncGenerator<Row>;
  /** The idempotency keys of the ticket's entries here (admission_events): which admissions this side has seen. */
  entryKeysOf(tid: string): Promise<Set<string>>;
  /** Every offline policy here, by `eid \n ticket_type`. */
  offlinePolicies(): Promise<Map<string, Row>>;
  replaceOfflinePolicy(row: Row): Promise<void>;
  replaceHeartbeat(row: Row): Promise<void>;
  /** Every type's ID check here, by `eid \n ticket_type` (policyKey). */
  typeIdChecks(): Promise<Map<string, Row>>;
  /** A type's check replaced by the file's later one; its dated tickets go on the notes list again. */
  replaceTypeIdCheck(row: Row): Promise<void>;
  /** A ticket's date of birth set; the ticket goes on the notes list again. */
  setDob(tid: string, dob: string): Promise<void>;
  /** Every row of a per-type table here, by `eid \n ticket_type` (policyKey). */
  typeRows(table: TypeTable): Promise<Map<string, Row>>;
  /** A type's handout items replaced by the file's later ones (the list travels whole on every notes page). */
  replaceTypeHandouts(row: Row): Promise<void>;
  /** A ticket's party size or own handout items set from the file; the ticket goes on the notes list again. */
  setTicketColumn(tid: string, column: 'party' | 'handouts', value: number | string): Promise<void>;
  /** A type's attention flag and note replaced by the file's later ones (the rules travel whole on every notes page). */
  replaceTypeNotes(row: Row): Promise<void>;
  /** A ticket's attention flag and note set from the file; the change takes the next number of the note sequence. */
  setTicketNote(tid: string, attention: boolean, note: string | null): Promise<void>;
  /** An event's check-out at a set time, replaced by the file's (issuer/transfer/exit-all.ts). */
  replaceExitAll(row: Row): Promise<void>;
  /** An event's check-in rules, replaced by the file's newer ones. */
  replaceCheckInRules(row: Row): Promise<void>;
  /**
   * Counts the events' occupancy again from the check-ins' states and the admission events (docs/protocol.md
   * "Occupancy"), instead of adding up counters that each side kept for its own scans.
   */
  recomputeOccupancy(eids: readonly string[]): Promise<void>;
  issuerInfo(): Promise<IssuerInfo | undefined>;
  insertIssuerInfo(info: IssuerInfo): Promise<void>;
}

/** An offline policy's key: its event and ticket type. */
export const policyKey = (row: Row): string => `${String(row.eid)}\n${String(row.ticket_type)}`;

const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `UPDATE table SET every other column WHERE the key columns match`, with named parameters. */
function replaceStatement(table: TransferTable, keys: readonly string[]): string {
  const others = TRANSFER_COLUMNS[table].filter((c) => !keys.includes(c));
  return `UPDATE ${table} SET ${others.map((c) => `${c} = @${c}`).join(', ')} WHERE ${keys.map((c) => `${c} = @${c}`).join(' AND ')}`;
}

const rowParams = (table: TransferTable, row: Row): Record<string, SqlValue> =>
  Object.fromEntries(TRANSFER_COLUMNS[table].map((c) => [c, row[c] ?? null]));

/**
 * One event's occupancy counters, from the states and the history (docs/protocol.md "Occupancy"), as the
 * check-ins kept them: inside at the gate of the ticket's current entry; entries and exits at the gate scanned
 * at (late ones too). A party counts its people (docs/protocol.md "Party tickets (project extension)"): those
 * inside, and each entry's and exit's people (NULL: one). Annulments are taken off by annulledEntries.
 */
const COUNT_OCCUPANCY = `
  SELECT gate_id, SUM(inside) AS inside, SUM(entries) AS entries, SUM(exits) AS exits FROM (
    SELECT COALESCE(c.gate_id, '') AS gate_id, COALESCE(c.party_inside, 1) AS inside, 0 AS entries, 0 AS exits
    FROM checkins c JOIN tickets t ON t.tid = c.tid WHERE t.eid = @eid AND c.state = 'inside'
    UNION ALL
    SELECT COALESCE(gate_id, ''), 0, CASE WHEN action = 'entry' THEN COALESCE(people, 1) ELSE 0 END,
      CASE WHEN action = 'exit' THEN COALESCE(people, 1) ELSE 0 END
    FROM admission_events WHERE eid = @eid AND action IN ('entry', 'exit')
  ) AS counted GROUP BY gate_id`;

type HistoryRow = { action: string; gate_id: string | null; late: number; people: number | null };

/**
 * An annulment takes its entry back at the gate of the entry it undid: the ticket's history replayed in order
 * (late scans changed no state; an entry while inside only confirmed the admission, keeping its gate). A party
 * ticket's annulment takes back every person admitted since the last one, at the gate of its last part, as the
 * check-in does (issuer/services/check-in.ts applyEffect; protocol/party.ts afterEntry).
 */
async function annulledEntries(tx: Sql, eid: string): Promise<Map<string, number>> {
  const byGate = new Map<string, number>();
  const policy = (await tx.get<{ entry_policy: EntryPolicy }>('SELECT entry_policy FROM events WHERE eid = ?', [eid]))?.entry_policy;
  const tids = await tx.all<{ tid: string; party: number | null }>(
    `SELECT DISTINCT a.tid, t.party FROM admission_events a JOIN tickets t ON t.tid = a.tid WHERE a.eid = ? AND a.action = 'annul'`,
    [eid],
  );
  for (const { tid, party } of tids) {
    const history = await tx.all<HistoryRow>('SELECT action, gate_id, late, people FROM admission_events WHERE tid = ? ORDER BY id', [tid]);
    const replay = partySizeOf(party) > 1 ? replayParty(history, policy ?? 'single') : replayOne(history);
    for (const [gate, taken] of replay) byGate.set(gate, (byGate.get(gate) ?? 0) + taken);
  }
  return byGate;
}

/** A ticket of one person: each annulment takes one entry back. */
function* replayOne(history: readonly HistoryRow[]): Generator<[string, number]> {
  let inside = false;
  let gate = '';
  for (const event of history) {
    if (event.late === 1) continue;
    if (event.action === 'entry') {
      if (!inside) gate = event.gate_id ?? '';
      inside = true;
    } else {
      if (event.action === 'annul') yield [gate, 1];
      inside = false;
    }
  }
}

/** A party ticket: each annulment takes back the people admitted since the last one. */
function* replayParty(history: readonly HistoryRow[], policy: EntryPolicy): Generator<[string, number]> {
  let counts: PartyCounts = NO_PEOPLE;
  let gate = '';
  for (const event of history) {
    if (event.late === 1) continue;
    const people = event.people === null ? 1 : Number(event.people);
    if (event.action === 'entry') {
      gate = event.gate_id ?? '';
      counts = afterEntry(counts, people, policy);
    } else if (event.action === 'exit') {
      counts = { inside: Math.max(0, counts.inside - people), admitted: counts.admitted };
    } else {
      yield [gate, counts.admitted];
      counts = NO_PEOPLE;
    }
  }
}

/** The counters as kept, summed over their shards. */
const KEPT_OCCUPANCY = `SELECT gate_id, SUM(inside) AS inside, SUM(entries) AS entries, SUM(exits) AS exits
  FROM occupancy WHERE eid = ? GROUP BY gate_id`;

type OccupancyRow = { gate_id: string; inside: number; entries: number; exits: number };
/** Per gate, in one order whatever the database's collation. */
const occupancyText = (rows: OccupancyRow[]): string =>
  JSON.stringify(
    rows
      .map((r) => [r.gate_id, Number(r.inside), Number(r.entries), Number(r.exits)] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
  );

export function transferStore(tx: Sql): TransferStore {
  const replaceCheckin = replaceStatement('checkins', ['tid']);
  const replaceOfflinePolicy = replaceStatement('offline_policies', ['eid', 'ticket_type']);
  const replaceHeartbeat = replaceStatement('scanner_heartbeats', ['api_key_id']);
  const replaceRules = replaceStatement('check_in_rules', ['eid']);
  const replaceExitAll = replaceStatement('exit_all_settings', ['eid']);
  const replaceTypeHandouts = replaceStatement('ticket_type_handouts', ['eid', 'ticket_type']);
  const replaceTypeNotes = replaceStatement('ticket_type_notes', ['eid', 'ticket_type']);
  const typeRowsHere = async (table: TypeTable): Promise<Map<string, Row>> => {
    const rows = await tx.all<Row>(`SELECT ${TRANSFER_COLUMNS[table].join(', ')} FROM ${table}`);
    return new Map(rows.map((row) => [policyKey(row), row]));
  };
  const issuerColumns = ['base_url', 'name', 'created_at'] as const;
  const findMany = async (table: KeyedTable, keys: readonly string[]): Promise<Map<string, Row>> => {
    const key = TRANSFER_KEYS[table];
    const found = new Map<string, Row>();
    for (const batch of chunks(keys, BATCH_ROWS)) {
      const rows = await tx.all<Row>(
        `SELECT ${TRANSFER_COLUMNS[table].join(', ')} FROM ${table} WHERE ${key} IN (${placeholders(batch.length)})`,
        batch,
      );
      for (const row of rows) found.set(row[key] as string, row);
    }
    return found;
  };
  return {
    findMany,
    find: async (table, key) => (await findMany(table, [key])).get(key),
    insertMany: async (table, rows) => {
      // scan_log rows go onto this copy's hash chain: kept as they are where they continue it, else re-chained
      // with their place in the other copy's chain kept in `origin` (docs/issuer.md "Audit: tamper-evident logs").
      if (table === 'scan_log') return appendChained(tx, rows as unknown as Parameters<typeof appendChained>[1]);
      const columns = TRANSFER_COLUMNS[table];
      const tuple = `(${placeholders(columns.length)})`;
      for (const batch of chunks(rows, BATCH_ROWS)) {
        await tx.run(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}`,
          batch.flatMap((row) => columns.map((c) => row[c] ?? null)),
        );
      }
      // Tickets that arrive revoked are numbered on this copy's revocation sequence (docs/protocol.md "Revocation list").
      if (table === 'tickets') for (const row of rows) if (row['revoked_at'] != null) await numberRevocation(tx, row['tid'] as string);
      // The searchable names stay in each copy (docs/protocol.md "Ticket search"): made here from holder_name.
      if (table === 'tickets') await fillSearchNames(tx);
      // Dated tickets, and the dated tickets of a type whose check arrives, go on this copy's notes list, so the
      // kiosks learn their age bands (docs/protocol.md "ID checks (project extension)"); so do party tickets and
      // tickets with their own items (docs/protocol.md "Party tickets (project extension)", "Handouts (project
      // extension)"), tickets with an attention flag or a note (docs/protocol.md "Attention notes (project
      // extension)"), and the tickets of handouts given, whose kiosks must refuse a second one.
      if (table === 'tickets')
        await renumber(
          tx,
          rows
            .filter(
              (row) =>
                row['dob'] != null || row['party'] != null || row['handouts'] != null || row['attention'] === 1 || row['note'] != null,
            )
            .map((row) => row['tid'] as string),
        );
      if (table === 'handouts')
        await renumber(tx, [...new Set(rows.filter((row) => row['status'] === 'given').map((row) => row['tid'] as string))]);
      if (table === 'ticket_type_id_checks')
        for (const row of rows) await renumber(tx, await datedTicketsOf(tx, row['eid'] as string, row['ticket_type'] as string));
    },
    activeKid: async () => (await tx.get<{ kid: string }>('SELECT kid FROM signing_keys WHERE active = 1'))?.kid ?? null,
    setKeyState: async (kid, validUntil, active) =>
      void (await tx.run('UPDATE signing_keys SET valid_until = ?, active = ? WHERE kid = ?', [validUntil, active ? 1 : 0, kid])),
    deactivateAllKeys: async () => void (await tx.run('UPDATE signing_keys SET active = 0 WHERE active = 1')),
    allKeys: () =>
      tx.all<{ kid: string; valid_until: string | null; active: number }>(
        'SELECT kid, valid_until, active FROM signing_keys ORDER BY valid_from, kid',
      ),
    setRevocation: async (tid, revokedAt, reason) => {
      await tx.run('UPDATE tickets SET revoked_at = ?, revoke_reason = ? WHERE tid = ?', [revokedAt, reason, tid]);
      // A revocation an import brings is numbered on this copy, so kiosks hear of it (docs/protocol.md "Revocation list").
      if (revokedAt !== null) await numberRevocation(tx, tid);
    },
    replaceCheckin: async (row) => void (await tx.run(replaceCheckin, rowParams('checkins', row))),
    setTokenState: async (tokenId, usedAt, revokedAt, failedAttempts) =>
      void (await tx.run('UPDATE enrollment_tokens SET used_at = ?, revoked_at = ?, failed_attempts = ? WHERE token_id = ?', [
        usedAt,
        revokedAt,
        failedAttempts,
        tokenId,
      ])),
    setApiKeyRevocation: async (apiKeyId, revokedAt) =>
      void (await tx.run('UPDATE api_keys SET revoked_at = ? WHERE api_key_id = ?', [revokedAt, apiKeyId])),
    setBadgeRevocation: async (sid, revokedAt, reason) =>
      void (await tx.run('UPDATE staff_badges SET revoked_at = ?, revoked_reason = ? WHERE sid = ?', [revokedAt, reason, sid])),
    logRows: (table) => pagedRows(tx, table, TRANSFER_COLUMNS[table], null, null),
    entryKeysOf: async (tid) =>
      new Set(
        (
          await tx.all<{ idempotency_key: string }>(
            "SELECT idempotency_key FROM admission_events WHERE tid = ? AND action = 'entry' AND idempotency_key IS NOT NULL",
            [tid],
          )
        ).map((row) => row.idempotency_key),
      ),
    offlinePolicies: async () => {
      const rows = await tx.all<Row>(`SELECT ${TRANSFER_COLUMNS.offline_policies.join(', ')} FROM offline_policies`);
      return new Map(rows.map((row) => [policyKey(row), row]));
    },
    replaceOfflinePolicy: async (row) => void (await tx.run(replaceOfflinePolicy, rowParams('offline_policies', row))),
    replaceHeartbeat: async (row) => void (await tx.run(replaceHeartbeat, rowParams('scanner_heartbeats', row))),
    typeIdChecks: () => typeRowsHere('ticket_type_id_checks'),
    typeRows: typeRowsHere,
    replaceTypeHandouts: async (row) => void (await tx.run(replaceTypeHandouts, rowParams('ticket_type_handouts', row))),
    setTicketColumn: async (tid, column, value) => {
      await tx.run(`UPDATE tickets SET ${column} = ? WHERE tid = ?`, [value, tid]);
      await renumber(tx, [tid]);
    },
    replaceTypeNotes: async (row) => void (await tx.run(replaceTypeNotes, rowParams('ticket_type_notes', row))),
    setTicketNote: async (tid, attention, note) => void (await setTicketAttention(tx, tid, { attention, note })),
    replaceTypeIdCheck: (row) =>
      setTypeIdCheck(tx, row.eid as string, row.ticket_type as string, parseIdCheck(row.id_check as string)!, row.updated_at as string),
    setDob: async (tid, dob) => void (await setTicketDob(tx, tid, dob)),
    replaceCheckInRules: async (row) => void (await tx.run(replaceRules, rowParams('check_in_rules', row))),
    replaceExitAll: async (row) => void (await tx.run(replaceExitAll, rowParams('exit_all_settings', row))),
    recomputeOccupancy: async (eids) => {
      // PostgreSQL: a serve process checking in meanwhile waits at its counter update until this import commits,
      // and then adds its own entry to the recounted rows; its check-in is not in this recount (not committed).
      if (tx.dialect === 'postgres') await tx.run('LOCK TABLE occupancy IN EXCLUSIVE MODE');
      for (const eid of eids) {
        const counted = await tx.all<OccupancyRow>(COUNT_OCCUPANCY, { eid });
        for (const [gate, annulled] of await annulledEntries(tx, eid)) {
          const row = counted.find((r) => r.gate_id === gate);
          if (row) row.entries = Number(row.entries) - annulled;
          else counted.push({ gate_id: gate, inside: 0, entries: -annulled, exits: 0 });
        }
        // Already right (an import that brought nothing new): the rows stay as they are.
        if (occupancyText(counted) === occupancyText(await tx.all<OccupancyRow>(KEPT_OCCUPANCY, [eid]))) continue;
        await tx.run('DELETE FROM occupancy WHERE eid = ?', [eid]);
        for (const row of counted) {
          await tx.run('INSERT INTO occupancy (eid, gate_id, shard, inside, entries, exits) VALUES (?, ?, 0, ?, ?, ?)', [
            eid,
            row.gate_id,
            Number(row.inside),
            Number(row.entries),
            Number(row.exits),
          ]);
        }
      }
    },
    issuerInfo: () => tx.get<IssuerInfo>(`SELECT ${issuerColumns.join(', ')} FROM issuer WHERE singleton = 1`),
    insertIssuerInfo: async (info) =>
      void (await tx.run('INSERT INTO issuer (singleton, base_url, name, created_at) VALUES (1, ?, ?, ?)', [
        info.base_url,
        info.name,
        info.created_at,
      ])),
  };
}
