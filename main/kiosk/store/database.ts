/**
 * Opening kiosk.db: its file mode, its pragmas, its schema and migrations, and the one cache of prepared
 * statements every section of the store runs its SQL through (docs/kiosk.md "Where the kiosk keeps its data").
 *
 * WAL + synchronous=FULL: a committed transaction survives power loss, not only a process crash.
 *
 * The tables and who writes them: scans (scans.ts, queue.ts, lan.ts read them), settings (settings.ts),
 * discovery (discovery-cache.ts), revoked_tickets (revocations.ts), read_log (read-log.ts), audit_log
 * (audit-log.ts), the notes list's list_blocks (listed-tickets.ts, notes.ts).
 */
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrateToListBlocks, migrateToListedTickets } from './list-migrations.js';

/** Ordered, append-only: migration N brings the file from user_version N to N+1 (SQL, or a function for rows SQL cannot convert). */
const MIGRATIONS: ReadonlyArray<string | ((db: Database.Database) => void)> = [
  `
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE discovery (
    iss TEXT PRIMARY KEY,
    document TEXT NOT NULL,
    fetched_at INTEGER NOT NULL
  );
  CREATE TABLE scans (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    idempotency_key TEXT NOT NULL UNIQUE,
    code TEXT NOT NULL,
    iss TEXT NOT NULL,
    tid TEXT NOT NULL,
    eid TEXT NOT NULL,
    gate_id TEXT,
    scanner_id TEXT NOT NULL,
    scanned_at TEXT NOT NULL,
    signature_status TEXT NOT NULL CHECK (signature_status IN ('valid', 'invalid')),
    queue_state TEXT NOT NULL CHECK (queue_state IN ('sending', 'pending', 'held', 'done', 'failed')),
    verdict TEXT,
    admitted_at TEXT,
    admitted_offline INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    result_status TEXT,
    result TEXT,
    answered_at TEXT
  );
  CREATE INDEX scans_queue ON scans (queue_state, next_attempt_at, seq);
  CREATE INDEX scans_tid ON scans (tid);
  `,
  // Door operations (docs/kiosk.md "Exit scans", "Annul at the door", "Offline exposure policy"): what
  // each scan is, why an annulment, the ticket's type (offline admissions are counted per type), and
  // whether its request says the kiosk already decided offline. Rows from before keep NULL `action`
  // and are sent as they were first sent (the issuer's idempotency compares the whole body).
  `
  ALTER TABLE scans ADD COLUMN action TEXT CHECK (action IN ('entry', 'exit', 'annul'));
  ALTER TABLE scans ADD COLUMN reason TEXT;
  ALTER TABLE scans ADD COLUMN ticket_type TEXT;
  ALTER TABLE scans ADD COLUMN sent_as_offline INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX scans_offline_admissions ON scans (admitted_at) WHERE admitted_offline = 1;
  `,
  // The revocation list (docs/kiosk.md "Revocation list"): the enrolled event's revoked tickets as the issuer's
  // revocation endpoint sent them, so a revoked ticket is refused offline. Only the tids: 100,000 of them take
  // about 3 MB. Its cursor and the time of the last good sync are in settings (\`revocations\`). The conflict
  // report lists offline admissions the issuer answered \`already_used\` or \`revoked\`.
  `
  CREATE TABLE revoked_tickets (tid TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE INDEX scans_conflicts ON scans (seq) WHERE admitted_offline = 1 AND result_status IN ('already_used', 'revoked');
  `,
  // Who at the door (docs/kiosk.md "Staff badges"): an annulment keeps the staff id of whoever made it and the badge
  // that unlocked them, so the request sent again from the queue is the same request (the issuer's idempotency
  // compares the whole body).
  `
  ALTER TABLE scans ADD COLUMN staff_id TEXT;
  ALTER TABLE scans ADD COLUMN staff_badge TEXT;
  `,
  // Attention notes (docs/kiosk.md "Attention notes"): the synced list of the enrolled event, so an ADMIT decided
  // offline shows the notes the issuer would have sent. A ticket's row only while it has a flag or a note; the type
  // rules whole; the list's owner, cursor and last good sync in one row. Self-contained: one migration.
  `
  CREATE TABLE attention_tickets (tid TEXT PRIMARY KEY, attention INTEGER NOT NULL, note TEXT) WITHOUT ROWID;
  CREATE TABLE attention_types (ticket_type TEXT PRIMARY KEY, attention INTEGER NOT NULL, note TEXT) WITHOUT ROWID;
  CREATE TABLE attention_sync (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    iss TEXT NOT NULL,
    eid TEXT NOT NULL,
    cursor TEXT NOT NULL,
    synced_at TEXT
  );
  `,
  // ID and age checks (docs/kiosk.md "ID checks"): the synced list's type checks and the listed tickets' age bands
  // (never a date of birth), and whether an entry's ID was checked (sent as \`id_checked\`, with staff_id). The
  // notes list is synced again from the start, so the bands of tickets listed before arrive too.
  `
  CREATE TABLE id_check_types (ticket_type TEXT PRIMARY KEY, id_check TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE id_check_bands (tid TEXT PRIMARY KEY, band TEXT NOT NULL CHECK (band IN ('over', 'under', 'unknown'))) WITHOUT ROWID;
  ALTER TABLE scans ADD COLUMN id_checked INTEGER NOT NULL DEFAULT 0;
  DELETE FROM attention_sync;
  `,
  // Party tickets (docs/kiosk.md "Party tickets"; PARTY_KIOSK_MIGRATION): the synced list's party sizes, and how many
  // people a scan counted (sent as \`people\`). The notes list is synced again from the start, so the sizes of tickets
  // listed before arrive too.
  `
  CREATE TABLE party_sizes (tid TEXT PRIMARY KEY, size INTEGER NOT NULL CHECK (size BETWEEN 2 AND 1000)) WITHOUT ROWID;
  ALTER TABLE scans ADD COLUMN people INTEGER;
  DELETE FROM attention_sync;
  `,
  // KIOSK_HANDOUTS_MIGRATION. Handouts (docs/kiosk.md "Handouts"): the synced list's type items and the listed tickets'
  // own items and handouts given (JSON, as the issuer sent them), and every handout the steward confirmed here, a
  // durable queue drained like the scans (committed before it is shown or sent; its id is the issuer's idempotency
  // key). The notes list is synced again from the start, so the handouts of tickets listed before arrive too.
  `
  CREATE TABLE handout_types (ticket_type TEXT PRIMARY KEY, items TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE handout_tickets (tid TEXT PRIMARY KEY, items TEXT NOT NULL, given TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE handouts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    hid TEXT NOT NULL UNIQUE,
    iss TEXT NOT NULL,
    eid TEXT NOT NULL,
    tid TEXT NOT NULL,
    item TEXT NOT NULL,
    gate_id TEXT,
    staff_id TEXT,
    given_at TEXT NOT NULL,
    queue_state TEXT NOT NULL CHECK (queue_state IN ('pending', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    result_status TEXT,            -- given, refused, not_found, conflict, forbidden
    result TEXT,                   -- the issuer's answer (JSON)
    answered_at TEXT
  );
  CREATE INDEX handouts_by_ticket ON handouts (tid, item);
  CREATE INDEX handouts_queue ON handouts (queue_state, seq);
  DELETE FROM attention_sync;
  `,
  // NOTES_COMPACT_MIGRATION. The notes list compact on disk (docs/benchmarks.md "Attention notes sync"): one row per
  // listed ticket keyed by the tid's 16 bytes, with its flag, note, band, party size and handouts, and shared note texts
  // stored once (store/list-migrations.ts), in place of the four tables above; the rows a kiosk has move over.
  migrateToListedTickets,
  // LIST_BLOCKS_MIGRATION. The notes list smaller still (docs/kiosk.md "Attention notes"): the listed tickets' entries in
  // compressed blocks of neighbouring tids (store/listed-tickets.ts) in place of one row each; the rows a kiosk has move over.
  migrateToListBlocks,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The kiosk.db migration that added party tickets (its index in MIGRATIONS). */
export const PARTY_KIOSK_MIGRATION = 6;

/** The kiosk.db migration that added handouts (its index in MIGRATIONS). */
export const KIOSK_HANDOUTS_MIGRATION = 7;

/** The kiosk.db migration that made the notes list compact (its index in MIGRATIONS). */
export const NOTES_COMPACT_MIGRATION = 8;

/** The kiosk.db migration that put the notes list in compressed blocks (its index in MIGRATIONS). */
export const LIST_BLOCKS_MIGRATION = 9;

/**
 * The open file and its prepared statements. Each is prepared once and reused: preparing costs more than running
 * these small statements (the drain runs thousands).
 */
export class Statements {
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  statement(sql: string): Database.Statement {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in one transaction (a savepoint inside a caller's transaction): its writes commit together or not at all. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }
}

/** Opens (and creates, and migrates) the kiosk's file at `path`. */
export function openDatabase(path: string): Database.Database {
  // Holders' names and the scan history are private to the kiosk user. A new file is made 0600
  // before SQLite opens it (SQLite gives its -wal and -shm the same mode); an existing one is
  // tightened (docs/kiosk.md "Where the kiosk keeps its data").
  if (process.platform !== 'win32') {
    closeSync(openSync(path, 'a', 0o600));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  }
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  // Every state push lists the double admissions, and one is pushed with each verdict, before the
  // scan's answer. Without this index that reads the whole scan history each time (about 4 ms at
  // 10,000 scans, 25 ms at 50,000). An index holds no data of its own and older versions of the
  // app work with it, so it is made here and not as a migration: a new user_version would make
  // an older app refuse the file.
  db.exec(
    `CREATE INDEX IF NOT EXISTS scans_double_admissions ON scans (seq) WHERE admitted_offline = 1 AND result_status = 'already_used'`,
  );
  // The same for a party's parts admitted offline that the issuer counted only partly (docs/kiosk.md "Party tickets").
  db.exec(`CREATE INDEX IF NOT EXISTS scans_party_parts ON scans (seq) WHERE people IS NOT NULL`);
  // The read log (reads that are not scans of their own: repeat reads, calibrations). Made here
  // for the same reason as the index: older versions of the app never read it and keep working.
  db.exec(`CREATE TABLE IF NOT EXISTS read_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      kind TEXT NOT NULL,
      origin TEXT NOT NULL,
      tid TEXT,
      detail TEXT NOT NULL
    )`);
  // The kiosk's audit log (docs/kiosk.md "The kiosk's audit log"): append-only, every record chained to the
  // one before with SHA-256 (protocol/audit-chain.ts). scans cannot be chained themselves: their rows change
  // as answers arrive. Made here for the same reason as read_log.
  db.exec(`CREATE TABLE IF NOT EXISTS audit_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      position INTEGER NOT NULL UNIQUE,
      at TEXT NOT NULL,
      kind TEXT NOT NULL,
      idempotency_key TEXT,
      tid TEXT,
      detail TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL
    )`);
  // A request that was in flight when the process died may or may not have
  // reached the issuer: it goes back to the queue with the SAME key, so the
  // issuer's idempotency answers it consistently (docs/protocol.md "Idempotency and offline scans").
  db.prepare(`UPDATE scans SET queue_state = 'pending' WHERE queue_state = 'sending'`).run();
  return db;
}

function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) throw new Error(`kiosk database is schema ${current}, newer than this app (${MIGRATIONS.length})`);
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      const migration = MIGRATIONS[version]!;
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
