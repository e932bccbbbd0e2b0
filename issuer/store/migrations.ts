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

  -- Stored first answers, replayed byte for byte (spec "Idempotency summary").
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
];
