/** Enrollment tokens and the scanner API keys they are exchanged for. Secrets are stored only as SHA-256 hashes. */
import type { ScannerKeyRole, StaffRole } from '../../protocol/access.js';
import type { Sql } from './sql.js';

export interface EnrollmentTokenRow {
  token_id: string;
  token_hash: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  key_expires_at: string;
  created_at: string;
  used_at: string | null;
  revoked_at: string | null;
  failed_attempts: number;
  /** docs/protocol.md "Door operations": the setup code's direction and rights. */
  direction: 'entry' | 'exit' | null;
  role: ScannerKeyRole;
  pin_required: 0 | 1;
}

export interface ApiKeyRow {
  api_key_id: string;
  key_hash: string;
  token_id: string;
  scanner_id: string;
  scanner_name: string | null;
  scanner_platform: string | null;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  created_at: string;
  revoked_at: string | null;
  role: ScannerKeyRole;
}

/**
 * A handout station's key (docs/protocol.md "Handouts (project extension)") is stored as a steward's with `station`
 * 'handout': the role column's CHECK from an older migration knows only the staff roles, and SQLite cannot change it
 * in place. Read back, `station` wins.
 */
function storedRole(role: ScannerKeyRole): { role: StaffRole; station: 'handout' | null } {
  return role === 'handout' ? { role: 'steward', station: 'handout' } : { role, station: null };
}

function withStation<T extends { role: ScannerKeyRole }>(row: T | undefined): T | undefined {
  if (row === undefined) return undefined;
  const { station, ...rest } = row as T & { station?: string | null };
  return (station === 'handout' ? { ...rest, role: 'handout' } : rest) as T;
}

export async function insertEnrollmentToken(
  db: Sql,
  row: Omit<EnrollmentTokenRow, 'used_at' | 'revoked_at' | 'failed_attempts'>,
): Promise<void> {
  await db.run(
    `INSERT INTO enrollment_tokens (token_id, token_hash, eid, gate_id, expires_at, key_expires_at, created_at, direction, role, pin_required, station)
     VALUES (@token_id, @token_hash, @eid, @gate_id, @expires_at, @key_expires_at, @created_at, @direction, @role, @pin_required, @station)`,
    { ...row, ...storedRole(row.role) },
  );
}

export function findTokenByHash(db: Sql, tokenHash: string): Promise<EnrollmentTokenRow | undefined> {
  return db.get<EnrollmentTokenRow>('SELECT * FROM enrollment_tokens WHERE token_hash = ?', [tokenHash]).then(withStation);
}

export function findTokenById(db: Sql, tokenId: string): Promise<EnrollmentTokenRow | undefined> {
  return db.get<EnrollmentTokenRow>('SELECT * FROM enrollment_tokens WHERE token_id = ?', [tokenId]).then(withStation);
}

/**
 * Marks a token used only if it still is unused: the UPDATE's WHERE makes "exactly one exchange" atomic,
 * on PostgreSQL too (a second UPDATE waits for the first's row lock, then finds used_at set).
 */
export async function claimToken(db: Sql, tokenId: string, now: string): Promise<boolean> {
  const result = await db.run('UPDATE enrollment_tokens SET used_at = ? WHERE token_id = ? AND used_at IS NULL AND revoked_at IS NULL', [
    now,
    tokenId,
  ]);
  return result.changes === 1;
}

export async function recordFailedTokenAttempt(db: Sql, tokenId: string): Promise<void> {
  await db.run('UPDATE enrollment_tokens SET failed_attempts = failed_attempts + 1 WHERE token_id = ?', [tokenId]);
}

/** Revokes an unused token; returns the token as it is now, or undefined if unknown. */
export async function revokeToken(db: Sql, tokenId: string, now: string): Promise<EnrollmentTokenRow | undefined> {
  await db.run('UPDATE enrollment_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE token_id = ? AND used_at IS NULL', [now, tokenId]);
  return findTokenById(db, tokenId);
}

export async function insertApiKey(db: Sql, row: Omit<ApiKeyRow, 'revoked_at'>): Promise<void> {
  await db.run(
    `INSERT INTO api_keys (api_key_id, key_hash, token_id, scanner_id, scanner_name, scanner_platform, eid, gate_id, expires_at, created_at, role, station)
     VALUES (@api_key_id, @key_hash, @token_id, @scanner_id, @scanner_name, @scanner_platform, @eid, @gate_id, @expires_at, @created_at, @role, @station)`,
    { ...row, ...storedRole(row.role) },
  );
}

export function findApiKeyByHash(db: Sql, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.get<ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?', [keyHash]).then(withStation);
}

export function listApiKeys(db: Sql, eid?: string): Promise<ApiKeyRow[]> {
  return eid === undefined
    ? db.all<ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at').then((rows) => rows.map((row) => withStation(row)!))
    : db
        .all<ApiKeyRow>('SELECT * FROM api_keys WHERE eid = ? ORDER BY created_at', [eid])
        .then((rows) => rows.map((row) => withStation(row)!));
}

export async function revokeApiKey(db: Sql, apiKeyId: string, now: string): Promise<boolean> {
  return (await db.run('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE api_key_id = ?', [now, apiKeyId])).changes === 1;
}
