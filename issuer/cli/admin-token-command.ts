/**
 * `admin-token reset`: makes the admin dashboard's token, replacing any
 * earlier one (docs/issuer.md "Admin dashboard"). It is printed once and
 * stored only as a hash; a lost token is replaced, never recovered. Works
 * while `serve` runs: the old token stops working on its next request.
 */
import type { Command } from 'commander';
import { resetAdminToken } from '../services/admin-credential.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { withIssuer } from '../admin/issuer-context.js';

export interface AdminTokenJson {
  admin_token: string;
  created_at: string;
}

/** What a person reads under a new token: where to use it and how to keep it. */
export function adminTokenNotice(token: string, baseUrl: string): string {
  return [
    `Admin dashboard token (shown only now; it replaces any earlier one):`,
    '',
    `  ${token}`,
    '',
    `Sign in with it at ${baseUrl}/admin. Keep it like a password: whoever has it can revoke tickets and scanners.`,
    `Lost it? Make a new one with "ticket-issuer admin-token reset".`,
  ].join('\n');
}

export function registerAdminTokenCommands(program: Command): void {
  const adminToken = program.command('admin-token').description("the admin dashboard's sign-in token");
  withCommonOptions(
    adminToken.command('reset').description('make a new admin dashboard token (the old one stops working at once); printed once'),
  ).action(
    action<CommonOptions>((options, output) =>
      withIssuer(options.data, async ({ database, info }) => {
        const { token, createdAt } = await database.write((db) => resetAdminToken(db, new Date()));
        const result: AdminTokenJson = { admin_token: token, created_at: createdAt };
        output.result(result, () => adminTokenNotice(token, info.base_url));
      }),
    ),
  );
}
