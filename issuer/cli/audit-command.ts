/**
 * `audit verify [--event EID]` (docs/issuer.md "Audit: tamper-evident logs"): checks the scan_log hash chain
 * and the kiosks' reported chain heads (on PostgreSQL after sealing what is committed). OK with the counts, or the first broken record and what differs,
 * exit 1 with AUDIT_CHAIN_BROKEN.
 */
import type { Command } from 'commander';
import { auditProblem, auditVerify } from '../admin/audit.js';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { AdminError } from '../error-catalogue.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface VerifyOptions extends CommonOptions {
  event?: string;
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('tamper-evident logs');
  withCommonOptions(
    audit
      .command('verify')
      .description("check the scan log's hash chain and every chain head the kiosks reported")
      .option('--event <eid>', 'report the counts for one event (the whole chain is still verified)'),
  ).action(
    action<VerifyOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        const eid = options.event ?? null;
        if (eid !== null) await requireEvent(database.read, eid);
        const report = await auditVerify(database, eid);
        const problem = auditProblem(report);
        if (problem !== null) throw new AdminError('AUDIT_CHAIN_BROKEN', problem);
        output.result(
          { ok: true, eid, rows: report.rows, head: report.head, unsealed: report.unsealed, kiosks: report.kiosks, heads: report.heads },
          () =>
            `OK: ${report.rows} scan log row(s)${eid === null ? '' : ` of event ${eid}`} checked (chain head: position ${report.head.position}${report.unsealed > 0 ? `; ${report.unsealed} committed since, not sealed yet` : ''}), ` +
            `${report.kiosks} kiosk(s), ${report.heads} reported head(s) consistent.`,
        );
      }),
    ),
  );
}
