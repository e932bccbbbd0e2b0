/**
 * The admin dashboard's credential (docs/issuer.md "Admin dashboard"): one
 * admin token per issuer, 256 bits from the OS CSPRNG, shown once to the
 * person who makes it and stored only as its SHA-256 hash (a fast hash is
 * right for a random secret, as for API keys: issuer/secrets.ts). Checked in
 * constant time. `serve --admin-token-file` may supply the token instead.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { AdminError } from '../error-catalogue.js';
import { hashesEqual, hashSecret } from '../secrets.js';
import { findAdminToken, setAdminToken } from '../store/admin-token.js';
import type { Sql } from '../store/sql.js';
import { isoUtc } from '../time.js';

/** The prefix tells an admin token from a scanner API key (`tvk_`) in a leak scan or a support call. */
export const ADMIN_TOKEN_PREFIX = 'tva_';
/** A token from a file must be at least this long: 32 characters of base64 or hex carry 128 bits or more. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

export const newAdminToken = (): string => `${ADMIN_TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;

/** Makes a new admin token, replacing any earlier one; returns it (the only time it exists in clear). */
export async function resetAdminToken(db: Sql, now: Date): Promise<{ token: string; createdAt: string }> {
  const token = newAdminToken();
  const createdAt = isoUtc(now);
  await setAdminToken(db, { token_hash: hashSecret(token), created_at: createdAt });
  return { token, createdAt };
}

/** Where the expected hash comes from: fixed for this server (--admin-token-file), or the database on every request. */
export type AdminTokenSource = { kind: 'fixed'; hash: string } | { kind: 'database'; db: Sql };

export function adminTokenSource(db: Sql, token: string | undefined): AdminTokenSource {
  return token === undefined ? { kind: 'database', db } : { kind: 'fixed', hash: hashSecret(token) };
}

/** The hash to compare with, or null when no admin token is set yet (a data dir made before the dashboard). */
export async function expectedAdminHash(source: AdminTokenSource): Promise<string | null> {
  return source.kind === 'fixed' ? source.hash : ((await findAdminToken(source.db))?.token_hash ?? null);
}

export function adminTokenMatches(expectedHash: string, presented: string): boolean {
  return hashesEqual(expectedHash, hashSecret(presented));
}

/** Null when `token` is acceptable as an admin token; otherwise why not. */
export function adminTokenProblem(token: string): string | null {
  if (token.length < MIN_ADMIN_TOKEN_LENGTH)
    return `it is ${token.length} characters long; use at least ${MIN_ADMIN_TOKEN_LENGTH} random characters`;
  if (!/^[\x21-\x7e]+$/.test(token)) return 'it may hold only printable ASCII characters without spaces';
  return null;
}

/**
 * Reads `serve --admin-token-file F`: the token on the first line (a trailing
 * line break is fine). A file, not a command-line value: arguments are
 * visible to every user of the machine in the process list.
 */
export function readAdminTokenFile(file: string): { token: string; warning: string | null } {
  let text: string;
  let mode: number;
  try {
    text = fs.readFileSync(file, 'utf8');
    mode = fs.statSync(file).mode;
  } catch (error) {
    throw new AdminError(
      'INVALID_ARGUMENT',
      `cannot read --admin-token-file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  const token = text.replace(/\r?\n$/, '');
  const problem = adminTokenProblem(token);
  if (problem !== null) throw new AdminError('INVALID_ARGUMENT', `the admin token in ${file} is not usable: ${problem}`);
  const warning = process.platform !== 'win32' && (mode & 0o077) !== 0 ? `${file} can be read by other users (chmod 600 ${file})` : null;
  return { token, warning };
}
