/**
 * The issuer discovery document (docs/protocol.md "Discovery document"):
 * validation (pure) and a cache that lives in memory and in the kiosk's SQLite
 * file, so a kiosk that restarts offline still verifies with the last good document.
 *
 * Cache rules (docs/protocol.md "Discovery document": at most 1 hour; "Versioning":
 * re-fetch on an unknown kid). A refetch is rate-limited per issuer so that a stream of
 * garbage codes with random kids cannot hammer the issuer.
 */
import {
  PROTOCOL_VERSION,
  baseUrlProblem,
  decodeBase64Url,
  isIsoDateTime,
  isJsonObject,
  isSecureOrLoopbackUrl,
  kidFromPublicKey,
  type DiscoveryDocument,
  type PublicKey,
} from '../../../protocol/index.js';
import type { CallFailure, IssuerClient } from './issuer-client.js';
import type { LocalStore } from '../store/local-store.js';

export type DiscoveryValidation = { ok: true; document: DiscoveryDocument } | { ok: false; problem: string };

/** Checks a fetched body against the protocol and against the issuer we asked. Pure. */
export function validateDiscovery(body: unknown, expectedIss: string): DiscoveryValidation {
  const fail = (problem: string): DiscoveryValidation => ({ ok: false, problem });
  if (baseUrlProblem(expectedIss) !== null) return fail(`issuer base URL is not canonical: ${baseUrlProblem(expectedIss)}`);
  if (!isJsonObject(body)) return fail('not a JSON object');
  const { protocol_version, issuer, name, keys, endpoints, supported_versions } = body;
  if (!Number.isSafeInteger(protocol_version)) return fail('protocol_version is not an integer');
  if (issuer !== expectedIss) return fail('issuer does not match the issuer base URL it was fetched from');
  if (typeof name !== 'string') return fail('name is missing');
  if (!Array.isArray(supported_versions) || !supported_versions.every((v) => Number.isSafeInteger(v)))
    return fail('supported_versions is not an array of integers');
  if (!supported_versions.includes(PROTOCOL_VERSION)) return fail(`issuer does not support protocol version ${PROTOCOL_VERSION}`);
  if (!isJsonObject(endpoints)) return fail('endpoints is missing');
  for (const field of ['check_in', 'status', 'scanner_enroll'] as const) {
    const url = endpoints[field];
    // docs/protocol.md "Base URL": HTTPS, http:// only on loopback; the Bearer key goes to these URLs.
    if (typeof url !== 'string' || !isSecureOrLoopbackUrl(url)) return fail(`endpoints.${field} is not an HTTPS (or loopback) URL`);
  }
  if (!String(endpoints['status']).includes('{tid}')) return fail('endpoints.status has no {tid} placeholder');
  if (!Array.isArray(keys)) return fail('keys is not an array');
  const checkedKeys: PublicKey[] = [];
  for (const [index, key] of keys.entries()) {
    const problem = publicKeyProblem(key);
    if (problem) return fail(`keys[${index}]: ${problem}`);
    checkedKeys.push(key as PublicKey);
  }
  const document: DiscoveryDocument = {
    protocol_version: protocol_version as number,
    issuer,
    name,
    keys: checkedKeys,
    endpoints: {
      check_in: endpoints['check_in'] as string,
      status: endpoints['status'] as string,
      scanner_enroll: endpoints['scanner_enroll'] as string,
    },
    supported_versions: supported_versions as number[],
  };
  // docs/protocol.md "Scanner heartbeat": an extra, optional endpoint. One that is not HTTPS (or loopback)
  // is left out rather than failing the document: the kiosk then works as with an issuer without it.
  const heartbeat = endpoints['scanner_heartbeat'];
  if (typeof heartbeat === 'string' && isSecureOrLoopbackUrl(heartbeat)) {
    (document.endpoints as DoorEndpoints).scanner_heartbeat = heartbeat;
  }
  // docs/protocol.md "Revocation list": another extra endpoint, kept on the same terms.
  const revocations = endpoints['scanner_revocations'];
  if (typeof revocations === 'string' && isSecureOrLoopbackUrl(revocations)) {
    (document.endpoints as DoorEndpoints).scanner_revocations = revocations;
  }
  // docs/protocol.md "Attention notes (project extension)": the notes list, kept on the same terms.
  const notes = endpoints['scanner_notes'];
  if (typeof notes === 'string' && isSecureOrLoopbackUrl(notes)) (document.endpoints as DoorEndpoints).scanner_notes = notes;
  // docs/protocol.md "Ticket search": one more, kept on the same terms (docs/kiosk.md "Finding a ticket").
  const search = endpoints['ticket_search'];
  if (typeof search === 'string' && isSecureOrLoopbackUrl(search)) (document.endpoints as DoorEndpoints).ticket_search = search;
  // docs/protocol.md "Handouts (project extension)".
  const handouts = endpoints['ticket_handouts'];
  if (typeof handouts === 'string' && isSecureOrLoopbackUrl(handouts)) (document.endpoints as DoorEndpoints).ticket_handouts = handouts;
  return { ok: true, document };
}

/** The discovery endpoints with the door-operations extension's one (docs/protocol.md "Scanner heartbeat"). */
type DoorEndpoints = DiscoveryDocument['endpoints'] & {
  scanner_heartbeat?: string;
  scanner_revocations?: string;
  scanner_notes?: string;
  ticket_search?: string;
  ticket_handouts?: string;
};

/** The heartbeat URL of a validated discovery document, or null when the issuer does not offer one (no door operations). */
export function heartbeatUrlOf(document: DiscoveryDocument): string | null {
  return (document.endpoints as DoorEndpoints).scanner_heartbeat ?? null;
}

function publicKeyProblem(key: unknown): string | null {
  if (!isJsonObject(key)) return 'not an object';
  if (key['alg'] !== 'Ed25519') return 'alg is not Ed25519';
  if (typeof key['kid'] !== 'string' || typeof key['public_key'] !== 'string') return 'kid or public_key missing';
  let raw: Uint8Array;
  try {
    raw = decodeBase64Url(key['public_key']);
  } catch {
    return 'public_key is not base64url';
  }
  if (raw.length !== 32) return 'public_key is not 32 bytes';
  // Spec "PublicKey": kid = first 8 hex chars of SHA-256 of the raw key; a mismatch means a broken or tampered document.
  if (kidFromPublicKey(raw) !== key['kid']) return 'kid does not match public_key';
  if (!isIsoDateTime(key['valid_from'])) return 'valid_from is not a date-time';
  const until = key['valid_until'];
  if (until !== undefined && until !== null && !isIsoDateTime(until)) return 'valid_until is not a date-time';
  return null;
}

export type RefreshResult =
  { ok: true; document: DiscoveryDocument } | { ok: false; failure: CallFailure | { kind: 'invalid'; problem: string } };

export interface DiscoveryCacheOptions {
  store: LocalStore;
  client: IssuerClient;
  now?: () => number;
  /** Spec "Limits": at most 1 hour. */
  maxAgeMs?: number;
  /** At most one unknown-kid or background refetch per issuer in this interval. */
  minRefetchIntervalMs?: number;
}

export const DISCOVERY_MAX_AGE_MS = 60 * 60_000;
export const DISCOVERY_MIN_REFETCH_INTERVAL_MS = 30_000;

export class DiscoveryCache {
  private readonly memory = new Map<string, { document: DiscoveryDocument; fetchedAt: number }>();
  private readonly lastAttemptAt = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<RefreshResult>>();
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  private readonly minRefetchIntervalMs: number;

  constructor(private readonly options: DiscoveryCacheOptions) {
    this.now = options.now ?? Date.now;
    this.maxAgeMs = options.maxAgeMs ?? DISCOVERY_MAX_AGE_MS;
    this.minRefetchIntervalMs = options.minRefetchIntervalMs ?? DISCOVERY_MIN_REFETCH_INTERVAL_MS;
  }

  /** The last good document, whatever its age (offline verification). No network. */
  cached(iss: string): DiscoveryDocument | null {
    return this.entry(iss)?.document ?? null;
  }

  /** True when the cached document is younger than the 1-hour limit. */
  isFresh(iss: string): boolean {
    const entry = this.entry(iss);
    return entry !== null && this.now() - entry.fetchedAt < this.maxAgeMs;
  }

  /** Fetches, validates and persists now (enrollment; first use). A bad document never replaces a good one. */
  refresh(iss: string, timeoutMs?: number): Promise<RefreshResult> {
    const running = this.inFlight.get(iss);
    if (running) return running;
    const work = this.fetchAndStore(iss, timeoutMs).finally(() => this.inFlight.delete(iss));
    this.inFlight.set(iss, work);
    return work;
  }

  /**
   * Rate-limited refresh: for an unknown kid (docs/protocol.md "Versioning") and for a
   * stale document. Returns null when skipped because a refetch happened
   * less than `minRefetchIntervalMs` ago.
   */
  refreshLimited(iss: string, timeoutMs?: number): Promise<RefreshResult> | null {
    const running = this.inFlight.get(iss);
    if (running) return running;
    const last = this.lastAttemptAt.get(iss);
    if (last !== undefined && this.now() - last < this.minRefetchIntervalMs) return null;
    // Only these refetches count against the limit: an explicit refresh (enrollment) must not block
    // the unknown-kid refetch of a key rotated right after it.
    this.lastAttemptAt.set(iss, this.now());
    return this.refresh(iss, timeoutMs);
  }

  private async fetchAndStore(iss: string, timeoutMs?: number): Promise<RefreshResult> {
    const call = await this.options.client.fetchDiscovery(iss, timeoutMs === undefined ? {} : { timeoutMs });
    if (call.kind !== 'answered') return { ok: false, failure: call };
    const validation = validateDiscovery(call.body, iss);
    if (!validation.ok) return { ok: false, failure: { kind: 'invalid', problem: validation.problem } };
    const fetchedAt = this.now();
    this.options.store.saveDiscovery(iss, validation.document, fetchedAt);
    this.memory.set(iss, { document: validation.document, fetchedAt });
    return { ok: true, document: validation.document };
  }

  private entry(iss: string): { document: DiscoveryDocument; fetchedAt: number } | null {
    let entry = this.memory.get(iss) ?? null;
    if (!entry) {
      entry = this.options.store.getDiscovery(iss);
      if (entry) this.memory.set(iss, entry);
    }
    return entry;
  }
}
