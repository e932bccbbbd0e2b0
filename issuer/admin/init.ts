/** Creating an issuer: the data dir, database and first signing key (`ticket-issuer init`; docs/protocol.md "The admin CLI"). */
import { createDataDir, isInitialised, requireIssuerDataDir, type DataDir } from '../data-dir.js';
import { AdminError } from '../error-catalogue.js';
import { generateSigningKey, publicKeyBase64Url, savePrivateKey } from '../signing.js';
import { openSqliteDatabase } from '../store/sqlite-database.js';
import { setIssuerInfo } from '../store/issuer-info.js';
import { insertActiveKey } from '../store/signing-keys.js';
import { isoUtc } from '../time.js';

export interface InitResult {
  issuer: string;
  name: string;
  kid: string;
}

/** Refuses an existing issuer: overwriting it would orphan every ticket it signed. */
export async function initIssuer(dataDir: DataDir, baseUrl: string, name: string, now: Date): Promise<InitResult> {
  requireIssuerDataDir(dataDir);
  if (isInitialised(dataDir)) {
    throw new AdminError(
      'ALREADY_INITIALISED',
      `${dataDir.root} already holds an issuer; refusing to overwrite it (use another --data DIR)`,
    );
  }
  createDataDir(dataDir);
  const key = generateSigningKey();
  // The private key is on disk (0600) before the database names it, so an active kid always has its key.
  savePrivateKey(dataDir.keysDir, key);
  const database = openSqliteDatabase(dataDir.database);
  try {
    await database.write(async (db) => {
      await setIssuerInfo(db, { base_url: baseUrl, name, created_at: isoUtc(now) });
      await insertActiveKey(db, { kid: key.kid, public_key: publicKeyBase64Url(key), valid_from: isoUtc(now) });
    });
  } finally {
    await database.close();
  }
  return { issuer: baseUrl, name, kid: key.kid };
}
