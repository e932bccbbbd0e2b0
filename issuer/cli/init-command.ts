/** `init` (docs/protocol.md "The admin CLI"). The issuer itself is made by issuer/admin/init.ts. */
import type { Command } from 'commander';
import { initIssuer } from '../admin/init.js';
import { withDatabase } from '../admin/issuer-context.js';
import { parseBaseUrl, parseLabel } from '../admin/validators.js';
import { parseDatabaseUrl, resolveDataDir, withLocation } from '../data-dir.js';
import { resetAdminToken } from '../services/admin-credential.js';
import { describeDatabase } from '../store/open.js';
import { adminTokenNotice } from './admin-token-command.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface InitOptions extends CommonOptions {
  baseUrl: string;
  name: string;
  database?: string;
}

export function registerInitCommand(program: Command): void {
  withCommonOptions(
    program
      .command('init')
      .description('create the data dir, database and first signing key')
      .requiredOption('--base-url <url>', 'the issuer base URL scanners reach, e.g. https://tickets.example.com')
      .requiredOption('--name <name>', 'the issuer name shown to scanners')
      .option(
        '--database <url>',
        'where the tables go: postgres://USER@HOST:PORT/DB (an existing database; the password from PGPASSWORD or ~/.pgpass, never the URL) or sqlite:///absolute/path/issuer.db; default <data>/issuer.db',
      ),
  ).action(
    action<InitOptions>(async (options, output) => {
      const baseUrl = parseBaseUrl(options.baseUrl);
      const name = parseLabel(options.name, '--name');
      const resolved = resolveDataDir(options.data);
      // Recorded in <data>/database.json, so every later command finds it (docs/issuer.md "Where the database is").
      const dataDir =
        options.database === undefined ? resolved : withLocation(resolved, parseDatabaseUrl(options.database, '--database'), 'record');
      const result = await initIssuer(dataDir, baseUrl, name, new Date());
      // The contract's --json document is exactly {issuer, name, kid}, and scripts keep it in files and CI logs:
      // no admin credential in it. A person gets the dashboard token here, once; a script asks for one explicitly.
      if (output.json) {
        output.log('No admin dashboard token was made (--json). Make one with "ticket-issuer admin-token reset" when you need it.');
      }
      const adminToken = output.json
        ? null
        : (await withDatabase(dataDir, (database) => database.write((db) => resetAdminToken(db, new Date())))).token;
      output.result(result, () =>
        [
          `Initialised issuer "${result.name}" (${result.issuer}) in ${dataDir.root}`,
          `Signing key: ${result.kid}`,
          `Database: ${describeDatabase(dataDir)}`,
          '',
          adminTokenNotice(adminToken!, result.issuer),
        ].join('\n'),
      );
    }),
  );
}
