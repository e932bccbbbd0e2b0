/** Public signing keys and their validity windows (docs/protocol.md "Keys"). */
import type { PublicKey } from '../../protocol/types.js';
import { prepareCached, type Db } from './database.js';

export interface SigningKeyRow {
  kid: string;
  public_key: string;
  valid_from: string;
  valid_until: string | null;
  active: 0 | 1;
}

export function insertActiveKey(db: Db, row: Omit<SigningKeyRow, 'active' | 'valid_until'>): void {
  prepareCached(
    db,
    'INSERT INTO signing_keys (kid, public_key, valid_from, valid_until, active) VALUES (@kid, @public_key, @valid_from, NULL, 1)',
  ).run(row);
}

export function activeKid(db: Db): string {
  const row = prepareCached(db, 'SELECT kid FROM signing_keys WHERE active = 1').get() as { kid: string } | undefined;
  if (!row) throw new Error('no active signing key (the data dir is damaged: run "ticket-issuer key rotate")');
  return row.kid;
}

/** Retires the active key (valid_until = now) and makes `next` the signer, in one transaction. */
export function rotateKey(db: Db, next: Omit<SigningKeyRow, 'active' | 'valid_until'>, now: string): string[] {
  return db
    .transaction(() => {
      const retired = (prepareCached(db, 'SELECT kid FROM signing_keys WHERE active = 1').all() as { kid: string }[]).map((r) => r.kid);
      prepareCached(db, 'UPDATE signing_keys SET active = 0, valid_until = ? WHERE active = 1').run(now);
      insertActiveKey(db, next);
      return retired;
    })
    .immediate();
}

/**
 * The keys the discovery document lists: the active key, plus every retired key
 * that still signs an unexpired ticket, so old tickets keep verifying.
 */
export function publishedKeys(db: Db, nowUnix: number): PublicKey[] {
  const rows = prepareCached(
    db,
    `SELECT kid, public_key, valid_from, valid_until FROM signing_keys k
     WHERE active = 1 OR EXISTS (SELECT 1 FROM tickets t WHERE t.kid = k.kid AND t.exp > ?)
     ORDER BY active DESC, valid_from DESC`,
  ).all(nowUnix) as Omit<SigningKeyRow, 'active'>[];
  return rows.map((r) => ({ kid: r.kid, alg: 'Ed25519', public_key: r.public_key, valid_from: r.valid_from, valid_until: r.valid_until }));
}
