/** `scanner setup`, `scanner revoke-setup`, `scanner list`, `scanner revoke` (protocol-decisions.md "admin CLI", "Enrollment"). */
import path from 'node:path';
import type { Command } from 'commander';
import { encodeSetupCode } from '../../protocol/setup-code.js';
import { PROTOCOL_VERSION, type SetupPayload } from '../../protocol/types.js';
import { hashSecret, newEnrollmentToken, newTokenId } from '../secrets.js';
import type { Db } from '../store/database.js';
import type { EventRow } from '../store/events.js';
import { findTokenById, insertEnrollmentToken, listApiKeys, revokeApiKey, revokeToken, type ApiKeyRow } from '../store/scanners.js';
import { addHours, isoUtc, parseDateTime, parseLabel } from './arguments.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { AdminError } from './errors.js';
import { requireEvent, withIssuer, type IssuerContext } from './issuer-context.js';
import { certificateHostnames, ensureSelfSignedCertificate } from '../server.js';
import { terminalQr, writeQrPng } from './qr.js';

/** protocol-decisions.md "Enrollment": the API key expires at event end plus 12 h unless told otherwise. */
export const DEFAULT_KEY_HOURS_AFTER_END = 12;

export const enrollUrl = (baseUrl: string): string => `${baseUrl}/api/v1/scanners/enroll`;

export interface SetupRequest {
  gateId?: string;
  /** Token expiry; default: the key expiry. */
  expires?: Date;
  /** API key expiry; default: event end + 12 h. */
  keyExpires?: Date;
  /** SHA-256 fingerprint of the self-signed certificate kiosks should pin (docs/protocol.md "Self-signed issuers"). */
  tlsCertSha256?: string;
}

export interface SetupResult {
  setup_qr: string;
  token_id: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
}

/** The expiries of a setup: pure, so the rules are easy to read and test. */
export function setupExpiries(event: EventRow, request: SetupRequest, now: Date): { tokenExpires: Date; keyExpires: Date } {
  const keyExpires = request.keyExpires ?? addHours(new Date(event.ends_at), DEFAULT_KEY_HOURS_AFTER_END);
  const tokenExpires = request.expires ?? keyExpires;
  if (keyExpires.getTime() <= now.getTime()) {
    throw new AdminError('INVALID_DATE', `the scanner key would expire at ${isoUtc(keyExpires)}, which has passed; pass a later --key-expires`);
  }
  if (tokenExpires.getTime() <= now.getTime()) throw new AdminError('INVALID_DATE', '--expires has passed; a setup code must still be usable');
  if (tokenExpires.getTime() > keyExpires.getTime()) throw new AdminError('INVALID_DATE', '--expires must not be later than the key expiry (--key-expires)');
  return { tokenExpires, keyExpires };
}

/**
 * Makes a single-use enrollment token. Only its hash is stored; the token
 * itself exists only inside the returned setup code, which is the deliverable.
 */
export function createScannerSetup(db: Db, baseUrl: string, event: EventRow, request: SetupRequest, now: Date): SetupResult {
  const { tokenExpires, keyExpires } = setupExpiries(event, request, now);
  const token = newEnrollmentToken();
  const tokenId = newTokenId();
  insertEnrollmentToken(db, {
    token_id: tokenId,
    token_hash: hashSecret(token),
    eid: event.eid,
    gate_id: request.gateId ?? null,
    expires_at: isoUtc(tokenExpires),
    key_expires_at: isoUtc(keyExpires),
    created_at: isoUtc(now),
  });
  const payload: SetupPayload = {
    v: PROTOCOL_VERSION,
    iss: baseUrl,
    enroll_url: enrollUrl(baseUrl),
    token,
    eid: event.eid,
    event_name: event.name,
    expires_at: isoUtc(tokenExpires),
  };
  if (request.gateId !== undefined) payload.gate_id = request.gateId;
  if (request.tlsCertSha256 !== undefined) payload.tls_cert_sha256 = request.tlsCertSha256;
  return { setup_qr: encodeSetupCode(payload), token_id: tokenId, eid: event.eid, gate_id: request.gateId ?? null, expires_at: isoUtc(tokenExpires) };
}

export function revokeSetup(db: Db, tokenId: string, now: Date): { token_id: string; status: 'revoked' } {
  const token = revokeToken(db, tokenId, isoUtc(now));
  if (!token) throw new AdminError('TOKEN_NOT_FOUND', `no setup token ${tokenId} at this issuer`);
  if (token.revoked_at === null) {
    throw new AdminError('TOKEN_ALREADY_USED', `setup token ${tokenId} was already used to enroll a scanner; revoke that scanner's key with "ticket-issuer scanner revoke API_KEY_ID"`);
  }
  return { token_id: tokenId, status: 'revoked' };
}

export interface ScannerJson {
  scanner_id: string;
  scanner_name: string | null;
  api_key_id: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
  revoked: boolean;
}

export const scannerJson = (row: ApiKeyRow): ScannerJson => ({
  scanner_id: row.scanner_id,
  scanner_name: row.scanner_name,
  api_key_id: row.api_key_id,
  eid: row.eid,
  gate_id: row.gate_id,
  expires_at: row.expires_at,
  revoked: row.revoked_at !== null,
});

interface SetupOptions extends CommonOptions {
  event: string;
  gate?: string;
  expires?: string;
  keyExpires?: string;
  png?: string;
  /** False with --no-cert-pin. */
  certPin: boolean;
}

/**
 * The fingerprint a setup code should pin: the issuer's self-signed
 * certificate (made now if `serve` has not run yet, so the code is usable at
 * once), unless the base URL is plain-HTTP loopback or the operator serves a
 * CA-signed certificate and said --no-cert-pin.
 */
async function certificatePin(context: IssuerContext, certPin: boolean): Promise<string | undefined> {
  if (!certPin || !context.info.base_url.startsWith('https:')) return undefined;
  const { fingerprint } = await ensureSelfSignedCertificate(context.dataDir.tlsDir, certificateHostnames(context.info.base_url, '0.0.0.0'));
  return fingerprint;
}

interface ListOptions extends CommonOptions {
  event?: string;
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
      .option('--no-cert-pin', 'do not pin the self-signed TLS certificate (use when serving a CA-signed certificate)'),
  ).action(
    action<SetupOptions>((options, output) => {
      const request: SetupRequest = {};
      if (options.gate !== undefined) request.gateId = parseLabel(options.gate, '--gate');
      if (options.expires !== undefined) request.expires = parseDateTime(options.expires, '--expires');
      if (options.keyExpires !== undefined) request.keyExpires = parseDateTime(options.keyExpires, '--key-expires');
      return withIssuer(options.data, async (context) => {
        const { db, info } = context;
        const event = requireEvent(db, options.event);
        const pin = await certificatePin(context, options.certPin);
        if (pin !== undefined) request.tlsCertSha256 = pin;
        const result = createScannerSetup(db, info.base_url, event, request, new Date());
        if (options.png !== undefined) {
          await writeQrPng(options.png, result.setup_qr);
          output.log(`Setup QR written to ${path.resolve(options.png)}`);
        }
        const qr = output.json ? '' : await terminalQr(result.setup_qr);
        output.result(result, () =>
          [
            `Scan this with the scanner to enroll it for "${event.name}"${result.gate_id === null ? '' : ` at gate ${result.gate_id}`}.`,
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

  withCommonOptions(scanner.command('revoke-setup').description('revoke an unused setup code').argument('<token_id>', 'token ID printed by scanner setup')).action(
    action<CommonOptions>((options, output, [tokenId]) =>
      withIssuer(options.data, ({ db }) => {
        const result = revokeSetup(db, tokenId!, new Date());
        output.result(result, () => `Revoked setup token ${tokenId}.`);
      }),
    ),
  );

  withCommonOptions(scanner.command('list').description('enrolled scanners and their keys').option('--event <eid>', 'only this event')).action(
    action<ListOptions>((options, output) =>
      withIssuer(options.data, ({ db }) => {
        if (options.event !== undefined) requireEvent(db, options.event);
        const scanners = listApiKeys(db, options.event).map(scannerJson);
        output.result({ scanners }, () =>
          scanners.length === 0
            ? 'No scanners enrolled.'
            : scanners
                .map((s) => `${s.api_key_id}  ${s.scanner_name ?? s.scanner_id}  event ${s.eid}  gate ${s.gate_id ?? '(all)'}  expires ${s.expires_at}${s.revoked ? '  REVOKED' : ''}`)
                .join('\n'),
        );
      }),
    ),
  );

  withCommonOptions(scanner.command('revoke').description("revoke a scanner's API key (effective on its next request)").argument('<api_key_id>', 'key ID from scanner list')).action(
    action<CommonOptions>((options, output, [apiKeyId]) =>
      withIssuer(options.data, ({ db }) => {
        if (!revokeApiKey(db, apiKeyId!, isoUtc(new Date()))) throw new AdminError('API_KEY_NOT_FOUND', `no scanner key ${apiKeyId} at this issuer (see "ticket-issuer scanner list")`);
        const result = { api_key_id: apiKeyId!, status: 'revoked' as const };
        output.result(result, () => `Revoked scanner key ${apiKeyId}.`);
      }),
    ),
  );
}
