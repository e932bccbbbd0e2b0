/** `ticket-issuer key rotate` (docs/protocol.md "Keys"): a new active signing key; the old one stays published while its tickets live. */
import type { DataDir } from '../data-dir.js';
import { generateSigningKey, publicKeyBase64Url, savePrivateKey } from '../signing.js';
import type { SqlDatabase } from '../store/sql.js';
import { rotateKey } from '../store/signing-keys.js';
import { isoUtc } from '../time.js';

export interface RotateResult {
  kid: string;
  retired: string[];
}

export async function rotateSigningKey(dataDir: DataDir, database: SqlDatabase, now: Date): Promise<RotateResult> {
  const key = generateSigningKey();
  // On disk (0600) before the database makes it the signer, so the active kid always has its private key.
  savePrivateKey(dataDir.keysDir, key);
  const retired = await database.write((db) =>
    rotateKey(db, { kid: key.kid, public_key: publicKeyBase64Url(key), valid_from: isoUtc(now) }, isoUtc(now)),
  );
  return { kid: key.kid, retired };
}
