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
  discovery: DiscoveryCache;
  /** Status lookups and enrollment are not at the door's pace: a longer timeout. */
  interactiveTimeoutMs: number;
  /** The connection changed: the state shown changes. */
  onChange: () => void;
}

export type ApiKeyLookup = { key: string | null } | { unavailable: string };

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
      return { key: await this.deps.apiKeys.loadApiKey(enrollment.iss) };
    } catch (error) {
      return { unavailable: error instanceof Error ? error.message : 'the secret store failed' };
    }
  }

  /** The issuer's discovery document: the cached one, else fetched now (null when the issuer cannot be reached). */
  async documentFor(enrollment: Enrollment): Promise<DiscoveryDocument | null> {
    const cached = this.deps.discovery.cached(enrollment.iss);
    if (cached) return cached;
    const result = await this.deps.discovery.refresh(enrollment.iss, this.interactiveTimeoutMs);
    return result.ok ? result.document : null;
  }
}
