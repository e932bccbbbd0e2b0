/** `init`: create the data dir, database and first signing key (docs/protocol.md "The admin CLI"). */
import type { Command } from 'commander';
import { createDataDir, isInitialised, resolveDataDir, type DataDir } from '../data-dir.js';
import { generateSigningKey, publicKeyBase64Url, savePrivateKey } from '../signing.js';
import { openDatabase, type Db } from '../store/database.js';
import { resetAdminToken } from '../services/admin-token.js';
import { setIssuerInfo } from '../store/issuer-info.js';
import { insertActiveKey } from '../store/signing-keys.js';
import { isoUtc } from '../time.js';
import { parseBaseUrl, parseLabel } from './validators.js';
import { adminTokenNotice } from './admin-token.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { AdminError } from '../error-catalogue.js';

export interface InitResult {
  issuer: string;
  name: string;
  kid: string;
}

/** Refuses an existing issuer: overwriting it would orphan every ticket it signed. */
export function initIssuer(dataDir: DataDir, baseUrl: string, name: string, now: Date): InitResult {
  if (isInitialised(dataDir)) {
    throw new AdminError('ALREADY_INITIALISED', `${dataDir.root} already holds an issuer; refusing to overwrite it (use another --data DIR)`);
  }
  createDataDir(dataDir);
  const key = generateSigningKey();
  // The private key is on disk (0600) before the database names it, so an active kid always has its key.
  savePrivateKey(dataDir.keysDir, key);
  const db = openDatabase(dataDir.database);
  try {
    db.transaction(() => {
      setIssuerInfo(db, { base_url: baseUrl, name, created_at: isoUtc(now) });
      insertActiveKey(db, { kid: key.kid, public_key: publicKeyBase64Url(key), valid_from: isoUtc(now) });
    }).immediate();
  } finally {
    db.close();
  }
  return { issuer: baseUrl, name, kid: key.kid };
}

interface InitOptions extends CommonOptions {
  baseUrl: string;
  name: string;
}

export function registerInitCommand(program: Command): void {
  withCommonOptions(
    program
      .command('init')
      .description('create the data dir, database and first signing key')
      .requiredOption('--base-url <url>', 'the issuer base URL scanners reach, e.g. https://tickets.example.com')
      .requiredOption('--name <name>', 'the issuer name shown to scanners'),
  ).action(
    action<InitOptions>((options, output) => {
      const baseUrl = parseBaseUrl(options.baseUrl);
      const name = parseLabel(options.name, '--name');
      const dataDir = resolveDataDir(options.data);
      const result = initIssuer(dataDir, baseUrl, name, new Date());
      // The contract's --json document is exactly {issuer, name, kid}, and scripts keep it in files and CI logs:
      // no admin credential in it. A person gets the dashboard token here, once; a script asks for one explicitly.
      if (output.json) {
        output.log('No admin dashboard token was made (--json). Make one with "ticket-issuer admin-token reset" when you need it.');
      }
      const adminToken = output.json ? null : withDatabase(dataDir.database, (db) => resetAdminToken(db, new Date()).token);
      output.result(result, () =>
        [`Initialised issuer "${result.name}" (${result.issuer}) in ${dataDir.root}`, `Signing key: ${result.kid}`, '', adminTokenNotice(adminToken!, result.issuer)].join('\n'),
      );
    }),
  );
}

function withDatabase<T>(file: string, work: (db: Db) => T): T {
  const db = openDatabase(file);
  try {
    return work(db);
  } finally {
    db.close();
  }
}
