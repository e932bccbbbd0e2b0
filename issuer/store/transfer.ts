/**
 * Table access for `export` and `import` (docs/issuer.md "Moving an issuer to
 * the venue and back"): every row of the tables an issuer is made of, whole
 * or scoped to one event, and the few writes a merge needs. The merge rules
 * themselves live in issuer/admin/transfer-import.ts; this module only knows
 * SQL. Statements are prepared once per call of `transferStore`, since an
 * import runs each of them for every row of a possibly large file.
 */
import type { Db } from './database.js';

/** The scan_log outcome of a double admission found by an import (the dashboard alerts on it). */
export const IMPORT_CONFLICT_OUTCOME = 'import_conflict';

/** The tables that travel, in an order that satisfies their foreign keys. */
export const TRANSFER_TABLES = [
  'signing_keys',
  'events',
  'tickets',
  'checkins',
  'scan_log',
  'enrollment_tokens',
  'api_keys',
  'idempotency',
] as const;
export type TransferTable = (typeof TRANSFER_TABLES)[number];

/** The columns of each table as they travel (scan_log without its local autoincrement id). */
export const TRANSFER_COLUMNS: Record<TransferTable, readonly string[]> = {
  signing_keys: ['kid', 'public_key', 'valid_from', 'valid_until', 'active'],
  events: ['eid', 'name', 'date', 'venue', 'ends_at', 'created_at'],
  tickets: ['tid', 'eid', 'kid', 'holder_name', 'ticket_type', 'issued_at', 'exp', 'qr', 'revoked_at', 'revoke_reason'],
  checkins: ['tid', 'checked_in_at', 'scanner_id', 'gate_id', 'api_key_id', 'idempotency_key', 'recorded_at'],
  scan_log: ['at', 'scanned_at', 'tid', 'eid', 'scanner_id', 'api_key_id', 'gate_id', 'idempotency_key', 'outcome', 'details'],
  enrollment_tokens: [
    'token_id',
    'token_hash',
    'eid',
    'gate_id',
    'expires_at',
    'key_expires_at',
    'created_at',
    'used_at',
    'revoked_at',
    'failed_attempts',
  ],
  api_keys: [
    'api_key_id',
    'key_hash',
    'token_id',
    'scanner_id',
    'scanner_name',
    'scanner_platform',
    'eid',
    'gate_id',
    'expires_at',
    'created_at',
    'revoked_at',
  ],
  idempotency: ['idempotency_key', 'request_hash', 'http_status', 'response_body', 'api_key_id', 'created_at'],
};

/** The primary key of each table; scan_log has none that travels (its rows are compared whole). */
export const TRANSFER_KEYS: Record<Exclude<TransferTable, 'scan_log'>, string> = {
  signing_keys: 'kid',
  events: 'eid',
  tickets: 'tid',
  checkins: 'tid',
  enrollment_tokens: 'token_id',
  api_keys: 'api_key_id',
  idempotency: 'idempotency_key',
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
};

export type Row = Record<string, string | number | null>;

/** Every row of `table` (or of one event), in a stable order. Call inside a read transaction for a consistent snapshot. */
export function transferRows(db: Db, table: TransferTable, eid: string | null): IterableIterator<Row> {
  const columns = TRANSFER_COLUMNS[table].join(', ');
  const where = eid === null ? '' : ` WHERE ${EVENT_SCOPE[table]}`;
  const order = table === 'scan_log' ? 'id' : 'rowid';
  const statement = db.prepare(`SELECT ${columns} FROM ${table}${where} ORDER BY ${order}`);
  return (eid === null ? statement.iterate() : statement.iterate({ eid })) as IterableIterator<Row>;
}

/** The statements one import needs, prepared once. */
export interface TransferStore {
  find(table: Exclude<TransferTable, 'scan_log'>, key: string): Row | undefined;
  insert(table: TransferTable, row: Row): void;
  /** The active signing key's kid, or null in a data dir being created from a file. */
  activeKid(): string | null;
  /** Sets one key's window and whether it signs; `deactivateAllKeys` first, so the one-active index holds. */
  setKeyState(kid: string, validUntil: string | null, active: boolean): void;
  deactivateAllKeys(): void;
  allKeys(): { kid: string; valid_until: string | null; active: number }[];
  setRevocation(tid: string, revokedAt: string | null, reason: string | null): void;
  replaceCheckin(row: Row): void;
  setTokenState(tokenId: string, usedAt: string | null, revokedAt: string | null, failedAttempts: number): void;
  setApiKeyRevocation(apiKeyId: string, revokedAt: string | null): void;
  /** Every scan_log row, without its id, for telling rows already here from new ones. */
  scanLogRows(): IterableIterator<Row>;
}

export function transferStore(db: Db): TransferStore {
  const finders = new Map<string, ReturnType<Db['prepare']>>();
  const inserters = new Map<string, ReturnType<Db['prepare']>>();
  for (const table of TRANSFER_TABLES) {
    const columns = TRANSFER_COLUMNS[table];
    inserters.set(table, db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`));
    if (table !== 'scan_log')
      finders.set(table, db.prepare(`SELECT ${columns.join(', ')} FROM ${table} WHERE ${TRANSFER_KEYS[table]} = ?`));
  }
  const activeKid = db.prepare('SELECT kid FROM signing_keys WHERE active = 1').pluck();
  const setKeyState = db.prepare('UPDATE signing_keys SET valid_until = ?, active = ? WHERE kid = ?');
  const deactivateAll = db.prepare('UPDATE signing_keys SET active = 0 WHERE active = 1');
  const allKeys = db.prepare('SELECT kid, valid_until, active FROM signing_keys ORDER BY valid_from, kid');
  const setRevocation = db.prepare('UPDATE tickets SET revoked_at = ?, revoke_reason = ? WHERE tid = ?');
  const checkinColumns = TRANSFER_COLUMNS.checkins.filter((c) => c !== 'tid');
  const replaceCheckin = db.prepare(`UPDATE checkins SET ${checkinColumns.map((c) => `${c} = @${c}`).join(', ')} WHERE tid = @tid`);
  const setTokenState = db.prepare('UPDATE enrollment_tokens SET used_at = ?, revoked_at = ?, failed_attempts = ? WHERE token_id = ?');
  const setApiKeyRevocation = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE api_key_id = ?');
  const scanLogRows = db.prepare(`SELECT ${TRANSFER_COLUMNS.scan_log.join(', ')} FROM scan_log`);
  return {
    find: (table, key) => finders.get(table)!.get(key) as Row | undefined,
    insert: (table, row) => void inserters.get(table)!.run(row),
    activeKid: () => (activeKid.get() as string | undefined) ?? null,
    setKeyState: (kid, validUntil, active) => void setKeyState.run(validUntil, active ? 1 : 0, kid),
    deactivateAllKeys: () => void deactivateAll.run(),
    allKeys: () => allKeys.all() as { kid: string; valid_until: string | null; active: number }[],
    setRevocation: (tid, revokedAt, reason) => void setRevocation.run(revokedAt, reason, tid),
    replaceCheckin: (row) => void replaceCheckin.run(row),
    setTokenState: (tokenId, usedAt, revokedAt, failedAttempts) => void setTokenState.run(usedAt, revokedAt, failedAttempts, tokenId),
    setApiKeyRevocation: (apiKeyId, revokedAt) => void setApiKeyRevocation.run(revokedAt, apiKeyId),
    scanLogRows: () => scanLogRows.iterate() as IterableIterator<Row>,
  };
}
