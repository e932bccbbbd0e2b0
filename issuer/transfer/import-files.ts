/**
 * The files `import` places in the data dir beside its database (docs/issuer.md "Moving an issuer to the venue and
 * back"): a new data dir itself, the TLS certificate kiosks pinned, and the private signing keys; each one noted, so
 * a failed import removes what it made (Undo) while the database rolls back by itself.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createDataDir, DATABASE_RECORD, writePrivateFile, type DataDir } from '../data-dir.js';
import { keyFile, rawPublicKey, savePrivateKey } from '../signing.js';
import { kidFromPublicKey } from '../../protocol/kid.js';
import { PRIVATE_KEY_FIELD, type ExportHeader, type FileRow } from './file.js';
import { emptyCounts, type KindCounts } from './merge-rows.js';

/** Files and folders this import made, removed again if it fails (the database rolls back by itself). */
export class Undo {
  private readonly paths: string[] = [];

  made(file: string): void {
    this.paths.push(file);
  }

  run(): void {
    for (const file of this.paths.reverse()) {
      try {
        fs.rmSync(file, { force: true, recursive: true });
      } catch {
        // Best effort: what remains is an unreferenced file, never a half-merged issuer.
      }
    }
  }
}

/** The venue laptop: a new data dir, removed entirely if the import fails. */
export function prepareNewDataDir(dataDir: DataDir, undo: Undo): void {
  if (!fs.existsSync(dataDir.root)) undo.made(dataDir.root);
  for (const dir of [dataDir.keysDir, dataDir.tlsDir]) if (!fs.existsSync(dir)) undo.made(dir);
  const record = path.join(dataDir.root, DATABASE_RECORD);
  if (!fs.existsSync(record)) undo.made(record);
  // PostgreSQL: the transaction rolls back by itself (the migrated, empty schema stays, as after a failed init).
  if (dataDir.postgres === undefined) for (const suffix of ['', '-wal', '-shm', '-journal']) undo.made(`${dataDir.database}${suffix}`);
  createDataDir(dataDir);
}

/** The self-signed certificate kiosks pinned: taken when this data dir has none; a different one here is kept (and said). */
export function placeTlsCertificate(dataDir: DataDir, file: ExportHeader, undo: Undo, warnings: string[]): KindCounts {
  const counts = emptyCounts();
  if (file.tls === null) return counts;
  const certFile = path.join(dataDir.tlsDir, 'cert.pem');
  const keyPath = path.join(dataDir.tlsDir, 'key.pem');
  const haveCert = fs.existsSync(certFile);
  if (!haveCert && !fs.existsSync(keyPath)) {
    fs.mkdirSync(dataDir.tlsDir, { recursive: true, mode: 0o700 });
    undo.made(keyPath);
    writePrivateFile(keyPath, file.tls.key_pem);
    undo.made(certFile);
    fs.writeFileSync(certFile, file.tls.cert_pem, { mode: 0o644, flag: 'wx' });
    counts.added = 1;
  } else if (haveCert && fingerprint(fs.readFileSync(certFile, 'utf8')) === fingerprint(file.tls.cert_pem)) {
    counts.unchanged = 1;
  } else {
    counts.conflicts = 1;
    warnings.push(
      `the file's TLS certificate (${fingerprint(file.tls.cert_pem)}) differs from this data dir's; this one is kept, so kiosks that pinned the file's certificate must be enrolled again with a setup code from this issuer`,
    );
  }
  return counts;
}

const fingerprint = (pem: string): string => new crypto.X509Certificate(pem).fingerprint256;

/** Private keys this data dir lacks go to keys/ (0600) before the database names them, as `init` and `key rotate` do. */
export function placePrivateKeys(dataDir: DataDir, signingKeys: readonly FileRow[], undo: Undo): void {
  for (const row of signingKeys) {
    const pem = row[PRIVATE_KEY_FIELD];
    const kid = row.kid as string;
    if (typeof pem !== 'string' || fs.existsSync(keyFile(dataDir.keysDir, kid))) continue;
    const privateKey = crypto.createPrivateKey(pem);
    const publicKey = rawPublicKey(crypto.createPublicKey(privateKey));
    undo.made(keyFile(dataDir.keysDir, kid));
    savePrivateKey(dataDir.keysDir, { kid: kidFromPublicKey(publicKey), publicKey, privateKey });
  }
}
