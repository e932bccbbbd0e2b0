/**
 * Changes made by ANOTHER PROCESS on the issuer database, as the admin CLI
 * would make them while `serve` runs: a child `node` opens the SQLite file
 * with better-sqlite3 directly (so the tests do not depend on the CLI's
 * build).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const OPEN = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('busy_timeout = 10000');
const now = new Date().toISOString();
`;

async function inChild(script: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['-e', OPEN + script, ...args], { cwd: repoRoot });
  return stdout.trim();
}

export function revokeTicketElsewhere(databaseFile: string, tid: string): Promise<string> {
  return inChild(
    `const n = db.prepare('UPDATE tickets SET revoked_at = ? WHERE tid = ?').run(now, process.argv[2]).changes;
     db.close(); console.log(n);`,
    [databaseFile, tid],
  );
}

export function revokeApiKeyElsewhere(databaseFile: string, apiKeyId: string): Promise<string> {
  return inChild(
    `const n = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE api_key_id = ?').run(now, process.argv[2]).changes;
     db.close(); console.log(n);`,
    [databaseFile, apiKeyId],
  );
}

/** Rotates the signing key like `ticket-issuer key rotate`; prints the new kid. */
export function rotateKeyElsewhere(databaseFile: string): Promise<string> {
  return inChild(
    `const crypto = require('node:crypto');
     const { publicKey } = crypto.generateKeyPairSync('ed25519');
     const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
     const kid = crypto.createHash('sha256').update(raw).digest('hex').slice(0, 8);
     db.transaction(() => {
       db.prepare('UPDATE signing_keys SET active = 0, valid_until = ? WHERE active = 1').run(now);
       db.prepare('INSERT INTO signing_keys (kid, public_key, valid_from, valid_until, active) VALUES (?, ?, ?, NULL, 1)').run(kid, raw.toString('base64url'), now);
     }).immediate();
     db.close(); console.log(kid);`,
    [databaseFile],
  );
}
