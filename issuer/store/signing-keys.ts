/** Public signing keys and their validity windows (docs/protocol.md "Keys"). */
import type { PublicKey } from '../../protocol/types.js';
import type { Sql } from './sql.js';

export interface SigningKeyRow {
  kid: string;
  public_key: string;
  valid_from: string;
  valid_until: string | null;
  active: 0 | 1;
}

export async function insertActiveKey(db: Sql, row: Omit<SigningKeyRow, 'active' | 'valid_until'>): Promise<void> {
  await db.run(
    'INSERT INTO signing_keys (kid, public_key, valid_from, valid_until, active) VALUES (@kid, @public_key, @valid_from, NULL, 1)',
    {
      ...row,
    },
  );
}

export async function activeKid(db: Sql): Promise<string> {
  const row = await db.get<{ kid: string }>('SELECT kid FROM signing_keys WHERE active = 1');
  if (!row) throw new Error('no active signing key (the data dir is damaged: run "ticket-issuer key rotate")');
  return row.kid;
}

/** Retires the active key (valid_until = now) and makes `next` the signer; call inside one write job. */
export async function rotateKey(db: Sql, next: Omit<SigningKeyRow, 'active' | 'valid_until'>, now: string): Promise<string[]> {
  const retired = (await db.all<{ kid: string }>('SELECT kid FROM signing_keys WHERE active = 1')).map((r) => r.kid);
  await db.run('UPDATE signing_keys SET active = 0, valid_until = ? WHERE active = 1', [now]);
  await insertActiveKey(db, next);
  return retired;
}

/**
 * The keys the discovery document lists: the active key, plus every retired key
 * that still signs an unexpired ticket, so old tickets keep verifying.
 */
export async function publishedKeys(db: Sql, nowUnix: number): Promise<PublicKey[]> {
  const rows = await db.all<Omit<SigningKeyRow, 'active'>>(
    `SELECT kid, public_key, valid_from, valid_until FROM signing_keys k
     WHERE active = 1 OR EXISTS (SELECT 1 FROM tickets t WHERE t.kid = k.kid AND t.exp > ?)
     ORDER BY active DESC, valid_from DESC`,
    [nowUnix],
  );
  return rows.map((r) => ({ kid: r.kid, alg: 'Ed25519', public_key: r.public_key, valid_from: r.valid_from, valid_until: r.valid_until }));
}
