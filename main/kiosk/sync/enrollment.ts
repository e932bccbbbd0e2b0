/**
 * Enrollment by setup QR (docs/protocol.md "Setup payload", "Enrollment").
 * The setup checks are pure; `enroll` does the I/O: discovery, the token
 * exchange, then the key into the secret store and the scope into local state.
 * Neither the token nor the key ever appears in an outcome or a message.
 */
import {
  QrCodeError,
  SETUP_PREFIX,
  SUPPORTED_VERSIONS,
  baseUrlProblem,
  decodeSetupCode,
  isSecureOrLoopbackUrl,
  type EnrollRequest,
  type SetupPayload,
} from '../../../protocol/index.js';
import type { SetupSummary } from '../kiosk-api.js';
import type { ApiKeyStore } from '../store/api-key-store.js';
import type { DiscoveryCache } from './discovery.js';
import type { IssuerClient } from './issuer-client.js';
import type { Enrollment, LocalStore } from '../store/local-store.js';
import { newLanKeyPair, peekKioskCertificate } from './lan-certificate.js';

export { ENROLL_FAILURES, type EnrollFailureCode } from '../decide/enroll-failures.js';
import type { EnrollFailureCode } from '../decide/enroll-failures.js';

export type EnrollOutcome = { ok: true; enrollment: Enrollment } | { ok: false; code: EnrollFailureCode; message: string };

/** Local checks of a decoded setup payload, before any network. Pure. */
export function setupProblem(setup: SetupPayload, nowMs: number): { code: EnrollFailureCode; message: string } | null {
  if (!SUPPORTED_VERSIONS.includes(setup.v))
    return { code: 'unsupported_version', message: `setup code version ${setup.v} is not supported` };
  const issProblem = baseUrlProblem(setup.iss);
  if (issProblem) return { code: 'bad_issuer_url', message: `the issuer address is not usable (${issProblem})` };
  if (!isSecureOrLoopbackUrl(setup.enroll_url)) return { code: 'bad_enroll_url', message: 'the enrollment address is not HTTPS' };
  if (Date.parse(setup.expires_at) <= nowMs) return { code: 'setup_expired', message: 'this setup code has expired; ask for a new one' };
  return null;
}

export interface EnrollDeps {
  store: LocalStore;
  apiKeys: ApiKeyStore;
  discovery: DiscoveryCache;
  client: IssuerClient;
  now: () => number;
  /** e.g. `linux x64 node 20.19.0`; the Electron shell may add its own version. */
  platform: string;
  timeoutMs?: number;
}

export function defaultPlatform(): string {
  return `${process.platform} ${process.arch} node ${process.version}`;
}

export async function enroll(setup: SetupPayload, deps: EnrollDeps): Promise<EnrollOutcome> {
  const local = setupProblem(setup, deps.now());
  if (local) return { ok: false, ...local };
  // Spec "Authentication" 8: no keyring, no enrollment. Checked before the single-use token is spent.
  if (deps.apiKeys.checkAvailable) {
    try {
      await deps.apiKeys.checkAvailable();
    } catch (error) {
      return { ok: false, code: 'secret_store_unavailable', message: secretStoreMessage(error) };
    }
  }
  // docs/protocol.md "Self-signed issuers": the setup code's pin applies from the first request on.
  // A failed enrollment puts back the pin that was there, so a working door keeps talking to its issuer.
  const previousPin = deps.client.pinnedCertificate(setup.iss);
  deps.client.pinCertificate(setup.iss, setup.tls_cert_sha256 ?? null);
  const outcome = await exchange(setup, deps);
  if (!outcome.ok) deps.client.pinCertificate(setup.iss, previousPin);
  return outcome;
}

async function exchange(setup: SetupPayload, deps: EnrollDeps): Promise<EnrollOutcome> {
  const fail = (code: EnrollFailureCode, message: string): EnrollOutcome => ({ ok: false, code, message });
  const refreshed = await deps.discovery.refresh(setup.iss, deps.timeoutMs);
  if (!refreshed.ok) {
    const failure = refreshed.failure;
    if (failure.kind === 'invalid') return fail('bad_discovery', `the issuer's discovery document is invalid: ${failure.problem}`);
    if (failure.kind === 'unreachable') return fail('issuer_unreachable', `cannot reach the issuer (${failure.detail})`);
    return fail('issuer_error', `the issuer's discovery endpoint answered ${failure.kind}`);
  }
  // Spec "Setup QR payload": enroll_url must match endpoints.scanner_enroll, so a
  // forged setup code cannot send our scanner identity to another server.
  if (refreshed.document.endpoints.scanner_enroll !== setup.enroll_url) {
    return fail('enroll_url_mismatch', 'the setup code does not match the issuer it names');
  }

  const identity = deps.store.identity();
  // docs/kiosk.md "Kiosks on one LAN": this kiosk's own LAN key pair, made fresh at each enrollment; the issuer
  // certifies the public half. A store that keeps no LAN secret asks for no certificate.
  const lanPair = deps.apiKeys.saveLanKey ? newLanKeyPair() : null;
  const request: EnrollRequest = {
    token: setup.token,
    scanner_id: identity.scanner_id,
    scanner_name: identity.scanner_name,
    scanner_platform: deps.platform,
    ...(lanPair ? { lan_public_key: lanPair.publicKey } : {}),
  };
  const call = await deps.client.enroll(setup.enroll_url, request, deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs });
  switch (call.kind) {
    case 'enrolled':
      break;
    case 'unreachable':
      return fail('issuer_unreachable', `cannot reach the issuer (${call.detail})`);
    case 'rate_limited':
      return fail('rate_limited', 'too many attempts; wait and scan again');
    case 'server_error':
      return fail('issuer_error', `the issuer failed (HTTP ${call.status})`);
    case 'unauthorized':
    case 'rejected':
      if (call.code === 'TOKEN_REVOKED') return fail('token_revoked', 'this setup code was revoked by the organizer');
      if (call.code === 'PROTOCOL_VERSION_UNSUPPORTED')
        return fail('protocol_version_unsupported', 'the issuer does not support this kiosk version');
      return fail('token_invalid', 'this setup code is invalid, expired or already used');
  }

  const response = call.response;
  if (response.issuer.iss !== setup.iss || response.scope.eid !== setup.eid) {
    return fail('scope_mismatch', 'the issuer enrolled this kiosk for another issuer or event than the setup code named');
  }
  // This kiosk's own entry (docs/kiosk.md "Secret storage"): another kiosk of this OS user keeps its key.
  const owner = { iss: response.issuer.iss, scanner_id: identity.scanner_id };
  // Key first: if saving the state fails we have a usable key and no claim of enrollment, never the reverse.
  try {
    await deps.apiKeys.saveApiKey(response.api_key, owner);
  } catch (error) {
    return fail('secret_store_unavailable', secretStoreMessage(error, response.api_key));
  }
  // docs/kiosk.md "Kiosks on one LAN": the secret half of this kiosk's LAN key, with the certificate the issuer
  // returned for its public half, kept like the API key. Without a certificate for this very key and scanner (an
  // issuer without the feature), none is kept, and an old enrollment's must not stay behind.
  const lanSecret = lanCredential(lanPair, response.lan_certificate, identity.scanner_id, response.scope.eid);
  try {
    if (lanSecret !== null) await deps.apiKeys.saveLanKey?.(lanSecret, owner);
    else await deps.apiKeys.deleteLanKey?.(owner);
  } catch (error) {
    return fail('secret_store_unavailable', secretStoreMessage(error, response.api_key, lanPair?.secret, lanSecret));
  }
  const enrollment: Enrollment = {
    iss: response.issuer.iss,
    issuer_name: response.issuer.name,
    eid: response.scope.eid,
    event_name: response.scope.event_name,
    event_date: response.scope.event_date,
    gate_id: response.scope.gate_id ?? null,
    key_expires_at: response.scope.expires_at,
    api_key_id: response.api_key_id,
    enrolled_at: new Date(deps.now()).toISOString(),
    tls_cert_sha256: setup.tls_cert_sha256 ?? null,
    direction: setup.direction ?? 'entry',
  };
  deps.store.saveEnrollment(enrollment);
  return { ok: true, enrollment };
}

/** What the keyring keeps for the LAN: `{"v":2,"secret","certificate"}`, or null when the certificate is not for this key. */
function lanCredential(
  pair: { secret: string; publicKey: string } | null,
  certificate: unknown,
  scannerId: string,
  eid: string,
): string | null {
  if (!pair || typeof certificate !== 'string') return null;
  const payload = peekKioskCertificate(certificate);
  if (payload?.pub !== pair.publicKey || payload.scanner_id !== scannerId || payload.eid !== eid) return null;
  return JSON.stringify({ v: 2, secret: pair.secret, certificate });
}

/** The keyring's LAN entry read back (lan-door.ts); null when it is not one (e.g. an old shared LAN key). */
export function parseLanCredential(text: string | null): { secret: string; certificate: string } | null {
  if (text === null || !text.startsWith('{')) return null;
  try {
    const value = JSON.parse(text) as { v?: unknown; secret?: unknown; certificate?: unknown };
    return value.v === 2 && typeof value.secret === 'string' && typeof value.certificate === 'string'
      ? { secret: value.secret, certificate: value.certificate }
      : null;
  } catch {
    return null;
  }
}

/** The store's own message (SecretStoreUnavailableError says what to install); never the key, whatever the store wrote. */
function secretStoreMessage(error: unknown, ...secrets: (string | null | undefined)[]): string {
  let text = error instanceof Error ? error.message : 'the secret store failed';
  for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]');
  return text;
}

/** A scanned setup code, decoded and checked before any network; else why it cannot enroll this kiosk. */
export function readSetupCode(
  text: string,
  nowMs: number,
): { ok: true; setup: SetupPayload } | { ok: false; code: EnrollFailureCode; message: string } {
  let setup: SetupPayload;
  try {
    setup = decodeSetupCode(text);
  } catch (error) {
    if (!(error instanceof QrCodeError)) throw error;
    if (!text.startsWith(SETUP_PREFIX))
      return { ok: false, code: 'unsupported_version', message: 'this setup code version is not supported' };
    return { ok: false, code: 'not_a_setup_code', message: 'this setup code is damaged' };
  }
  const problem = setupProblem(setup, nowMs);
  if (problem) return { ok: false, ...problem };
  return { ok: true, setup };
}

/** What the page shows of a setup code waiting for the operator's confirmation (re-enrolling). */
export function setupSummary(setup: SetupPayload): SetupSummary {
  return {
    iss: setup.iss,
    eid: setup.eid,
    event_name: setup.event_name ?? null,
    gate_id: setup.gate_id ?? null,
    expires_at: setup.expires_at,
  };
}
