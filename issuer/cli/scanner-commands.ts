/**
 * `scanner setup`, `scanner revoke-setup`, `scanner list`, `scanner revoke`
 * (docs/protocol.md "The admin CLI", "Enrollment"), and `scanner calibration`
 * (docs/protocol.md "Scanner calibration code", docs/kiosk.md "Calibration").
 * The setup code itself is made by issuer/services/scanner-setup.ts, shared
 * with the admin dashboard.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { CALIBRATION_CODE } from '../../protocol/calibration-code.js';
import { isScannerKeyRole, rightsOf, SCANNER_KEY_ROLES, type ScannerKeyRole } from '../../protocol/access.js';
import type { GateDirection } from '../../protocol/door.js';
import { AdminError } from '../error-catalogue.js';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { checkPngTarget, terminalQr, writeQrPng } from '../admin/qr.js';
import { setupCertificatePin } from '../admin/setup-certificate-pin.js';
import { parseDateTime, parseLabel } from '../admin/validators.js';
import { revokeScannerKey } from '../services/admin-actions.js';
import { createScannerSetup, revokeSetup, type SetupRequest } from '../services/scanner-setup.js';
import { listApiKeys, type ApiKeyRow } from '../store/scanners.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

export interface ScannerJson {
  scanner_id: string;
  scanner_name: string | null;
  api_key_id: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  revoked: boolean;
  /** docs/protocol.md "Roles and rights": steward, supervisor or technician. */
  role: ScannerKeyRole;
}

export const scannerJson = (row: ApiKeyRow): ScannerJson => ({
  scanner_id: row.scanner_id,
  scanner_name: row.scanner_name,
  api_key_id: row.api_key_id,
  eid: row.eid,
  gate_id: row.gate_id,
  expires_at: row.expires_at,
  revoked: row.revoked_at !== null,
  role: row.role,
});

interface SetupOptions extends CommonOptions {
  event: string;
  gate?: string;
  expires?: string;
  keyExpires?: string;
  png?: string;
  /** True with --cert-pin, false with --no-cert-pin, undefined with neither. */
  certPin?: boolean;
  direction?: string;
  role?: string;
  canAnnul?: boolean;
  requirePin?: boolean;
}

interface CalibrationOptions extends CommonOptions {
  png?: string;
}

export interface CalibrationJson {
  calibration_code: string;
  /** The PNG written with --png, as an absolute path. */
  png?: string;
}

interface ListOptions extends CommonOptions {
  event?: string;
}

/** --role, with --can-annul as the older name of --role supervisor (docs/issuer.md "Staff roles and badges"). */
function parseKeyRole(role: string | undefined, canAnnul: boolean | undefined): ScannerKeyRole {
  // docs/protocol.md "Handouts (project extension)": `handout` enrolls a handout station, which never admits.
  if (role !== undefined && !isScannerKeyRole(role))
    throw new AdminError('INVALID_ARGUMENT', `--role must be one of ${SCANNER_KEY_ROLES.join(', ')}, not "${role}"`);
  if (canAnnul && role !== undefined && role !== 'supervisor')
    throw new AdminError('INVALID_ARGUMENT', `--can-annul means --role supervisor; it cannot go with --role ${role}`);
  return role ?? (canAnnul ? 'supervisor' : 'steward');
}

function parseDirection(value: string): GateDirection {
  if (value === 'entry' || value === 'exit') return value;
  throw new AdminError('INVALID_ARGUMENT', `--direction must be entry or exit, not "${value}"`);
}

export function registerScannerCommands(program: Command): void {
  const scanner = program.command('scanner').description('scanner enrollment and keys');

  withCommonOptions(
    scanner
      .command('setup')
      .description('make a single-use setup QR that enrolls one scanner for an event')
      .requiredOption('--event <eid>', 'event ID')
      .option('--gate <gate>', 'scope the scanner to this gate')
      .option('--expires <iso>', 'setup code expiry (default: the key expiry)')
      .option('--key-expires <iso>', 'scanner API key expiry (default: event end + 12 h)')
      .option('--png <file>', 'also write the setup QR as a PNG image')
      .option('--direction <direction>', 'entry or exit: which way the kiosk scans (default entry)')
      .option(
        '--role <role>',
        `the key's role: ${SCANNER_KEY_ROLES.join(', ')} (default steward; supervisor and technician may annul; handout: a handout station that never admits)`,
      )
      .option('--can-annul', 'the older name of --role supervisor')
      .option('--require-pin', 'the kiosk must have a staff PIN set before it scans tickets')
      .option(
        '--cert-pin',
        "pin the issuer's self-signed TLS certificate (the default, unless serve last ran with --tls-cert or --plain-http)",
      )
      .option('--no-cert-pin', 'do not pin the self-signed TLS certificate (use when serving a CA-signed certificate)'),
  ).action(
    action<SetupOptions>((options, output) => {
      const request: SetupRequest = {};
      if (options.gate !== undefined) request.gateId = parseLabel(options.gate, '--gate');
      if (options.expires !== undefined) request.expires = parseDateTime(options.expires, '--expires');
      if (options.keyExpires !== undefined) request.keyExpires = parseDateTime(options.keyExpires, '--key-expires');
      if (options.png !== undefined) checkPngTarget(options.png);
      if (options.direction !== undefined) request.direction = parseDirection(options.direction);
      request.role = parseKeyRole(options.role, options.canAnnul);
      if (options.requirePin) request.pinRequired = true;
      return withIssuer(options.data, async (context) => {
        const { database, info } = context;
        const event = await requireEvent(database.read, options.event);
        const { pin, note } = await setupCertificatePin(context, options.certPin);
        if (pin !== undefined) request.tlsCertSha256 = pin;
        if (note !== undefined) output.log(note);
        const result = await database.write((db) => createScannerSetup(db, info.base_url, event, request, new Date()));
        if (options.png !== undefined) {
          await writeQrPng(options.png, result.setup_qr);
          output.log(`Setup QR written to ${path.resolve(options.png)}`);
        }
        const qr = output.json ? '' : await terminalQr(result.setup_qr);
        output.result(result, () =>
          [
            `Scan this with the scanner to enroll it for "${event.name}"${result.gate_id === null ? '' : ` at gate ${result.gate_id}`}` +
              ` as an ${request.direction ?? 'entry'} gate, for a ${request.role}${rightsOf(request.role!).annul ? ' (allowed to annul check-ins)' : ''}${request.pinRequired ? ', staff PIN required' : ''}.`,
            `It works once, until ${result.expires_at}. Token ID (to revoke it): ${result.token_id}`,
            ...(pin === undefined ? [] : [`Kiosks enrolled with it pin the issuer's TLS certificate ${pin}`]),
            '',
            qr,
            result.setup_qr,
          ].join('\n'),
        );
      });
    }),
  );

  // The same code for every issuer and kiosk, and never sent to the issuer: no data
  // dir is opened (--data is accepted, like on every command, and not used).
  withCommonOptions(
    scanner
      .command('calibration')
      .description('print the scanner calibration code: scan it once on a new kiosk to check (and fix) the scanner and keyboard layout')
      .option('--png <file>', 'also write the calibration code as a PNG image'),
  ).action(
    action<CalibrationOptions>(async (options, output) => {
      const result: CalibrationJson = { calibration_code: CALIBRATION_CODE };
      if (options.png !== undefined) {
        checkPngTarget(options.png);
        result.png = path.resolve(options.png);
        await writeQrPng(result.png, CALIBRATION_CODE);
        output.log(`Calibration code written to ${result.png}`);
      }
      const qr = output.json ? '' : await terminalQr(CALIBRATION_CODE);
      output.result(result, () =>
        [
          "Scanner calibration: scan once at the kiosk's Setup or Ready screen, with the door's scanner set up as it will be used.",
          'The kiosk shows a Scanner check (input path, terminator, speed, keyboard layout) and fixes what it can.',
          '',
          qr,
          CALIBRATION_CODE,
        ].join('\n'),
      );
    }),
  );

  withCommonOptions(
    scanner.command('revoke-setup').description('revoke an unused setup code').argument('<token_id>', 'token ID printed by scanner setup'),
  ).action(
    action<CommonOptions>((options, output, [tokenId]) =>
      withIssuer(options.data, async ({ database }) => {
        const result = await database.write((db) => revokeSetup(db, tokenId!, new Date()));
        output.result(result, () => `Revoked setup token ${tokenId}.`);
      }),
    ),
  );

  withCommonOptions(
    scanner.command('list').description('enrolled scanners and their keys').option('--event <eid>', 'only this event'),
  ).action(
    action<ListOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        if (options.event !== undefined) await requireEvent(database.read, options.event);
        const scanners = (await listApiKeys(database.read, options.event)).map(scannerJson);
        output.result({ scanners }, () =>
          scanners.length === 0
            ? 'No scanners enrolled.'
            : scanners
                .map(
                  (s) =>
                    `${s.api_key_id}  ${s.scanner_name ?? s.scanner_id}  event ${s.eid}  gate ${s.gate_id ?? '(all)'}  expires ${s.expires_at}${s.revoked ? '  REVOKED' : ''}`,
                )
                .join('\n'),
        );
      }),
    ),
  );

  withCommonOptions(
    scanner
      .command('revoke')
      .description("revoke a scanner's API key (effective on its next request)")
      .argument('<api_key_id>', 'key ID from scanner list'),
  ).action(
    action<CommonOptions>((options, output, [apiKeyId]) =>
      withIssuer(options.data, async ({ database }) => {
        const result = await database.write((db) => revokeScannerKey(db, apiKeyId!, new Date()));
        output.result(result, () => `Revoked scanner key ${apiKeyId}.`);
      }),
    ),
  );
}
