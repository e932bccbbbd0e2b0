/**
 * `staff badge issue`, `staff badge list`, `staff badge revoke` (docs/issuer.md "Staff roles and badges"): the
 * crew's signed badges, which unlock a role at the event's kiosks, offline too. Issued as tickets are shown:
 * the QR in the terminal and the raw code, or --png, or --json.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { STAFF_ROLES } from '../../protocol/access.js';
import type { IdFactory } from '../admin/ids.js';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { checkPngTarget, terminalQr, writeQrPng } from '../admin/qr.js';
import { CLI_BADGE_FIELDS, issueStaffBadge, parseBadgeRequest } from '../admin/staff-badges.js';
import { revokeStaffBadge, staffBadgeView, type StaffBadgeView } from '../services/staff-badges.js';
import { staffBadgesOf } from '../store/staff-badges.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface IssueOptions extends CommonOptions {
  event: string;
  name: string;
  role: string;
  expires?: string;
  notBefore?: string;
  png?: string;
}

interface ListOptions extends CommonOptions {
  event: string;
}

interface RevokeOptions extends CommonOptions {
  reason?: string;
}

export interface StaffBadgeIssueJson extends StaffBadgeView {
  badge_qr: string;
  /** The PNG written with --png, as an absolute path. */
  png?: string;
}

export function registerStaffCommands(program: Command, nextId: IdFactory): void {
  const badge = program
    .command('staff')
    .description('the crew at the door')
    .command('badge')
    .description('staff badges: issue, list, revoke');

  withCommonOptions(
    badge
      .command('issue')
      .description("sign a staff badge: scanned at the event's kiosks, it unlocks its role there, offline too")
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--name <name>', 'the holder, as kiosks show it')
      .requiredOption('--role <role>', `${STAFF_ROLES.join(', ')}`)
      .option('--expires <iso>', 'badge expiry (default: event end + 12 h)')
      .option('--not-before <iso>', 'valid from (default: now)')
      .option('--png <file>', 'also write the badge QR as a PNG image'),
  ).action(
    action<IssueOptions>((options, output) => {
      const request = parseBadgeRequest(
        { name: options.name, role: options.role, notBefore: options.notBefore, expires: options.expires },
        CLI_BADGE_FIELDS,
      );
      if (options.png !== undefined) checkPngTarget(options.png);
      return withIssuer(options.data, async (context) => {
        const event = await requireEvent(context.database.read, options.event);
        const signer = { database: context.database, keysDir: context.dataDir.keysDir, baseUrl: context.info.base_url };
        const row = await issueStaffBadge(signer, event, request, nextId, new Date());
        const result: StaffBadgeIssueJson = { ...staffBadgeView(row), badge_qr: row.qr };
        if (options.png !== undefined) {
          await writeQrPng(options.png, row.qr);
          result.png = path.resolve(options.png);
          output.log(`Badge QR written to ${result.png}`);
        }
        const qr = output.json ? '' : await terminalQr(row.qr);
        output.result(result, () =>
          [
            `Staff badge of ${row.name}, ${row.role} at "${event.name}", valid ${result.not_before} to ${result.expires_at}.`,
            `Staff ID (to revoke it): ${row.sid}`,
            '',
            qr,
            row.qr,
          ].join('\n'),
        );
      });
    }),
  );

  withCommonOptions(
    badge.command('list').description("the event's staff badges, revoked ones included").requiredOption('--event <eid>', 'event ID'),
  ).action(
    action<ListOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        const event = await requireEvent(database.read, options.event);
        const badges = (await staffBadgesOf(database.read, event.eid)).map(staffBadgeView);
        output.result({ badges }, () =>
          badges.length === 0
            ? `No staff badges for "${event.name}".`
            : badges
                .map(
                  (b) =>
                    `${b.sid}  ${b.role.padEnd(10)}  ${b.name}  until ${b.expires_at}${b.revoked_at === null ? '' : `  REVOKED ${b.revoked_at}`}`,
                )
                .join('\n'),
        );
      }),
    ),
  );

  withCommonOptions(
    badge
      .command('revoke')
      .description('revoke a staff badge (the issuer refuses it at once; kiosks after their next sync)')
      .argument('<sid>', 'staff ID')
      .option('--reason <reason>', 'why, for the audit trail'),
  ).action(
    action<RevokeOptions>((options, output, [sid]) =>
      withIssuer(options.data, async ({ database }) => {
        const reason = options.reason?.trim() || null;
        const result = await database.write((db) => revokeStaffBadge(db, sid!, reason, new Date()));
        output.result(result, () => `Revoked the staff badge of ${result.name} (${result.sid}).`);
      }),
    ),
  );
}
