/**
 * The schema on PostgreSQL (docs/issuer.md "Where the database is"): the same
 * migrations as migrations.ts, entry for entry, translated. Entry N here means
 * what entry N there means, so a database's version number says the same on
 * both stores. Never edit a released migration: add a new one on both sides.
 *
 * The translation keeps the SQL the issuer runs portable (sql.ts):
 * - Timestamps stay ISO-8601 TEXT, compared as strings as on SQLite. Every
 *   TEXT column is COLLATE "C": SQLite compares TEXT byte by byte (BINARY),
 *   PostgreSQL by the database's collation, and under a locale such as
 *   en_US '-', ':' and '.' are ignored at first, so '…:05Z' and '…:05.120Z'
 *   would not sort as on SQLite, nor would ULIDs in ORDER BY. "C" is byte
 *   order whatever locale the database was created with.
 * - Unix seconds (tickets.exp) are BIGINT; small counters and flags stay INTEGER.
 *   Both come back as JavaScript numbers (postgres-database.ts).
 * - scan_log.id, SQLite's INTEGER PRIMARY KEY AUTOINCREMENT, is an identity
 *   column: ever-increasing, never reused.
 * - CHECK constraints, foreign keys and partial indexes are kept as they are.
 *
 * The version lives in `schema_version` (SQLite has `PRAGMA user_version`),
 * a one-row table created by migratePostgres itself, outside the entries.
 */
import { chainUnchainedRows } from './audit-log.js';
import { CHAIN_MIGRATION, SEARCH_NAME_MIGRATION } from './migrations.js';
import { fillSearchNames } from './tickets.js';
import { schemaTooNew } from './schema-version.js';
import type { Sql, SqlDatabase } from './sql.js';

export const POSTGRES_MIGRATIONS: readonly string[] = [
  // 1: the whole first schema.
  `
  -- Every table but issuer and scan_log (whose id is its own) has rowid: SQLite's implicit row number, made
  -- explicit, so the dashboard's "rows added since" reads (issuer/store/dashboard.ts) and the export's
  -- insertion order (issuer/transfer/store.ts) run unchanged on both databases.
  CREATE TABLE issuer (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    base_url    TEXT COLLATE "C" NOT NULL,
    name        TEXT COLLATE "C" NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL
  );

  -- Public halves only: private keys live in keys/<kid>.key (mode 0600), never in the database.
  CREATE TABLE signing_keys (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    kid          TEXT COLLATE "C" PRIMARY KEY,
    public_key   TEXT COLLATE "C" NOT NULL,  -- base64url raw 32 bytes
    valid_from   TEXT COLLATE "C" NOT NULL,
    valid_until  TEXT COLLATE "C",           -- set when the key is retired by a rotation
    active       INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1))
  );
  CREATE UNIQUE INDEX one_active_signing_key ON signing_keys (active) WHERE active = 1;

  CREATE TABLE events (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    eid         TEXT COLLATE "C" PRIMARY KEY,
    name        TEXT COLLATE "C" NOT NULL,
    date        TEXT COLLATE "C" NOT NULL,
    venue       TEXT COLLATE "C" NOT NULL,
    ends_at     TEXT COLLATE "C" NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL
  );

  CREATE TABLE tickets (
    rowid          BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    tid            TEXT COLLATE "C" PRIMARY KEY,
    eid            TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    kid            TEXT COLLATE "C" NOT NULL REFERENCES signing_keys (kid),
    holder_name    TEXT COLLATE "C",
    ticket_type    TEXT COLLATE "C",
    issued_at      TEXT COLLATE "C" NOT NULL,
    exp            BIGINT NOT NULL,         -- Unix seconds, as in the QR payload
    qr             TEXT COLLATE "C" NOT NULL,
    revoked_at     TEXT COLLATE "C",
    revoke_reason  TEXT COLLATE "C"
  );
  CREATE INDEX tickets_by_event ON tickets (eid);
  CREATE INDEX tickets_by_kid_exp ON tickets (kid, exp);

  -- "One valid per ticket, ever" (docs/protocol.md "Precedence"): the primary key on tid
  -- makes a second first-check-in impossible, whatever the concurrency, across serving processes too.
  CREATE TABLE checkins (
    rowid            BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    tid              TEXT COLLATE "C" PRIMARY KEY REFERENCES tickets (tid),
    checked_in_at    TEXT COLLATE "C" NOT NULL,
    scanner_id       TEXT COLLATE "C" NOT NULL,
    gate_id          TEXT COLLATE "C",
    api_key_id       TEXT COLLATE "C" NOT NULL,
    idempotency_key  TEXT COLLATE "C" NOT NULL,
    recorded_at      TEXT COLLATE "C" NOT NULL
  );

  -- Stored first answers, replayed byte for byte (docs/protocol.md "Idempotency and offline scans").
  CREATE TABLE idempotency (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    idempotency_key  TEXT COLLATE "C" PRIMARY KEY,
    request_hash     TEXT COLLATE "C" NOT NULL,
    http_status      INTEGER NOT NULL,
    response_body    TEXT COLLATE "C" NOT NULL,
    api_key_id       TEXT COLLATE "C" NOT NULL,
    created_at       TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX idempotency_by_age ON idempotency (created_at);

  -- Every check-in attempt and its outcome, including refusals and reported bad signatures.
  CREATE TABLE scan_log (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at               TEXT COLLATE "C" NOT NULL,
    scanned_at       TEXT COLLATE "C",
    tid              TEXT COLLATE "C",
    eid              TEXT COLLATE "C",
    scanner_id       TEXT COLLATE "C",
    api_key_id       TEXT COLLATE "C",
    gate_id          TEXT COLLATE "C",
    idempotency_key  TEXT COLLATE "C",
    outcome          TEXT COLLATE "C" NOT NULL,
    details          TEXT COLLATE "C"
  );
  CREATE INDEX scan_log_by_event ON scan_log (eid, id);

  CREATE TABLE enrollment_tokens (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    token_id         TEXT COLLATE "C" PRIMARY KEY,     -- safe to show and log
    token_hash       TEXT COLLATE "C" NOT NULL UNIQUE, -- SHA-256 of the secret token
    eid              TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    gate_id          TEXT COLLATE "C",
    expires_at       TEXT COLLATE "C" NOT NULL,
    key_expires_at   TEXT COLLATE "C" NOT NULL,
    created_at       TEXT COLLATE "C" NOT NULL,
    used_at          TEXT COLLATE "C",
    revoked_at       TEXT COLLATE "C",
    failed_attempts  INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE api_keys (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    api_key_id        TEXT COLLATE "C" PRIMARY KEY,
    key_hash          TEXT COLLATE "C" NOT NULL UNIQUE, -- SHA-256 of the secret key; the key itself is never stored
    token_id          TEXT COLLATE "C" NOT NULL REFERENCES enrollment_tokens (token_id),
    scanner_id        TEXT COLLATE "C" NOT NULL,
    scanner_name      TEXT COLLATE "C",
    scanner_platform  TEXT COLLATE "C",
    eid               TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    gate_id           TEXT COLLATE "C",
    expires_at        TEXT COLLATE "C" NOT NULL,
    created_at        TEXT COLLATE "C" NOT NULL,
    revoked_at        TEXT COLLATE "C"
  );
  `,
  // 2: the admin dashboard (docs/issuer.md "Admin dashboard").
  `
  -- The dashboard's admin token, as a SHA-256 hash only (like API keys). No row: no token set yet.
  CREATE TABLE admin_token (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    token_hash  TEXT COLLATE "C" NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL
  );

  -- Revoked tickets per event, counted on every dashboard refresh. Partial: only revoked rows are in it,
  -- so issuing tickets and checking them in never touch it.
  CREATE INDEX tickets_revoked_by_event ON tickets (eid) WHERE revoked_at IS NOT NULL;
  `,
  // 3: door operations (docs/protocol.md "Door operations"), as migration 3 of migrations.ts.
  `
  ALTER TABLE events ADD COLUMN entry_policy TEXT COLLATE "C" NOT NULL DEFAULT 'single' CHECK (entry_policy IN ('single', 'reentry'));
  ALTER TABLE events ADD COLUMN capacity INTEGER CHECK (capacity IS NULL OR capacity > 0);

  ALTER TABLE checkins ADD COLUMN state TEXT COLLATE "C" NOT NULL DEFAULT 'inside' CHECK (state IN ('inside', 'outside', 'annulled'));
  ALTER TABLE checkins ADD COLUMN state_at TEXT COLLATE "C";
  ALTER TABLE checkins ADD COLUMN first_checked_in_at TEXT COLLATE "C";
  ALTER TABLE checkins ADD COLUMN entries INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE checkins ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  UPDATE checkins SET state_at = checked_in_at, first_checked_in_at = checked_in_at;

  CREATE TABLE admission_events (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tid              TEXT COLLATE "C" NOT NULL REFERENCES tickets (tid),
    eid              TEXT COLLATE "C" NOT NULL,
    action           TEXT COLLATE "C" NOT NULL CHECK (action IN ('entry', 'exit', 'annul')),
    at               TEXT COLLATE "C" NOT NULL,
    gate_id          TEXT COLLATE "C",
    scanner_id       TEXT COLLATE "C",
    api_key_id       TEXT COLLATE "C",
    idempotency_key  TEXT COLLATE "C",
    actor            TEXT COLLATE "C" NOT NULL,
    reason           TEXT COLLATE "C",
    late             INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
    admitted_offline INTEGER NOT NULL DEFAULT 0 CHECK (admitted_offline IN (0, 1)),
    ticket_type      TEXT COLLATE "C",
    recorded_at      TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX admission_events_by_event ON admission_events (eid, id);
  CREATE INDEX admission_events_by_ticket ON admission_events (tid, id);
  INSERT INTO admission_events (tid, eid, action, at, gate_id, scanner_id, api_key_id, idempotency_key, actor, ticket_type, recorded_at)
    SELECT c.tid, t.eid, 'entry', c.checked_in_at, c.gate_id, c.scanner_id, c.api_key_id, c.idempotency_key,
           'scanner:' || c.scanner_id, t.ticket_type, c.recorded_at
    FROM checkins c JOIN tickets t ON t.tid = c.tid ORDER BY c.rowid;

  CREATE TABLE occupancy (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    eid      TEXT COLLATE "C" NOT NULL,
    gate_id  TEXT COLLATE "C" NOT NULL,
    shard    INTEGER NOT NULL,
    inside   INTEGER NOT NULL DEFAULT 0,
    entries  INTEGER NOT NULL DEFAULT 0,
    exits    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (eid, gate_id, shard)
  );
  INSERT INTO occupancy (eid, gate_id, shard, inside, entries, exits)
    SELECT t.eid, COALESCE(c.gate_id, ''), 0, count(*), count(*), 0
    FROM checkins c JOIN tickets t ON t.tid = c.tid GROUP BY t.eid, COALESCE(c.gate_id, '');

  CREATE TABLE offline_policies (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    eid           TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    ticket_type   TEXT COLLATE "C" NOT NULL,
    policy        TEXT COLLATE "C" NOT NULL CHECK (policy IN ('online-only', 'offline', 'capped')),
    cap_per_hour  INTEGER CHECK ((policy = 'capped') = (cap_per_hour IS NOT NULL) AND (cap_per_hour IS NULL OR cap_per_hour > 0)),
    updated_at    TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );

  ALTER TABLE enrollment_tokens ADD COLUMN direction TEXT COLLATE "C" CHECK (direction IS NULL OR direction IN ('entry', 'exit'));
  ALTER TABLE enrollment_tokens ADD COLUMN can_annul INTEGER NOT NULL DEFAULT 0 CHECK (can_annul IN (0, 1));
  ALTER TABLE enrollment_tokens ADD COLUMN pin_required INTEGER NOT NULL DEFAULT 0 CHECK (pin_required IN (0, 1));
  ALTER TABLE api_keys ADD COLUMN can_annul INTEGER NOT NULL DEFAULT 0 CHECK (can_annul IN (0, 1));

  CREATE TABLE scanner_heartbeats (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    api_key_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES api_keys (api_key_id),
    scanner_id        TEXT COLLATE "C" NOT NULL,
    eid               TEXT COLLATE "C" NOT NULL,
    direction         TEXT COLLATE "C",
    pending_scans     INTEGER NOT NULL DEFAULT 0,
    offline_exposure  TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    offline_last_hour TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    reported_at       TEXT COLLATE "C" NOT NULL
  );
  `,
  // 4: tamper-evident logs, as migration 4 of migrations.ts.
  `
  ALTER TABLE scan_log ADD COLUMN position BIGINT;
  ALTER TABLE scan_log ADD COLUMN prev_hash TEXT COLLATE "C";
  ALTER TABLE scan_log ADD COLUMN hash TEXT COLLATE "C";
  ALTER TABLE scan_log ADD COLUMN origin TEXT COLLATE "C";
  CREATE UNIQUE INDEX scan_log_by_position ON scan_log (position);

  CREATE TABLE scan_log_head (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    position   BIGINT NOT NULL,
    hash       TEXT COLLATE "C" NOT NULL
  );
  INSERT INTO scan_log_head (singleton, position, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

  CREATE TABLE kiosk_log_heads (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    api_key_id     TEXT COLLATE "C" NOT NULL,
    scanner_id     TEXT COLLATE "C" NOT NULL,
    eid            TEXT COLLATE "C" NOT NULL,
    position       BIGINT NOT NULL,
    hash           TEXT COLLATE "C" NOT NULL,
    reported_at    TEXT COLLATE "C" NOT NULL,
    contradiction  TEXT COLLATE "C"
  );
  CREATE INDEX kiosk_log_heads_by_scanner ON kiosk_log_heads (scanner_id, id);
  `,
  // 5: kiosks on one LAN, as migration 5 of migrations.ts.
  `
  CREATE TABLE event_lan_keys (
    eid         TEXT COLLATE "C" PRIMARY KEY REFERENCES events (eid),
    lan_key     TEXT COLLATE "C" NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL
  );
  `,
  // 6: the revocation sequence, as migration 6 of migrations.ts.
  `
  ALTER TABLE tickets ADD COLUMN revocation_seq BIGINT;
  CREATE UNIQUE INDEX tickets_by_revocation ON tickets (eid, revocation_seq) WHERE revocation_seq IS NOT NULL;

  CREATE TABLE revocation_sequence (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    last_seq   BIGINT NOT NULL,
    copy_id    TEXT COLLATE "C" NOT NULL
  );
  UPDATE tickets SET revocation_seq = r.n
    FROM (SELECT tid, ROW_NUMBER() OVER (ORDER BY revoked_at, tid) AS n FROM tickets WHERE revoked_at IS NOT NULL) AS r
    WHERE tickets.tid = r.tid;
  INSERT INTO revocation_sequence (singleton, last_seq, copy_id)
    SELECT 1, COUNT(*), substr(md5(random()::text || clock_timestamp()::text), 1, 16) FROM tickets WHERE revoked_at IS NOT NULL;
  `,
  // 7: check-in rules, as migration 7 of migrations.ts.
  `
  CREATE TABLE check_in_rules (
    eid         TEXT COLLATE "C" PRIMARY KEY REFERENCES events (eid),
    rules       TEXT COLLATE "C" NOT NULL,
    updated_at  TEXT COLLATE "C" NOT NULL
  );
  `,
  // 8: as migration 8 of migrations.ts: the explicit rowid the export pages by.
  `
  ALTER TABLE event_lan_keys ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE;
  ALTER TABLE check_in_rules ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE;
  `,
  // 9: trust at the door, as migration 9 of migrations.ts (staff_badges with the explicit rowid).
  `
  ALTER TABLE enrollment_tokens ADD COLUMN role TEXT COLLATE "C" NOT NULL DEFAULT 'steward' CHECK (role IN ('steward', 'supervisor', 'technician'));
  UPDATE enrollment_tokens SET role = CASE WHEN can_annul = 1 THEN 'supervisor' ELSE 'steward' END;
  ALTER TABLE enrollment_tokens DROP COLUMN can_annul;
  ALTER TABLE api_keys ADD COLUMN role TEXT COLLATE "C" NOT NULL DEFAULT 'steward' CHECK (role IN ('steward', 'supervisor', 'technician'));
  UPDATE api_keys SET role = CASE WHEN can_annul = 1 THEN 'supervisor' ELSE 'steward' END;
  ALTER TABLE api_keys DROP COLUMN can_annul;

  CREATE TABLE staff_badges (
    rowid           BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    sid             TEXT COLLATE "C" PRIMARY KEY,
    eid             TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    kid             TEXT COLLATE "C" NOT NULL REFERENCES signing_keys (kid),
    name            TEXT COLLATE "C" NOT NULL,
    role            TEXT COLLATE "C" NOT NULL CHECK (role IN ('steward', 'supervisor', 'technician')),
    nbf             BIGINT NOT NULL,
    exp             BIGINT NOT NULL,
    qr              TEXT COLLATE "C" NOT NULL,
    issued_at       TEXT COLLATE "C" NOT NULL,
    revoked_at      TEXT COLLATE "C",
    revoked_reason  TEXT COLLATE "C"
  );
  CREATE INDEX staff_badges_by_event ON staff_badges (eid);

  ALTER TABLE admission_events ADD COLUMN staff_id TEXT COLLATE "C";
  ALTER TABLE scanner_heartbeats ADD COLUMN clock_offset_ms BIGINT;
  `,
  // 10: ticket search, as migration 10 of migrations.ts (filled right after it runs).
  `
  ALTER TABLE tickets ADD COLUMN search_name TEXT COLLATE "C";
  CREATE INDEX tickets_by_search_name ON tickets (eid, search_name);
  `,
  // 11: webhooks, as migration 11 of migrations.ts.
  `
  CREATE TABLE webhook_endpoints (
    rowid        BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    endpoint_id  TEXT COLLATE "C" PRIMARY KEY,
    url          TEXT COLLATE "C" NOT NULL,
    events       TEXT COLLATE "C" NOT NULL,
    eid          TEXT COLLATE "C",
    secret       TEXT COLLATE "C" NOT NULL,
    created_at   TEXT COLLATE "C" NOT NULL,
    disabled_at  TEXT COLLATE "C"
  );
  CREATE TABLE webhook_messages (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id  TEXT COLLATE "C" NOT NULL UNIQUE,
    type        TEXT COLLATE "C" NOT NULL,
    eid         TEXT COLLATE "C",
    payload     TEXT COLLATE "C" NOT NULL,
    created_at  TEXT COLLATE "C" NOT NULL
  );
  CREATE INDEX webhook_messages_by_time ON webhook_messages (created_at);
  CREATE TABLE webhook_deliveries (
    rowid            BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    message_id       TEXT COLLATE "C" NOT NULL,
    endpoint_id      TEXT COLLATE "C" NOT NULL,
    state            TEXT COLLATE "C" NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT COLLATE "C" NOT NULL,
    claimed_until    TEXT COLLATE "C",
    last_status      INTEGER,
    last_error       TEXT COLLATE "C",
    delivered_at     TEXT COLLATE "C",
    PRIMARY KEY (message_id, endpoint_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
  CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, state);
  `,
  // 12: attention flags and check-in notes, as migration 12 of migrations.ts (ATTENTION_NOTES_MIGRATION).
  `
  ALTER TABLE tickets ADD COLUMN attention INTEGER NOT NULL DEFAULT 0 CHECK (attention IN (0, 1));
  ALTER TABLE tickets ADD COLUMN note TEXT COLLATE "C";
  ALTER TABLE tickets ADD COLUMN note_seq BIGINT;
  CREATE UNIQUE INDEX tickets_by_note_change ON tickets (eid, note_seq) WHERE note_seq IS NOT NULL;

  CREATE TABLE ticket_type_notes (
    eid          TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    ticket_type  TEXT COLLATE "C" NOT NULL,
    attention    INTEGER NOT NULL CHECK (attention IN (0, 1)),
    note         TEXT COLLATE "C",
    updated_at   TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );

  CREATE TABLE note_sequence (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    last_seq   BIGINT NOT NULL,
    copy_id    TEXT COLLATE "C" NOT NULL
  );
  INSERT INTO note_sequence (singleton, last_seq, copy_id) VALUES (1, 0, substr(md5(random()::text || clock_timestamp()::text), 1, 16));
  `,
  // 13: check-out at a set time, as migration 13 of migrations.ts (EXIT_ALL_MIGRATION).
  `
  CREATE TABLE exit_all_settings (
    rowid       BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    eid         TEXT COLLATE "C" PRIMARY KEY REFERENCES events (eid),
    at          TEXT NOT NULL,
    time_zone   TEXT NOT NULL,
    since       TEXT NOT NULL,
    done        TEXT
  );
  `,
  // 14: the kiosks' staff records, as migration 14 of migrations.ts (STAFF_ACTIONS_MIGRATION).
  `
  CREATE TABLE staff_actions (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    api_key_id   TEXT COLLATE "C" NOT NULL,
    scanner_id   TEXT COLLATE "C" NOT NULL,
    eid          TEXT COLLATE "C" NOT NULL,
    position     BIGINT NOT NULL,
    hash         TEXT COLLATE "C" NOT NULL,
    at           TEXT COLLATE "C" NOT NULL,
    event        TEXT COLLATE "C" NOT NULL,
    staff_id     TEXT COLLATE "C",
    name         TEXT COLLATE "C",
    role         TEXT COLLATE "C" NOT NULL,
    via          TEXT COLLATE "C",
    call         TEXT COLLATE "C",
    needs        TEXT COLLATE "C",
    tid          TEXT COLLATE "C",
    received_at  TEXT COLLATE "C" NOT NULL,
    UNIQUE (scanner_id, position, hash)
  );
  CREATE INDEX staff_actions_by_event ON staff_actions (eid, at);
  `,
  // 15: ID and age checks, as migration 15 of migrations.ts (ID_CHECK_MIGRATION).
  `
  ALTER TABLE tickets ADD COLUMN dob TEXT COLLATE "C";
  CREATE TABLE ticket_type_id_checks (
    eid          TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    ticket_type  TEXT COLLATE "C" NOT NULL,
    id_check     TEXT COLLATE "C" NOT NULL,
    updated_at   TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );
  ALTER TABLE admission_events ADD COLUMN id_check TEXT CHECK (id_check IS NULL OR id_check IN ('checked', 'not_checked'));
  `,
  // 16: party tickets, as migration 16 of migrations.ts (PARTY_MIGRATION).
  `
  ALTER TABLE tickets ADD COLUMN party INTEGER CHECK (party IS NULL OR party BETWEEN 1 AND 1000);
  ALTER TABLE checkins ADD COLUMN party_inside INTEGER CHECK (party_inside IS NULL OR party_inside >= 0);
  ALTER TABLE checkins ADD COLUMN party_admitted INTEGER CHECK (party_admitted IS NULL OR party_admitted >= 0);
  ALTER TABLE admission_events ADD COLUMN people INTEGER;
  `,
  // 17: handouts, as migration 17 of migrations.ts (HANDOUTS_MIGRATION).
  `
  ALTER TABLE tickets ADD COLUMN handouts TEXT COLLATE "C";
  CREATE TABLE ticket_type_handouts (
    eid          TEXT COLLATE "C" NOT NULL REFERENCES events (eid),
    ticket_type  TEXT COLLATE "C" NOT NULL,
    items        TEXT COLLATE "C" NOT NULL,
    updated_at   TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );
  CREATE TABLE handouts (
    hid           TEXT COLLATE "C" PRIMARY KEY,
    eid           TEXT COLLATE "C" NOT NULL,
    tid           TEXT COLLATE "C" NOT NULL,
    item          TEXT COLLATE "C" NOT NULL,
    status        TEXT COLLATE "C" NOT NULL CHECK (status IN ('given', 'refused')),
    reason        TEXT COLLATE "C" CHECK (reason IS NULL OR reason IN ('not_listed', 'already_given')),
    given_at      TEXT COLLATE "C" NOT NULL,
    received_at   TEXT COLLATE "C" NOT NULL,
    scanner_id    TEXT COLLATE "C" NOT NULL,
    scanner_name  TEXT COLLATE "C" NOT NULL,
    gate_id       TEXT COLLATE "C",
    api_key_id    TEXT COLLATE "C" NOT NULL,
    staff_id      TEXT COLLATE "C"
  );
  CREATE INDEX handouts_by_ticket ON handouts (tid, item);
  CREATE INDEX handouts_by_event ON handouts (eid, given_at);
  ALTER TABLE enrollment_tokens ADD COLUMN station TEXT COLLATE "C" CHECK (station IS NULL OR station = 'handout');
  ALTER TABLE api_keys ADD COLUMN station TEXT COLLATE "C" CHECK (station IS NULL OR station = 'handout');
  `,
  // 18: the check-in's writes in one statement (docs/issuer.md "The check-in on PostgreSQL: two round trips";
  // store/write-batch.ts): a compare-and-set of the statement that changed no row makes the whole statement fail
  // with serialization_failure, so none of its writes stays and the job runs again. It only asserts: what to write
  // is decided in TypeScript. SQLite's migration 18 is empty (its runner throws WriteConflict itself).
  `
  CREATE FUNCTION issuer_expect_one_row(changed BIGINT, what TEXT) RETURNS BIGINT
  LANGUAGE plpgsql AS $fn$
  BEGIN
    IF changed IS DISTINCT FROM 1 THEN
      RAISE EXCEPTION 'concurrent change: %', what USING ERRCODE = '40001';
    END IF;
    RETURN changed;
  END
  $fn$;
  `,
  // 19: the ticket search's own index (docs/protocol.md "Ticket search"; store/ticket-search.ts): the event, the
  // searchable name in the search's order (no name first) and the tid, so the search finds a page's tids in the
  // index alone (an index-only scan: a common word stops at the page; nothing of the table is read but the page's
  // rows). It replaces migration 10's (eid, search_name), a prefix of it.
  `
  DROP INDEX tickets_by_search_name;
  CREATE INDEX tickets_by_search_name ON tickets (eid, search_name NULLS FIRST, tid);
  `,
];

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

/**
 * The key of the transaction-scoped advisory lock that migrations hold, so
 * that two processes migrating one database at once apply each migration once:
 * the second waits, then reads the version the first committed. Any fixed
 * number works; this one is "tktmig" in ASCII, unlikely to be someone else's.
 * Advisory locks are per database, so other databases on the server are not affected.
 */
const MIGRATION_LOCK_KEY = 0x746b746d6967;

export interface PostgresMigration {
  /** The schema version before and after; equal when there was nothing to do. */
  from: number;
  to: number;
}

/**
 * The schema version of the database `sql` reaches: 0 for a database this
 * program never migrated (no schema_version table). Takes any `Sql`, the
 * database's `read` or a write job's `tx`.
 */
export async function postgresSchemaVersion(sql: Sql): Promise<number> {
  // Asked of pg_class (no error when it is missing: an error would abort a write transaction), and not with
  // to_regclass(): that looks the name up without a lock, through a per-connection cache that need not have
  // heard yet of a table another process created while this one waited for the migration lock (seen in the
  // concurrent-migration test: the waiter read version 0 and ran migration 1 again).
  const table = await sql.get<{ found: number }>(
    `SELECT count(*) AS found FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relname = 'schema_version' AND n.nspname = current_schema()`,
  );
  if (!table?.found) return 0;
  const row = await sql.get<{ version: number }>('SELECT version FROM schema_version WHERE singleton = 1');
  return row?.version ?? 0;
}

/**
 * Applies the pending migrations to the PostgreSQL database behind `db` (the
 * port, from openPostgresDatabase), all in one transaction: either every
 * pending migration is stored with its version, or none. A database newer
 * than this program is refused untouched with SCHEMA_TOO_NEW, as on SQLite
 * (database.ts migrate()).
 */
export async function migratePostgres(db: SqlDatabase): Promise<PostgresMigration> {
  if (db.dialect !== 'postgres') throw new Error('migratePostgres needs a PostgreSQL database (migrate() in database.ts is for SQLite)');
  // Up to date, the common case on every start: no lock taken, nothing written.
  const current = await postgresSchemaVersion(db.read);
  if (current > POSTGRES_SCHEMA_VERSION) throw schemaTooNew(current, POSTGRES_SCHEMA_VERSION);
  if (current === POSTGRES_SCHEMA_VERSION) return { from: current, to: current };
  return db.write(async (tx) => {
    // Held until this transaction ends. The version is read again inside, so the process that waited
    // reports what it found after the other's commit and applies nothing twice.
    await tx.get(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}) AS locked`);
    const from = await postgresSchemaVersion(tx);
    if (from > POSTGRES_SCHEMA_VERSION) throw schemaTooNew(from, POSTGRES_SCHEMA_VERSION);
    if (from === POSTGRES_SCHEMA_VERSION) return { from, to: from };
    await tx.run(
      'CREATE TABLE IF NOT EXISTS schema_version (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version INTEGER NOT NULL)',
    );
    for (let version = from; version < POSTGRES_SCHEMA_VERSION; version++) {
      await tx.run(POSTGRES_MIGRATIONS[version]!);
      if (version + 1 === CHAIN_MIGRATION) await chainUnchainedRows(tx);
      if (version + 1 === SEARCH_NAME_MIGRATION) await fillSearchNames(tx);
      await tx.run(
        'INSERT INTO schema_version (singleton, version) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version',
        [version + 1],
      );
    }
    return { from, to: await postgresSchemaVersion(tx) };
  });
}
