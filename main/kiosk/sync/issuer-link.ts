/**
 * What the kiosk knows of its link to the issuer: online, offline or not known yet; whether the issuer still
 * accepts this scanner's key; the enrollment's API key from the secret store; the issuer's discovery
 * document. Every request's outcome is noted here (docs/kiosk.md "Online and offline"), and the door's
 * scans read it to choose between asking the issuer and the offline path.
 * In sync/: it holds the outcome of calls to the issuer; it decides no verdict.
 */
import type { DiscoveryDocument } from '../../../protocol/index.js';
import type { ConnectionState } from '../kiosk-api.js';
import type { ApiKeyStore } from '../store/api-key-store.js';
import type { Enrollment } from '../store/local-store.js';
import type { DiscoveryCache, RefreshResult } from './discovery.js';

export interface IssuerLinkDeps {
  apiKeys: ApiKeyStore;
  /** This kiosk's scanner id: its key's entry is its own (docs/kiosk.md "Secret storage"). */
  scannerId: string;
  discovery: DiscoveryCache;
  /** Status lookups and enrollment are not at the door's pace: a longer timeout. */
  interactiveTimeoutMs: number;
  /** The connection changed: the state shown changes. */
  onChange: () => void;
}

export type ApiKeyLookup = { key: string | null } | { unavailable: string };

/** What a background call to the issuer starts from (backgroundCall). */
export interface BackgroundCall {
  enrollment: Enrollment;
  document: DiscoveryDocument;
  /** The endpoint of the call, from the document. */
  url: string;
  apiKey: string;
}

export class IssuerLink {
  connection: ConnectionState = 'unknown';
  authorised = true;

  constructor(private readonly deps: IssuerLinkDeps) {}

  get interactiveTimeoutMs(): number {
    return this.deps.interactiveTimeoutMs;
  }

  /** Any answer from the issuer means online; no answer (or a 5xx) means offline. */
  noteConnection(call: { kind: string }): void {
    const before = this.connection;
    if (call.kind === 'unreachable' || call.kind === 'server_error') this.connection = 'offline';
    else this.connection = 'online';
    if (call.kind === 'unauthorized') this.authorised = false;
    if (before !== this.connection) this.deps.onChange();
  }

  noteRefresh(result: RefreshResult): void {
    this.noteConnection(result.ok ? { kind: 'answered' } : result.failure);
  }

  /** The enrollment's API key from the store; a store failure is reported by its (secret-free) message, never thrown. */
  async loadApiKey(enrollment: Enrollment): Promise<ApiKeyLookup> {
    try {
      return { key: await this.deps.apiKeys.loadApiKey({ iss: enrollment.iss, scanner_id: this.deps.scannerId }) };
    } catch (error) {
      return { unavailable: error instanceof Error ? error.message : 'the secret store failed' };
    }
  }

  /**
   * The opening of a background call to the issuer (the heartbeat, the revocation sync): the enrollment,
   * the cached discovery document (never fetched for it) with the call's endpoint (`urlOf`), and the API
   * key. Null when one is missing, the issuer no longer accepts this scanner, or the kiosk closed (`closed`)
   * before or while the key was read. The enrollment is read only once the kiosk is known not to be closed.
   */
  async backgroundCall(
    enrollmentNow: () => Enrollment | null,
    urlOf: (document: DiscoveryDocument) => string | null,
    closed: () => boolean,
  ): Promise<BackgroundCall | null> {
    if (closed()) return null;
    const enrollment = enrollmentNow();
    if (!enrollment || !this.authorised) return null;
    const document = this.deps.discovery.cached(enrollment.iss);
    const url = document ? urlOf(document) : null;
    if (!document || url === null) return null;
    const lookup = await this.loadApiKey(enrollment);
    if (!('key' in lookup) || !lookup.key || closed()) return null;
    return { enrollment, document, url, apiKey: lookup.key };
  }

  /** The issuer's discovery document: the cached one, else fetched now (null when the issuer cannot be reached). */
  async documentFor(enrollment: Enrollment): Promise<DiscoveryDocument | null> {
    const cached = this.deps.discovery.cached(enrollment.iss);
    if (cached) return cached;
    const result = await this.deps.discovery.refresh(enrollment.iss, this.interactiveTimeoutMs);
    return result.ok ? result.document : null;
  }
}
