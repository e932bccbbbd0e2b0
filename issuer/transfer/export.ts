/**
 * `export --to FILE [--event EID]`: the whole issuer (or one event of it) in
 * one file that `import` can merge into another instance of the same issuer,
 * or turn into a new data dir at the venue (docs/issuer.md "Moving an issuer
 * to the venue and back"). The file holds the private signing keys: it is
 * created 0600, never over an existing file, and no key material is printed.
 * It reads SQLite or PostgreSQL alike, in one snapshot (SqlDatabase.snapshot),
 * page by page (issuer/transfer/store.ts), so neither a running `serve` nor
 * the size of the tables matters.
 */
import fs from 'node:fs';
import path from 'node:path';
import { keyFile, loadSigningKey } from '../signing.js';
import { sealScanLog } from '../store/audit-log.js';
import { TRANSFER_TABLES, transferRows, type TransferTable } from './store.js';
import { isoUtc } from '../time.js';
import { AdminError } from '../error-catalogue.js';
import { requireEvent, type IssuerContext } from '../admin/issuer-context.js';
import { EXPORT_FORMAT, EXPORT_VERSION, ExportWriter, PRIVATE_KEY_FIELD, type ExportHeader, type FileRow } from './file.js';

export const SECRET_FILE_WARNING =
  'the file holds the private signing keys, the TLS key and scanner key hashes: keep it as private as the data dir, move it only on media you control, and delete it once imported';

export interface ExportResult {
  file: string;
  /** Always true: say it wherever the file is mentioned. */
  secret: true;
  /** The file's permission bits as created, e.g. "0600" (a FAT-formatted stick cannot keep them). */
  mode: string;
  warning: string;
  issuer: string;
  eid: string | null;
  counts: Record<TransferTable, number> & { private_keys: number };
  tls_certificate: boolean;
}

/** Writes the export; on any failure the partial file is removed. */
export async function exportIssuer(context: IssuerContext, target: string, eid: string | null, now: Date): Promise<ExportResult> {
  const { dataDir, info, database } = context;
  if (eid !== null) await requireEvent(context.database.read, eid);
  const file = path.resolve(target);
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new AdminError(
        'EXPORT_TARGET_EXISTS',
        `${file} already exists; export into a new file (an export is never written over another file)`,
      );
    throw new AdminError('INVALID_ARGUMENT', `cannot create --to ${file}: ${code ?? String(error)}`);
  }
  const counts = Object.fromEntries([...TRANSFER_TABLES, 'private_keys'].map((name) => [name, 0])) as ExportResult['counts'];
  const tls = readTls(dataDir.tlsDir);
  try {
    fs.fchmodSync(fd, 0o600);
    const writer = new ExportWriter(fd);
    // On PostgreSQL, chain the scan_log rows committed but not sealed yet, so the file carries them chained.
    await sealScanLog(database);
    // One snapshot of every table while `serve` keeps writing: a read transaction of its own on either database.
    await database.snapshot(async (tx) => {
      writer.header({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: isoUtc(now), scope: { eid }, issuer: info, tls });
      for (const table of TRANSFER_TABLES) {
        writer.beginSection(table);
        for await (const row of transferRows(tx, table, eid)) {
          const out: FileRow = table === 'signing_keys' ? withPrivateKey(row, dataDir.keysDir) : row;
          if (out[PRIVATE_KEY_FIELD]) counts.private_keys++;
          writer.row(out);
          counts[table]++;
        }
        writer.endSection();
      }
      writer.finish();
    });
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return {
    file,
    secret: true,
    mode: `0${(fs.statSync(file).mode & 0o777).toString(8)}`,
    warning: SECRET_FILE_WARNING,
    issuer: info.base_url,
    eid,
    counts,
    tls_certificate: tls !== null,
  };
}

/** A signing key row with its private key, checked to be that key; a retired key may have none. */
function withPrivateKey(row: FileRow, keysDir: string): FileRow {
  const kid = row.kid as string;
  const active = row.active === 1;
  let pem: string | null = null;
  if (fs.existsSync(keyFile(keysDir, kid))) {
    pem = loadSigningKey(keysDir, kid).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  } else if (active) {
    throw new AdminError(
      'INTERNAL',
      `the private key of the active signing key ${kid} is missing from ${keysDir}; restore it from a backup before exporting`,
    );
  }
  return { ...row, active, [PRIVATE_KEY_FIELD]: pem };
}

function readTls(tlsDir: string): ExportHeader['tls'] {
  const cert = path.join(tlsDir, 'cert.pem');
  const key = path.join(tlsDir, 'key.pem');
  if (!fs.existsSync(cert) || !fs.existsSync(key)) return null;
  return { cert_pem: fs.readFileSync(cert, 'utf8'), key_pem: fs.readFileSync(key, 'utf8') };
}

export function describeExport(result: ExportResult): string {
  const c = result.counts;
  const what = result.eid === null ? 'the whole issuer' : `event ${result.eid}`;
  return [
    `Exported ${what} (${result.issuer}) to ${result.file} (mode ${result.mode}).`,
    `  ${c.events} event(s), ${c.tickets} ticket(s), ${c.checkins} check-in(s), ${c.scan_log} audit row(s), ${c.api_keys} scanner key(s),`,
    `  ${c.signing_keys} signing key(s) of which ${c.private_keys} with private key${result.tls_certificate ? ', the TLS certificate' : ''}.`,
    `SECRET: ${result.warning}.`,
  ].join('\n');
}
