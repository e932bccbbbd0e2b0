/**
 * Versioned schema migrations. Each entry runs once, in order, inside a
 * transaction; `PRAGMA user_version` records how far a database has come.
 * Never edit a released migration: add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the whole first schema.
  `
  CREATE TABLE issuer (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    base_url    TEXT NOT NULL,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL
  );

  -- Public halves only: private keys live in keys/<kid>.key (mode 0600), never in the database.
  CREATE TABLE signing_keys (
    kid          TEXT PRIMARY KEY,
    public_key   TEXT NOT NULL,            -- base64url raw 32 bytes
    valid_from   TEXT NOT NULL,
    valid_until  TEXT,                     -- set when the key is retired by a rotation
    active       INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1))
  );
  CREATE UNIQUE INDEX one_active_signing_key ON signing_keys (active) WHERE active = 1;

  CREATE TABLE events (
    eid         TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    date        TEXT NOT NULL,
    venue       TEXT NOT NULL,
    ends_at     TEXT NOT NULL,
    created_at  TEXT NOT NULL
  );

  CREATE TABLE tickets (
    tid            TEXT PRIMARY KEY,
    eid            TEXT NOT NULL REFERENCES events (eid),
    kid            TEXT NOT NULL REFERENCES signing_keys (kid),
    holder_name    TEXT,
    ticket_type    TEXT,
    issued_at      TEXT NOT NULL,
    exp            INTEGER NOT NULL,        -- Unix seconds, as in the QR payload
    qr             TEXT NOT NULL,
    revoked_at     TEXT,
    revoke_reason  TEXT
  );
  CREATE INDEX tickets_by_event ON tickets (eid);
  CREATE INDEX tickets_by_kid_exp ON tickets (kid, exp);

  -- "One valid per ticket, ever" (docs/protocol.md "Precedence"): the primary key on tid
  -- makes a second first-check-in impossible, whatever the concurrency.
  CREATE TABLE checkins (
    tid              TEXT PRIMARY KEY REFERENCES tickets (tid),
    checked_in_at    TEXT NOT NULL,
    scanner_id       TEXT NOT NULL,
    gate_id          TEXT,
    api_key_id       TEXT NOT NULL,
    idempotency_key  TEXT NOT NULL,
    recorded_at      TEXT NOT NULL
  );

  -- Stored first answers, replayed byte for byte (docs/protocol.md "Idempotency and offline scans").
  CREATE TABLE idempotency (
    idempotency_key  TEXT PRIMARY KEY,
    request_hash     TEXT NOT NULL,
    http_status      INTEGER NOT NULL,
    response_body    TEXT NOT NULL,
    api_key_id       TEXT NOT NULL,
    created_at       TEXT NOT NULL
  );
  CREATE INDEX idempotency_by_age ON idempotency (created_at);

  -- Every check-in attempt and its outcome, including refusals and reported bad signatures.
  CREATE TABLE scan_log (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    at               TEXT NOT NULL,
    scanned_at       TEXT,
    tid              TEXT,
    eid              TEXT,
    scanner_id       TEXT,
    api_key_id       TEXT,
    gate_id          TEXT,
    idempotency_key  TEXT,
    outcome          TEXT NOT NULL,
    details          TEXT
  );
  CREATE INDEX scan_log_by_event ON scan_log (eid, id);

  CREATE TABLE enrollment_tokens (
    token_id         TEXT PRIMARY KEY,     -- safe to show and log
    token_hash       TEXT NOT NULL UNIQUE, -- SHA-256 of the secret token
    eid              TEXT NOT NULL REFERENCES events (eid),
    gate_id          TEXT,
    expires_at       TEXT NOT NULL,
    key_expires_at   TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    used_at          TEXT,
    revoked_at       TEXT,
    failed_attempts  INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE api_keys (
    api_key_id        TEXT PRIMARY KEY,
    key_hash          TEXT NOT NULL UNIQUE, -- SHA-256 of the secret key; the key itself is never stored
    token_id          TEXT NOT NULL REFERENCES enrollment_tokens (token_id),
    scanner_id        TEXT NOT NULL,
    scanner_name      TEXT,
    scanner_platform  TEXT,
    eid               TEXT NOT NULL REFERENCES events (eid),
    gate_id           TEXT,
    expires_at        TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    revoked_at        TEXT
  );
  `,
  // 2: the admin dashboard (docs/issuer.md "Admin dashboard").
  `
  -- The dashboard's admin token, as a SHA-256 hash only (like API keys). No row: no token set yet.
  CREATE TABLE admin_token (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    token_hash  TEXT NOT NULL,
    created_at  TEXT NOT NULL
  );

  -- Revoked tickets per event, counted on every dashboard refresh. Partial: only revoked rows are in it,
  -- so issuing tickets and checking them in never touch it.
  CREATE INDEX tickets_revoked_by_event ON tickets (eid) WHERE revoked_at IS NOT NULL;
  `,
  // 3: door operations (docs/protocol.md "Door operations"): exits and re-entry, annulment, occupancy,
  // capacity, offline exposure policies, scanner rights and heartbeats.
  `
  -- The entry policy (single: the spec's one entry; reentry: in again after an exit) and an optional capacity.
  ALTER TABLE events ADD COLUMN entry_policy TEXT NOT NULL DEFAULT 'single' CHECK (entry_policy IN ('single', 'reentry'));
  ALTER TABLE events ADD COLUMN capacity INTEGER CHECK (capacity IS NULL OR capacity > 0);

  -- checkins stays one row per ticket: the ticket's current admission. Its primary key still makes "one
  -- valid" exact; a row changes state (inside, outside after an exit, annulled) by a conditional UPDATE on
  -- \`version\`, so two writers racing on one ticket cannot both win (docs/protocol.md "Door operations").
  -- checked_in_at and gate_id are the latest entry's; first_checked_in_at the first since the last annulment.
  ALTER TABLE checkins ADD COLUMN state TEXT NOT NULL DEFAULT 'inside' CHECK (state IN ('inside', 'outside', 'annulled'));
  ALTER TABLE checkins ADD COLUMN state_at TEXT;
  ALTER TABLE checkins ADD COLUMN first_checked_in_at TEXT;
  ALTER TABLE checkins ADD COLUMN entries INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE checkins ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  UPDATE checkins SET state_at = checked_in_at, first_checked_in_at = checked_in_at;

  -- Every accepted entry, exit and annulment, never changed or deleted: the ticket's history.
  CREATE TABLE admission_events (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    tid              TEXT NOT NULL REFERENCES tickets (tid),
    eid              TEXT NOT NULL,
    action           TEXT NOT NULL CHECK (action IN ('entry', 'exit', 'annul')),
    at               TEXT NOT NULL,        -- when it happened at the door (scanned_at), or the annulment's time
    gate_id          TEXT,
    scanner_id       TEXT,
    api_key_id       TEXT,
    idempotency_key  TEXT,
    actor            TEXT NOT NULL,        -- scanner:<scanner_id>, cli, or dashboard
    reason           TEXT,
    late             INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)), -- older than the state it arrived to: history only
    admitted_offline INTEGER NOT NULL DEFAULT 0 CHECK (admitted_offline IN (0, 1)),
    ticket_type      TEXT,
    recorded_at      TEXT NOT NULL
  );
  CREATE INDEX admission_events_by_event ON admission_events (eid, id);
  CREATE INDEX admission_events_by_ticket ON admission_events (tid, id);
  INSERT INTO admission_events (tid, eid, action, at, gate_id, scanner_id, api_key_id, idempotency_key, actor, ticket_type, recorded_at)
    SELECT c.tid, t.eid, 'entry', c.checked_in_at, c.gate_id, c.scanner_id, c.api_key_id, c.idempotency_key,
           'scanner:' || c.scanner_id, t.ticket_type, c.recorded_at
    FROM checkins c JOIN tickets t ON t.tid = c.tid ORDER BY c.rowid;

  -- Live occupancy as counters kept in the check-in's own transaction, so reading it costs a handful of rows
  -- whatever the event's size. inside counts by the gate of entry; entries and exits by the gate scanned at.
  -- shard spreads one gate's counter over several rows, so concurrent writers on PostgreSQL rarely wait on one row.
  CREATE TABLE occupancy (
    eid      TEXT NOT NULL,
    gate_id  TEXT NOT NULL,               -- '' for scans without a gate
    shard    INTEGER NOT NULL,
    inside   INTEGER NOT NULL DEFAULT 0,
    entries  INTEGER NOT NULL DEFAULT 0,
    exits    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (eid, gate_id, shard)
  );
  INSERT INTO occupancy (eid, gate_id, shard, inside, entries, exits)
    SELECT t.eid, COALESCE(c.gate_id, ''), 0, count(*), count(*), 0
    FROM checkins c JOIN tickets t ON t.tid = c.tid GROUP BY t.eid, COALESCE(c.gate_id, '');

  -- Offline exposure policy per event and ticket type ('' = the event's default).
  CREATE TABLE offline_policies (
    eid           TEXT NOT NULL REFERENCES events (eid),
    ticket_type   TEXT NOT NULL,
    policy        TEXT NOT NULL CHECK (policy IN ('online-only', 'offline', 'capped')),
    cap_per_hour  INTEGER CHECK ((policy = 'capped') = (cap_per_hour IS NOT NULL) AND (cap_per_hour IS NULL OR cap_per_hour > 0)),
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );

  -- A setup code's direction and rights travel to the key it is exchanged for.
  ALTER TABLE enrollment_tokens ADD COLUMN direction TEXT CHECK (direction IS NULL OR direction IN ('entry', 'exit'));
  ALTER TABLE enrollment_tokens ADD COLUMN can_annul INTEGER NOT NULL DEFAULT 0 CHECK (can_annul IN (0, 1));
  ALTER TABLE enrollment_tokens ADD COLUMN pin_required INTEGER NOT NULL DEFAULT 0 CHECK (pin_required IN (0, 1));
  ALTER TABLE api_keys ADD COLUMN can_annul INTEGER NOT NULL DEFAULT 0 CHECK (can_annul IN (0, 1));

  -- What each scanner last said of itself (POST /api/v1/scanners/heartbeat): one row per key.
  CREATE TABLE scanner_heartbeats (
    api_key_id        TEXT PRIMARY KEY REFERENCES api_keys (api_key_id),
    scanner_id        TEXT NOT NULL,
    eid               TEXT NOT NULL,
    direction         TEXT,
    pending_scans     INTEGER NOT NULL DEFAULT 0,
    offline_exposure  TEXT NOT NULL DEFAULT '{}', -- JSON: ticket type → offline admits not yet synced
    offline_last_hour TEXT NOT NULL DEFAULT '{}', -- JSON: ticket type → offline admits in the last hour
    reported_at       TEXT NOT NULL
  );
  `,
  // 4: tamper-evident logs (docs/issuer.md "Audit: tamper-evident logs"): scan_log chained with SHA-256, the
  // chain's head, and every chain head a kiosk reported in its heartbeats.
  `
  -- position: 1, 2, 3, … in id order, no gaps; hash = SHA-256 over prev_hash and the row's fields
  -- (protocol/audit-chain.ts). origin: for a row an import re-chained, its position and hashes in the other
  -- copy's chain (JSON), else NULL. Rows from before this migration are chained right after it
  -- (issuer/store/audit-log.ts chainUnchainedRows), in id order.
  ALTER TABLE scan_log ADD COLUMN position INTEGER;
  ALTER TABLE scan_log ADD COLUMN prev_hash TEXT;
  ALTER TABLE scan_log ADD COLUMN hash TEXT;
  ALTER TABLE scan_log ADD COLUMN origin TEXT;
  CREATE UNIQUE INDEX scan_log_by_position ON scan_log (position);

  -- The chain's head: the last row's position and hash. Every append reads and moves it in its own
  -- transaction (on PostgreSQL its row lock makes concurrent appends take turns).
  CREATE TABLE scan_log_head (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    position   INTEGER NOT NULL,
    hash       TEXT NOT NULL
  );
  INSERT INTO scan_log_head (singleton, position, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

  -- Every chain head a kiosk reported (heartbeat log_head), append-only. contradiction: why this head
  -- contradicts an earlier one of the same scanner (its log was rewritten), else NULL.
  CREATE TABLE kiosk_log_heads (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    api_key_id     TEXT NOT NULL,
    scanner_id     TEXT NOT NULL,
    eid            TEXT NOT NULL,
    position       INTEGER NOT NULL,
    hash           TEXT NOT NULL,
    reported_at    TEXT NOT NULL,
    contradiction  TEXT
  );
  CREATE INDEX kiosk_log_heads_by_scanner ON kiosk_log_heads (scanner_id, id);
  `,
  // 5: kiosks on one LAN (docs/kiosk.md "Kiosks on one LAN"): each event's LAN key, made at its first
  // enrollment and given to every kiosk enrolled for it (EnrollResponse lan_key).
  `
  CREATE TABLE event_lan_keys (
    eid         TEXT PRIMARY KEY REFERENCES events (eid),
    lan_key     TEXT NOT NULL,             -- base64url, 32 random bytes: a secret, as the data dir is
    created_at  TEXT NOT NULL
  );
  `,
  // 6: revocations reach the kiosk (docs/protocol.md "Revocation list"): every revocation gets the next number of one
  // issuer-wide sequence, in the revoking transaction, so a scanner's cursor is exact under concurrency.
  `
  -- The revocation's place in the sequence; NULL for a ticket that is not revoked. Revocations are final (there is
  -- no un-revoke), so a number, once given, never changes.
  ALTER TABLE tickets ADD COLUMN revocation_seq INTEGER;
  CREATE UNIQUE INDEX tickets_by_revocation ON tickets (eid, revocation_seq) WHERE revocation_seq IS NOT NULL;

  -- The sequence: the last number given, and this copy's id (random, made here), which every cursor carries, so a
  -- cursor from another copy of the issuer (export/import) is told apart and the list is sent again from the start.
  -- Every revocation moves it in its own transaction (on PostgreSQL the row lock makes revocations take turns, so a
  -- committed number is never followed by an earlier one committing later).
  CREATE TABLE revocation_sequence (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    last_seq   INTEGER NOT NULL,
    copy_id    TEXT NOT NULL
  );
  UPDATE tickets SET revocation_seq = r.n
    FROM (SELECT tid, ROW_NUMBER() OVER (ORDER BY revoked_at, tid) AS n FROM tickets WHERE revoked_at IS NOT NULL) AS r
    WHERE tickets.tid = r.tid;
  INSERT INTO revocation_sequence (singleton, last_seq, copy_id)
    SELECT 1, COUNT(*), lower(hex(randomblob(8))) FROM tickets WHERE revoked_at IS NOT NULL;
  `,
  // 7: check-in rules (docs/protocol.md "Check-in rules"): per event, the validated rules file.
  `
  CREATE TABLE check_in_rules (
    eid         TEXT PRIMARY KEY REFERENCES events (eid),
    rules       TEXT NOT NULL,             -- JSON, as validated by protocol/check-in-rules.ts validateRules
    updated_at  TEXT NOT NULL
  );
  `,
  // 8: the LAN keys and check-in rules travel with export/import (docs/issuer.md "Moving an issuer to the venue
  // and back"). Nothing to do on SQLite (its rowid, the export's page key, is implicit); PostgreSQL gives both
  // tables the explicit rowid every other exported table has.
  `
  SELECT 1;
  `,
  // 9: trust at the door (docs/issuer.md "Staff roles and badges"): a scanner key's role replaces its annul flag,
  // staff badges, who acted on an admission, and the kiosk's clock offset.
  `
  -- The role of a setup code and of the key it is exchanged for (protocol/access.ts): the annul right was a
  -- supervisor's, no right a steward's.
  ALTER TABLE enrollment_tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'steward' CHECK (role IN ('steward', 'supervisor', 'technician'));
  UPDATE enrollment_tokens SET role = CASE WHEN can_annul = 1 THEN 'supervisor' ELSE 'steward' END;
  ALTER TABLE enrollment_tokens DROP COLUMN can_annul;
  ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'steward' CHECK (role IN ('steward', 'supervisor', 'technician'));
  UPDATE api_keys SET role = CASE WHEN can_annul = 1 THEN 'supervisor' ELSE 'steward' END;
  ALTER TABLE api_keys DROP COLUMN can_annul;

  -- Staff badges (tstaff1. codes, protocol/staff-badge.ts), one event each. nbf and exp are Unix seconds, as in the
  -- code; the code itself is kept (it is shown again, like a ticket's), signed by the key kid.
  CREATE TABLE staff_badges (
    sid             TEXT PRIMARY KEY,
    eid             TEXT NOT NULL REFERENCES events (eid),
    kid             TEXT NOT NULL REFERENCES signing_keys (kid),
    name            TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('steward', 'supervisor', 'technician')),
    nbf             INTEGER NOT NULL,
    exp             INTEGER NOT NULL,
    qr              TEXT NOT NULL,
    issued_at       TEXT NOT NULL,
    revoked_at      TEXT,
    revoked_reason  TEXT
  );
  CREATE INDEX staff_badges_by_event ON staff_badges (eid);

  -- Who at the door made an entry, exit or annulment: the staff badge's sid, or the staff id the kiosk sent.
  ALTER TABLE admission_events ADD COLUMN staff_id TEXT;

  -- Issuer time minus kiosk time, in milliseconds, as the kiosk last measured it; NULL: not reported.
  ALTER TABLE scanner_heartbeats ADD COLUMN clock_offset_ms INTEGER;
  `,
  // 10: ticket search (docs/protocol.md "Ticket search"): each ticket's holder name in the searchable form of
  // protocol/search-name.ts. Filled for the tickets already there right after this runs (SEARCH_NAME_MIGRATION).
  `
  ALTER TABLE tickets ADD COLUMN search_name TEXT;
  -- A search reads the event's names in this index, in the answer's order, without the tickets' rows: it stops at
  -- the 51st match of a common word, and reads 100,000 names faster than 100,000 rows for a rare one.
  CREATE INDEX tickets_by_search_name ON tickets (eid, search_name);
  `,
  // 11: webhooks (docs/issuer.md "Webhooks"): the endpoints, the messages (the outbox, written in the transaction of
  // the change it tells of), and each message's delivery to each endpoint subscribed when it was written.
  `
  CREATE TABLE webhook_endpoints (
    endpoint_id  TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    events       TEXT NOT NULL,   -- the event types, space-separated, or '*'
    eid          TEXT,            -- only this event's messages; NULL: every event's
    secret       TEXT NOT NULL,   -- whsec_…: signs the messages (HMAC-SHA256); shown once, never logged or exported
    created_at   TEXT NOT NULL,
    disabled_at  TEXT
  );
  CREATE TABLE webhook_messages (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id  TEXT NOT NULL UNIQUE,
    type        TEXT NOT NULL,
    eid         TEXT,
    payload     TEXT NOT NULL,     -- the body sent, whole
    created_at  TEXT NOT NULL
  );
  CREATE INDEX webhook_messages_by_time ON webhook_messages (created_at);
  CREATE TABLE webhook_deliveries (
    message_id       TEXT NOT NULL,
    endpoint_id      TEXT NOT NULL,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT NOT NULL,
    claimed_until    TEXT,          -- a serving process is sending it until then
    last_status      INTEGER,
    last_error       TEXT,
    delivered_at     TEXT,
    PRIMARY KEY (message_id, endpoint_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
  CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, state);
  `,
  // 12: attention flags and check-in notes (docs/protocol.md "Attention notes (project extension)"), per ticket
  // and per ticket type, and the change sequence that kiosks sync them by.
  `
  -- A ticket's own flag (0 or 1) and note (NULL: none), and the place of its last change in the note sequence
  -- (NULL: never had a flag or a note), which the synced list reads in order.
  ALTER TABLE tickets ADD COLUMN attention INTEGER NOT NULL DEFAULT 0 CHECK (attention IN (0, 1));
  ALTER TABLE tickets ADD COLUMN note TEXT;
  ALTER TABLE tickets ADD COLUMN note_seq INTEGER;
  CREATE UNIQUE INDEX tickets_by_note_change ON tickets (eid, note_seq) WHERE note_seq IS NOT NULL;

  -- A ticket type's rule: every ticket of the type gets its flag and its note (before the ticket's own).
  CREATE TABLE ticket_type_notes (
    eid          TEXT NOT NULL REFERENCES events (eid),
    ticket_type  TEXT NOT NULL,
    attention    INTEGER NOT NULL CHECK (attention IN (0, 1)),
    note         TEXT,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );

  -- As revocation_sequence: the last number given and this copy's id; every ticket change moves it in its own
  -- transaction, so a kiosk's cursor is exact under concurrency (docs/protocol.md "The cursor, exact under concurrency").
  CREATE TABLE note_sequence (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    last_seq   INTEGER NOT NULL,
    copy_id    TEXT NOT NULL
  );
  INSERT INTO note_sequence (singleton, last_seq, copy_id) VALUES (1, 0, lower(hex(randomblob(8))));
  `,
  // 13 (EXIT_ALL_MIGRATION): check-out at a set time (docs/protocol.md "Check-out at a set time"): per event, the daily
  // time or moment at which everyone inside is checked out, and the last moment already applied.
  `
  CREATE TABLE exit_all_settings (
    eid         TEXT PRIMARY KEY REFERENCES events (eid),
    at          TEXT NOT NULL,             -- HH:MM (daily, local to time_zone) or an RFC 3339 moment in UTC
    time_zone   TEXT NOT NULL,             -- IANA; UTC for a moment
    since       TEXT NOT NULL,             -- when it was set: earlier moments do not apply
    done        TEXT                       -- the last moment whose exits are recorded (NULL: none yet)
  );
  `,
  // 14 (STAFF_ACTIONS_MIGRATION): the kiosks' staff records, as their heartbeats carry them (docs/protocol.md
  // "Scanner heartbeat"): who unlocked, overrode, annulled or was refused at which kiosk, for the dashboard and the export.
  `
  CREATE TABLE staff_actions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    api_key_id   TEXT NOT NULL,
    scanner_id   TEXT NOT NULL,
    eid          TEXT NOT NULL,
    position     INTEGER NOT NULL,   -- the record's place in the kiosk's chained audit log
    hash         TEXT NOT NULL,      -- and its hash there
    at           TEXT NOT NULL,      -- when the kiosk wrote it (its clock)
    event        TEXT NOT NULL,      -- unlocked, staff_action, staff_refused, attention_override, …
    staff_id     TEXT,               -- who was at the kiosk (NULL: no one had unlocked it)
    name         TEXT,
    role         TEXT NOT NULL,
    via          TEXT,               -- kiosk_pin, pin or badge
    call         TEXT,               -- the staff call made or refused
    needs        TEXT,               -- the role a refused call needs
    tid          TEXT,
    received_at  TEXT NOT NULL,
    -- A heartbeat sent again stores nothing twice; a new log of the same kiosk (position 1 again, another hash) does store.
    UNIQUE (scanner_id, position, hash)
  );
  CREATE INDEX staff_actions_by_event ON staff_actions (eid, at);
  `,
  // 15 (ID_CHECK_MIGRATION): ID and age checks (docs/protocol.md "ID checks (project extension)"): a ticket's date
  // of birth (never in the QR), a ticket type's check, and whether an entry's ID was checked.
  `
  -- YYYY-MM-DD or NULL; kiosks get only the age band it gives (its changes take a number of the note sequence).
  ALTER TABLE tickets ADD COLUMN dob TEXT;

  -- A ticket type's check: 'name' or 'age:N' (a type without a row asks for none).
  CREATE TABLE ticket_type_id_checks (
    eid          TEXT NOT NULL REFERENCES events (eid),
    ticket_type  TEXT NOT NULL,
    id_check     TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );

  -- An entry of a ticket whose type asks for a check: 'checked' (the kiosk's steward confirmed, staff_id says who)
  -- or 'not_checked' (a scanner that cannot prompt); NULL: no check asked.
  ALTER TABLE admission_events ADD COLUMN id_check TEXT CHECK (id_check IS NULL OR id_check IN ('checked', 'not_checked'));
  `,
  // 16 (PARTY_MIGRATION): party tickets (docs/protocol.md "Party tickets (project extension)"): how many people a
  // ticket admits, how many of them are inside and admitted, and how many people an entry or exit counted.
  `
  -- NULL: one person (tickets from before, or issued without --party).
  ALTER TABLE tickets ADD COLUMN party INTEGER CHECK (party IS NULL OR party BETWEEN 1 AND 1000);
  -- NULL on rows written for one person: they stand for one, inside or not (protocol/party.ts countsOf).
  ALTER TABLE checkins ADD COLUMN party_inside INTEGER CHECK (party_inside IS NULL OR party_inside >= 0);
  ALTER TABLE checkins ADD COLUMN party_admitted INTEGER CHECK (party_admitted IS NULL OR party_admitted >= 0);
  -- The people an entry or exit counted; NULL: one.
  ALTER TABLE admission_events ADD COLUMN people INTEGER;
  `,
  // 17 (HANDOUTS_MIGRATION): handouts (docs/protocol.md "Handouts (project extension)"): a ticket type's items and a
  // ticket's own (JSON lists of {item, count}), and every handout a kiosk recorded, given or refused.
  `
  -- A ticket's own items (NULL: none); its changes, and every handout given, take a number of the note sequence.
  ALTER TABLE tickets ADD COLUMN handouts TEXT;

  CREATE TABLE ticket_type_handouts (
    eid          TEXT NOT NULL REFERENCES events (eid),
    ticket_type  TEXT NOT NULL,
    items        TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (eid, ticket_type)
  );

  -- One row per handout id the kiosks made: sent again, it is the same handout (the answer is read back from it).
  CREATE TABLE handouts (
    hid           TEXT PRIMARY KEY,
    eid           TEXT NOT NULL,
    tid           TEXT NOT NULL,
    item          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('given', 'refused')),
    reason        TEXT CHECK (reason IS NULL OR reason IN ('not_listed', 'already_given')),
    given_at      TEXT NOT NULL,   -- when the steward tapped (the kiosk's clock)
    received_at   TEXT NOT NULL,
    scanner_id    TEXT NOT NULL,
    scanner_name  TEXT NOT NULL,
    gate_id       TEXT,
    api_key_id    TEXT NOT NULL,
    staff_id      TEXT
  );
  CREATE INDEX handouts_by_ticket ON handouts (tid, item);
  CREATE INDEX handouts_by_event ON handouts (eid, given_at);

  -- A handout station's setup code and key (scanner setup --role handout): stored with role 'steward', whose CHECK
  -- knows only the staff roles; station says it records handouts and never admits.
  ALTER TABLE enrollment_tokens ADD COLUMN station TEXT CHECK (station IS NULL OR station = 'handout');
  ALTER TABLE api_keys ADD COLUMN station TEXT CHECK (station IS NULL OR station = 'handout');
  `,
  // 18: nothing on SQLite. PostgreSQL's 18 adds issuer_expect_one_row(), with which
  // the check-in's writes are one statement there (docs/issuer.md "The check-in on PostgreSQL: two round trips");
  // here the same writes run one by one in the write job's transaction. Kept so both stores count the same versions.
  `
  -- nothing to change on SQLite
  `,
  // 19: nothing on SQLite, which walks tickets_by_search_name in order and stops at the page (store/ticket-search.ts).
  // PostgreSQL's 19 gives its search an index it can walk the same way without reading the table
  // (docs/protocol.md "Ticket search"). Kept so both stores count the same versions.
  `
  -- nothing to change on SQLite
  `,
];

/** The migration that added party tickets (tickets.party, checkins.party_*); its number moves if migrations merge before it. */
export const PARTY_MIGRATION = 16;

/** The migration that added handouts (tickets.handouts, ticket_type_handouts, handouts); its number moves if migrations merge before it. */
export const HANDOUTS_MIGRATION = 17;

/** The migration that added the kiosks' staff records (staff_actions); its number moves if migrations merge before it. */
export const STAFF_ACTIONS_MIGRATION = 14;

/** The migration that added ID and age checks (dob, ticket_type_id_checks, admission_events.id_check). */
export const ID_CHECK_MIGRATION = 15;

/** The migration that added attention flags and notes (a named constant, so a merge renumbers it in one place). */
export const ATTENTION_NOTES_MIGRATION = 12;

/** The migration that added check-out at a set time (exit_all_settings); its number moves if migrations merge before it. */
export const EXIT_ALL_MIGRATION = 13;

/** The migration that added tickets.search_name: the tickets from before it get theirs right after it runs. */
export const SEARCH_NAME_MIGRATION = 10;

/** The migration that made scan_log a hash chain: rows from before it are chained right after it runs. */
export const CHAIN_MIGRATION = 4;
