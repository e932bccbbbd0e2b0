/**
 * Creating an issuer: the data dir, database and first signing key (`ticket-issuer init`; docs/protocol.md
 * "The admin CLI"), in a SQLite file or an existing PostgreSQL database (docs/issuer.md "Where the database is").
 */
import { createDataDir, isInitialised, requireIssuerDataDir, type DataDir } from '../data-dir.js';
import { AdminError } from '../error-catalogue.js';
import { generateSigningKey, publicKeyBase64Url, savePrivateKey } from '../signing.js';
import { findIssuerInfo, setIssuerInfo } from '../store/issuer-info.js';
import { describeDatabase, openIssuerDatabase } from '../store/open.js';
import { insertActiveKey } from '../store/signing-keys.js';
import { isoUtc } from '../time.js';

export interface InitResult {
  issuer: string;
  name: string;
  kid: string;
}

/**
 * Refuses an existing issuer: overwriting it would orphan every ticket it signed. With PostgreSQL the
 * database must not hold an issuer either (one issuer per database; serving nodes get a node dir from
 * `node-config`, never a second init).
 */
export async function initIssuer(dataDir: DataDir, baseUrl: string, name: string, now: Date): Promise<InitResult> {
  requireIssuerDataDir(dataDir);
  if (isInitialised(dataDir)) {
    throw new AdminError(
      'ALREADY_INITIALISED',
      `${dataDir.root} already holds an issuer; refusing to overwrite it (use another --data DIR)`,
    );
  }
  // Checked before anything is written, so a refused init leaves no data dir behind.
  if (dataDir.postgres !== undefined) await refuseDatabaseWithIssuer(dataDir);
  createDataDir(dataDir);
  const key = generateSigningKey();
  // The private key is on disk (0600) before the database names it, so an active kid always has its key.
  savePrivateKey(dataDir.keysDir, key);
  const { database } = await openIssuerDatabase(dataDir);
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

/** One issuer per database: a PostgreSQL database that already holds one is no new data dir's (init and import). */
export async function refuseDatabaseWithIssuer(dataDir: DataDir): Promise<void> {
  const { database, schemaVersion } = await openIssuerDatabase(dataDir, { schema: 'as-is' });
  try {
    const existing = schemaVersion === 0 ? undefined : await findIssuerInfo(database.read);
    if (existing) {
      throw new AdminError(
        'ALREADY_INITIALISED',
        `${describeDatabase(dataDir)} already holds the issuer "${existing.name}" (${existing.base_url}); each issuer has a database of its own, and serving processes of one issuer get their directory from "ticket-issuer node-config"`,
      );
    }
  } finally {
    await database.close();
  }
}
