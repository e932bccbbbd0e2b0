/**
 * Every table's columns, written once. For each column: how its value travels in an export file (docs/issuer.md
 * "Moving an issuer to the venue and back"), or that it stays in this database; and whether it is immutable.
 * The export's columns and their order (issuer/transfer/store.ts TRANSFER_COLUMNS), the file's value types
 * (issuer/transfer/file.ts) and the import's immutable columns (issuer/transfer/merge.ts) are read from here.
 *
 * The migrations (migrations.ts, postgres-migrations.ts) are the schema's history and stay SQL as they ran. A
 * test runs both chains on an empty database and finds exactly these columns, so a migration that adds a
 * column without a line here fails (test/integration/issuer/schema-columns.test.ts, and its PostgreSQL twin
 * in test/integration/postgres/).
 */

/**
 * The type of a value in an export file: `string` is non-empty, `text` may be empty, `?` allows null; `label` is
 * a text people see (a name, venue, gate or ticket type) under the rules `event create` and `ticket issue` apply
 * (non-empty, at most 80 characters, printable: docs/issuer.md "Threats handled"), `label?` null or such a text,
 * `label_text` such a text or '', `capacity?` null or an event capacity as `event create` takes, `scanner_text?` null or
 * a scanner name or platform as enrollment takes, `note?` null or a check-in note as `--note` takes, `exit_all_at` and `time_zone` a check-out time and its zone as
 * `event set --exit-all-at` stores them; the rest are one format or set of values each (issuer/transfer/file.ts checks them).
 */
export type TransferType =
  | 'string'
  | 'text'
  | 'text?'
  | 'label'
  | 'label?'
  | 'label_text'
  | 'time'
  | 'time?'
  | 'int'
  | 'bool'
  | 'sha256'
  | 'kid'
  | 'flag'
  | 'count?'
  | 'capacity?'
  | 'scanner_text?'
  | 'int?'
  | 'role'
  | 'entry_policy'
  | 'admission_state'
  | 'direction?'
  | 'action'
  | 'offline_policy'
  | 'rules_json'
  | 'json_counts'
  | 'dob?'
  | 'id_check_rule'
  | 'id_check_state?'
  | 'party?'
  | 'people?'
  | 'people_count?'
  | 'station?'
  | 'handout_items'
  | 'handout_items?'
  | 'handout_item'
  | 'handout_status'
  | 'handout_reason?'
  | 'scanner_text'
  | 'note?'
  | 'exit_all_at'
  | 'time_zone';

export interface Column {
  /** The value's type in an export file; absent: the column never travels (an id or number given here). */
  readonly travels?: TransferType;
  /** Never changes once written: an import that finds it different refuses the file (IMPORT_CONFLICT). */
  readonly immutable?: true;
  /** Only on PostgreSQL: the explicit `rowid` that stands for SQLite's implicit one (postgres-migrations.ts). */
  readonly postgresOnly?: true;
}

/** A column that stays in this database. */
const LOCAL: Column = {};
/** PostgreSQL's explicit rowid: the insertion order that the dashboard and the export read on both databases. */
const ROWID: Column = { postgresOnly: true };

export const TABLE_COLUMNS = {
  issuer: { singleton: LOCAL, base_url: LOCAL, name: LOCAL, created_at: LOCAL },
  // Public halves only; a signing key's private half travels beside its row (issuer/transfer/file.ts).
  signing_keys: {
    rowid: ROWID,
    kid: { travels: 'kid' },
    public_key: { travels: 'string' },
    valid_from: { travels: 'time' },
    valid_until: { travels: 'time?' },
    // 0 or 1 here, a boolean in the file.
    active: { travels: 'bool' },
  },
  events: {
    rowid: ROWID,
    eid: { travels: 'string' },
    name: { travels: 'label' },
    date: { travels: 'time' },
    venue: { travels: 'label' },
    ends_at: { travels: 'time' },
    created_at: { travels: 'time' },
    entry_policy: { travels: 'entry_policy' },
    capacity: { travels: 'capacity?' },
  },
  tickets: {
    rowid: ROWID,
    tid: { travels: 'string' },
    eid: { travels: 'string', immutable: true },
    kid: { travels: 'kid', immutable: true },
    holder_name: { travels: 'label?', immutable: true },
    ticket_type: { travels: 'label?', immutable: true },
    issued_at: { travels: 'time', immutable: true },
    exp: { travels: 'int', immutable: true },
    qr: { travels: 'string', immutable: true },
    revoked_at: { travels: 'time?' },
    revoke_reason: { travels: 'text?' },
    // Numbered again by the copy a revocation arrives at (docs/protocol.md "Revocation list (project extension)").
    revocation_seq: LOCAL,
    // The holder name in the searchable form (protocol/search-name.ts): made again from holder_name where it lands.
    search_name: LOCAL,
    // Attention flag and check-in note (docs/protocol.md "Attention notes (project extension)", format version 7);
    // their place in the note sequence is given again by the copy they arrive at (issuer/transfer/attention-notes.ts).
    attention: { travels: 'flag' },
    note: { travels: 'note?' },
    note_seq: LOCAL,
    // The holder's date of birth (docs/protocol.md "ID checks (project extension)"): in the export file (format
    // version 6, the issuer's own 0600 backup), never in a QR, an answer, a CSV or a webhook.
    dob: { travels: 'dob?' },
    // docs/protocol.md "Party tickets (project extension)": how many people the ticket admits (format version 7).
    party: { travels: 'party?' },
    // docs/protocol.md "Handouts (project extension)": the ticket's own items, a JSON list (format version 7).
    handouts: { travels: 'handout_items?' },
  },
  checkins: {
    rowid: ROWID,
    tid: { travels: 'string' },
    checked_in_at: { travels: 'time' },
    scanner_id: { travels: 'string' },
    gate_id: { travels: 'label?' },
    api_key_id: { travels: 'string' },
    idempotency_key: { travels: 'string' },
    recorded_at: { travels: 'time' },
    state: { travels: 'admission_state' },
    state_at: { travels: 'time' },
    first_checked_in_at: { travels: 'time' },
    entries: { travels: 'int' },
    version: { travels: 'int' },
    // docs/protocol.md "Party tickets (project extension)": a party's people inside and admitted (format version 7).
    party_inside: { travels: 'people_count?' },
    party_admitted: { travels: 'people_count?' },
  },
  idempotency: {
    rowid: ROWID,
    idempotency_key: { travels: 'string' },
    request_hash: { travels: 'sha256' },
    http_status: { travels: 'int' },
    response_body: { travels: 'text' },
    api_key_id: { travels: 'string' },
    created_at: { travels: 'time' },
  },
  // What scanners claimed (scanned_at, tid…) is logged as sent, so only `at` and `outcome` are ours.
  scan_log: {
    id: LOCAL,
    at: { travels: 'time' },
    scanned_at: { travels: 'text?' },
    tid: { travels: 'text?' },
    eid: { travels: 'text?' },
    scanner_id: { travels: 'text?' },
    api_key_id: { travels: 'text?' },
    gate_id: { travels: 'label?' },
    idempotency_key: { travels: 'text?' },
    outcome: { travels: 'string' },
    details: { travels: 'text?' },
    // The row's place in the hash chain of the copy that wrote it (docs/issuer.md "Audit: tamper-evident logs").
    position: { travels: 'count?' },
    prev_hash: { travels: 'text?' },
    hash: { travels: 'text?' },
    origin: { travels: 'text?' },
  },
  enrollment_tokens: {
    rowid: ROWID,
    token_id: { travels: 'string' },
    token_hash: { travels: 'sha256', immutable: true },
    eid: { travels: 'string', immutable: true },
    gate_id: { travels: 'label?', immutable: true },
    expires_at: { travels: 'time', immutable: true },
    key_expires_at: { travels: 'time', immutable: true },
    created_at: { travels: 'time', immutable: true },
    used_at: { travels: 'time?' },
    revoked_at: { travels: 'time?' },
    failed_attempts: { travels: 'int' },
    direction: { travels: 'direction?', immutable: true },
    // A scanner key's role (protocol/access.ts); was the can_annul flag before format version 5.
    role: { travels: 'role', immutable: true },
    pin_required: { travels: 'flag', immutable: true },
    // A handout station's setup code (docs/protocol.md "Handouts (project extension)", format version 7).
    station: { travels: 'station?', immutable: true },
  },
  api_keys: {
    rowid: ROWID,
    api_key_id: { travels: 'string' },
    key_hash: { travels: 'sha256', immutable: true },
    token_id: { travels: 'string', immutable: true },
    scanner_id: { travels: 'string', immutable: true },
    scanner_name: { travels: 'scanner_text?', immutable: true },
    scanner_platform: { travels: 'scanner_text?', immutable: true },
    eid: { travels: 'string', immutable: true },
    gate_id: { travels: 'label?', immutable: true },
    expires_at: { travels: 'time', immutable: true },
    created_at: { travels: 'time', immutable: true },
    revoked_at: { travels: 'time?' },
    role: { travels: 'role', immutable: true },
    // A handout station's key (docs/protocol.md "Handouts (project extension)", format version 7): it records handouts
    // and never admits, on either copy.
    station: { travels: 'station?', immutable: true },
  },
  admin_token: { singleton: LOCAL, token_hash: LOCAL, created_at: LOCAL },
  admission_events: {
    id: LOCAL,
    tid: { travels: 'string' },
    eid: { travels: 'string' },
    action: { travels: 'action' },
    // A scan's scanned_at as the scanner sent it (checked by the check-in's schema), or an annulment's time.
    at: { travels: 'time' },
    gate_id: { travels: 'label?' },
    scanner_id: { travels: 'text?' },
    api_key_id: { travels: 'text?' },
    idempotency_key: { travels: 'text?' },
    actor: { travels: 'string' },
    reason: { travels: 'text?' },
    late: { travels: 'flag' },
    admitted_offline: { travels: 'flag' },
    ticket_type: { travels: 'label?' },
    recorded_at: { travels: 'time' },
    // Who at the door: a staff badge's sid or the staff id the kiosk sent (docs/issuer.md "Staff roles and badges").
    staff_id: { travels: 'text?' },
    // docs/protocol.md "ID checks (project extension)": 'checked', 'not_checked' or NULL (format version 6).
    id_check: { travels: 'id_check_state?' },
    // docs/protocol.md "Party tickets (project extension)": the people an entry or exit counted (format version 7).
    people: { travels: 'people?' },
  },
  // Counted again by an import from the merged check-ins and admission events (docs/protocol.md "Occupancy").
  occupancy: { rowid: ROWID, eid: LOCAL, gate_id: LOCAL, shard: LOCAL, inside: LOCAL, entries: LOCAL, exits: LOCAL },
  // Check-out at a set time (docs/protocol.md "Check-out at a set time", format version 8): the setting made later
  // (`since`) stands on import; `done` is this copy's own progress (issuer/transfer/exit-all.ts).
  exit_all_settings: {
    rowid: ROWID,
    eid: { travels: 'string' },
    at: { travels: 'exit_all_at' },
    time_zone: { travels: 'time_zone' },
    since: { travels: 'time' },
    done: { travels: 'time?' },
  },
  offline_policies: {
    rowid: ROWID,
    eid: { travels: 'string' },
    ticket_type: { travels: 'label_text' },
    policy: { travels: 'offline_policy' },
    cap_per_hour: { travels: 'count?' },
    updated_at: { travels: 'time' },
  },
  scanner_heartbeats: {
    rowid: ROWID,
    api_key_id: { travels: 'string' },
    scanner_id: { travels: 'string' },
    eid: { travels: 'string' },
    direction: { travels: 'direction?' },
    pending_scans: { travels: 'int' },
    offline_exposure: { travels: 'json_counts' },
    offline_last_hour: { travels: 'json_counts' },
    reported_at: { travels: 'time' },
    clock_offset_ms: { travels: 'int?' },
  },
  scan_log_head: { singleton: LOCAL, position: LOCAL, hash: LOCAL },
  kiosk_log_heads: {
    id: LOCAL,
    api_key_id: { travels: 'string' },
    scanner_id: { travels: 'string' },
    eid: { travels: 'string' },
    position: { travels: 'int' },
    hash: { travels: 'sha256' },
    reported_at: { travels: 'time' },
    contradiction: { travels: 'text?' },
  },
  // The kiosks' staff records (docs/protocol.md "Scanner heartbeat", format version 8): a union on import, one row
  // per kiosk and record (scanner id, position, hash). A record's fields are checked whole, by the heartbeat's rule
  // (protocol/staff-actions.ts staffActionProblem), so their types here are only the columns' shapes.
  staff_actions: {
    id: LOCAL,
    api_key_id: { travels: 'string' },
    scanner_id: { travels: 'string' },
    eid: { travels: 'string' },
    position: { travels: 'int' },
    hash: { travels: 'sha256' },
    at: { travels: 'time' },
    event: { travels: 'string' },
    staff_id: { travels: 'text?' },
    name: { travels: 'text?' },
    role: { travels: 'string' },
    via: { travels: 'text?' },
    call: { travels: 'text?' },
    needs: { travels: 'text?' },
    tid: { travels: 'text?' },
    received_at: { travels: 'time' },
  },
  event_lan_keys: { rowid: ROWID, eid: { travels: 'string' }, lan_key: { travels: 'string' }, created_at: { travels: 'time' } },
  revocation_sequence: { singleton: LOCAL, last_seq: LOCAL, copy_id: LOCAL },
  // A ticket type's attention flag and note (format version 7): the later setting stands on import
  // (issuer/transfer/attention-notes.ts).
  ticket_type_notes: {
    eid: { travels: 'string', immutable: true },
    ticket_type: { travels: 'label', immutable: true },
    attention: { travels: 'flag' },
    note: { travels: 'note?' },
    updated_at: { travels: 'time' },
  },
  // A ticket type's ID check (format version 6): the later setting stands on import (issuer/transfer/id-checks.ts).
  ticket_type_id_checks: {
    eid: { travels: 'string', immutable: true },
    ticket_type: { travels: 'label', immutable: true },
    id_check: { travels: 'id_check_rule' },
    updated_at: { travels: 'time' },
  },
  // A ticket type's handout items (format version 7): the later setting stands on import (issuer/transfer/handouts.ts).
  ticket_type_handouts: {
    eid: { travels: 'string', immutable: true },
    ticket_type: { travels: 'label', immutable: true },
    items: { travels: 'handout_items' },
    updated_at: { travels: 'time' },
  },
  // Every handout recorded, given or refused (format version 7): a union by handout id on import.
  handouts: {
    hid: { travels: 'string' },
    eid: { travels: 'string', immutable: true },
    tid: { travels: 'string', immutable: true },
    item: { travels: 'handout_item', immutable: true },
    status: { travels: 'handout_status', immutable: true },
    reason: { travels: 'handout_reason?', immutable: true },
    given_at: { travels: 'time', immutable: true },
    received_at: { travels: 'time' },
    scanner_id: { travels: 'string', immutable: true },
    scanner_name: { travels: 'scanner_text', immutable: true },
    gate_id: { travels: 'label?', immutable: true },
    api_key_id: { travels: 'string', immutable: true },
    staff_id: { travels: 'text?', immutable: true },
  },
  note_sequence: { singleton: LOCAL, last_seq: LOCAL, copy_id: LOCAL },
  check_in_rules: { rowid: ROWID, eid: { travels: 'string' }, rules: { travels: 'rules_json' }, updated_at: { travels: 'time' } },
  // docs/issuer.md "Staff roles and badges": the code is signed once, so all but the revocation never changes.
  staff_badges: {
    rowid: ROWID,
    sid: { travels: 'string' },
    eid: { travels: 'string', immutable: true },
    kid: { travels: 'kid', immutable: true },
    name: { travels: 'label', immutable: true },
    role: { travels: 'role', immutable: true },
    nbf: { travels: 'int', immutable: true },
    exp: { travels: 'int', immutable: true },
    qr: { travels: 'string', immutable: true },
    issued_at: { travels: 'time', immutable: true },
    revoked_at: { travels: 'time?' },
    revoked_reason: { travels: 'text?' },
  },
  // docs/issuer.md "Webhooks": this copy's own deliveries; none of it travels (an endpoint's secret least of all).
  webhook_endpoints: {
    rowid: ROWID,
    endpoint_id: LOCAL,
    url: LOCAL,
    events: LOCAL,
    eid: LOCAL,
    secret: LOCAL,
    created_at: LOCAL,
    disabled_at: LOCAL,
  },
  webhook_messages: { seq: LOCAL, message_id: LOCAL, type: LOCAL, eid: LOCAL, payload: LOCAL, created_at: LOCAL },
  webhook_deliveries: {
    rowid: ROWID,
    message_id: LOCAL,
    endpoint_id: LOCAL,
    state: LOCAL,
    attempts: LOCAL,
    next_attempt_at: LOCAL,
    claimed_until: LOCAL,
    last_status: LOCAL,
    last_error: LOCAL,
    delivered_at: LOCAL,
  },
} as const satisfies Record<string, Record<string, Column>>;

export type Table = keyof typeof TABLE_COLUMNS;

const columnsOf = (table: Table): [string, Column][] => Object.entries(TABLE_COLUMNS[table] as Record<string, Column>);

/** The columns of `table` on one database (the migrations' schema; the order is this file's). */
export function columnsOn(dialect: 'sqlite' | 'postgres', table: Table): string[] {
  return columnsOf(table)
    .filter(([, column]) => dialect === 'postgres' || !column.postgresOnly)
    .map(([name]) => name);
}

/** The columns of `table` that travel in an export file, with their types, in the file's order. */
export function transferTypes(table: Table): Record<string, TransferType> {
  return Object.fromEntries(columnsOf(table).flatMap(([name, column]) => (column.travels ? [[name, column.travels]] : [])));
}

/** The columns of `table` that never change once written. */
export function immutableColumns(table: Table): string[] {
  return columnsOf(table)
    .filter(([, column]) => column.immutable)
    .map(([name]) => name);
}
