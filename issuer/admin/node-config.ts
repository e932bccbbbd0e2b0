/**
 * `ticket-issuer node-config --to DIR` (docs/issuer.md "Serving nodes"): the data dir of a serving node, one
 * of several `serve` processes on one database. It holds what `serve` reads and nothing more: where the
 * database is (database.json), the issuer's TLS certificate and key (tls/), and node.json saying whose node
 * it is. Never keys/: signing stays with the admin CLI on the issuer's data dir, so a node that is broken
 * into cannot mint tickets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NODE_RECORD, dataDirLayout, isServingNode, locationOf, writeDatabaseRecord, writePrivateFile } from '../data-dir.js';
import { AdminError } from '../error-catalogue.js';
import { certificateHostnames, ensureSelfSignedCertificate } from '../tls-certificate.js';
import type { IssuerContext } from './issuer-context.js';

/** `<node>/node.json`: whose node this is. Nothing secret in it. */
export interface NodeRecord {
  /** The issuer's base URL and creation time: together they tell this issuer from a re-initialised one. */
  issuer: string;
  issuer_created_at: string;
  /** The data dir it was made from, for the operator (admin commands run there). */
  issuer_data: string;
  written_at: string;
}

export interface NodeConfigResult {
  /** The node dir, absolute. */
  node: string;
  issuer: string;
  /** The database the node serves from, absolute. */
  database: string;
  /** True when --to already was a node dir of this issuer and was brought up to date. */
  updated: boolean;
  /** Every file written (absolute paths), never their contents. */
  files: string[];
}

/** Writes (or updates) the node dir `to` for the open issuer. */
export async function writeNodeConfig(context: IssuerContext, to: string, now: Date): Promise<NodeConfigResult> {
  const { dataDir, info } = context;
  const node = dataDirLayout(path.resolve(to));
  const updated = checkTarget(node.root, dataDir.root, info);

  // The issuer's own self-signed certificate (made now if serve never ran, as scanner setup does), so every
  // node presents the one certificate whose fingerprint setup codes pin (docs/issuer.md "TLS").
  const tls = await ensureSelfSignedCertificate(dataDir.tlsDir, certificateHostnames(info.base_url, '0.0.0.0'));

  for (const dir of [node.root, node.tlsDir]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }
  const files: string[] = [];
  const write = (file: string, contents: string): void => {
    writePrivateFile(file, contents);
    files.push(file);
  };
  write(path.join(node.tlsDir, 'cert.pem'), tls.cert);
  write(path.join(node.tlsDir, 'key.pem'), tls.key);
  writeDatabaseRecord(node.root, locationOf(dataDir));
  files.push(path.join(node.root, 'database.json'));
  const record: NodeRecord = {
    issuer: info.base_url,
    issuer_created_at: info.created_at,
    issuer_data: dataDir.root,
    written_at: now.toISOString(),
  };
  // Last: a dir is a node dir only once everything serve needs is in it.
  write(path.join(node.root, NODE_RECORD), `${JSON.stringify(record)}\n`);
  return { node: node.root, issuer: info.base_url, database: dataDir.postgres ?? dataDir.database, updated, files };
}

/** Refuses the data dir itself and any non-empty dir that is not a node dir of this issuer; true when updating one. */
function checkTarget(target: string, dataRoot: string, info: IssuerContext['info']): boolean {
  const same = (a: string, b: string): boolean => {
    try {
      return fs.realpathSync(a) === fs.realpathSync(b);
    } catch {
      return a === b;
    }
  };
  if (same(target, dataRoot)) {
    throw new AdminError('NODE_TARGET_REFUSED', `--to ${target} is the issuer's data dir itself; write the node dir somewhere else`);
  }
  const inside = path.relative(dataRoot, target);
  if (inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside)) {
    // Inside the data dir, a backup or export would carry the node along: keep them apart.
    throw new AdminError(
      'NODE_TARGET_REFUSED',
      `--to ${target} is inside the issuer's data dir ${dataRoot}; write the node dir somewhere else`,
    );
  }
  if (!fs.existsSync(target)) return false;
  if (!fs.statSync(target).isDirectory()) throw new AdminError('NODE_TARGET_REFUSED', `--to ${target} exists and is not a directory`);
  if (fs.readdirSync(target).length === 0) return false;
  if (!isServingNode({ root: target })) {
    throw new AdminError(
      'NODE_TARGET_REFUSED',
      `--to ${target} is not empty and is not a serving node's directory; refusing to write into it (use a new or empty directory)`,
    );
  }
  let record: Partial<NodeRecord> = {};
  try {
    record = JSON.parse(fs.readFileSync(path.join(target, NODE_RECORD), 'utf8')) as Partial<NodeRecord>;
  } catch {
    // A damaged node.json is refused below like another issuer's.
  }
  if (record.issuer !== info.base_url || record.issuer_created_at !== info.created_at) {
    throw new AdminError(
      'NODE_TARGET_REFUSED',
      `--to ${target} is a serving node of another issuer (${String(record.issuer ?? 'unknown')}); refusing to overwrite it`,
    );
  }
  return true;
}
