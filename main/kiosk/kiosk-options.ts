/**
 * What a host configures when it starts a kiosk core (main/host/kiosk-runtime.ts, the tests, the benchmarks):
 * the kiosk's file, its secret store, how it reaches the issuer, its timers and its door's options.
 * Its own file so the core (kiosk-core.ts) and the parts it is wired from (kiosk-parts.ts) share it.
 */
import type { OfflinePolicy } from '../../protocol/index.js';
import type { BackoffOptions } from './decide/backoff.js';
import type { Lanes } from './decide/lanes.js';
import type { ApiKeyStore } from './store/api-key-store.js';
import type { FetchLike, IssuerClientOptions } from './sync/issuer-client.js';
import type { PeerNetwork } from './sync/lan-peers.js';

/** Time the door waits for the issuer before taking the offline path, unless the host says otherwise. */
export const DEFAULT_ONLINE_BUDGET_MS = 1500;

export interface KioskCoreOptions {
  /** The SQLite file of the kiosk's local state. */
  dbPath: string;
  apiKeys: ApiKeyStore;
  fetch?: FetchLike;
  dispatcher?: IssuerClientOptions['dispatcher'];
  /** Time the door waits for the issuer before taking the offline path. */
  onlineBudgetMs?: number;
  offlinePolicy?: OfflinePolicy;
  drainConcurrency?: number;
  drainTimeoutMs?: number;
  /** Status lookups and enrollment are not at the door's pace: a longer timeout. */
  interactiveTimeoutMs?: number;
  backoff?: BackoffOptions;
  discoveryMaxAgeMs?: number;
  discoveryMinRefetchIntervalMs?: number;
  /** Sent as scanner_platform at enrollment. */
  platform?: string;
  /** Drain in the background on timers (default true). Tests may drive drain() themselves. */
  autoDrain?: boolean;
  /**
   * A read of the same code within this time of its first read (and while its
   * verdict is on screen) is the same scan (repeat-reads.ts). Default 3 s.
   */
  repeatReadWindowMs?: number;
  /** How long a staff unlock lasts since the last staff action (staff-access.ts; default 2 minutes). */
  staffIdleMs?: number;
  /** How long after a check-in staff may annul it at the door (docs/kiosk.md "Annul at the door"). Default 2 minutes. */
  annulWindowMs?: number;
  /** Scanner heartbeat period while enrolled (docs/protocol.md "Scanner heartbeat"); default 1 minute, 0 for none on a timer (tests call heartbeat()). */
  heartbeatIntervalMs?: number;
  /** Revocation list sync period while enrolled (docs/kiosk.md "Revocation list"); default 1 minute, 0 for none on a timer (tests call syncRevocations()). */
  revocationSyncIntervalMs?: number;
  /** Ready warns when the revocation list is older than this (docs/kiosk.md "Revocation list"); default 15 minutes. */
  revocationMaxAgeMs?: number;
  /**
   * Kiosks on one LAN (docs/kiosk.md "Kiosks on one LAN"): joined with the event's LAN key once
   * enrolled; consulted offline (check `seen_by_peer`), told of this kiosk's admissions. The host starts it.
   */
  lan?: PeerNetwork;
  /** One line per event worth an operator's attention. Never receives scanned text or secrets. */
  log?: (line: string) => void;
  now?: () => number;
  random?: () => number;
  /** How long an attention verdict holds the door without Done (kiosk-config `attention_hold_seconds`, docs/kiosk.md "Attention notes"); default 30. */
  attentionHoldSeconds?: number;
  /** Lanes from the configuration file (docs/kiosk.md "Several scanners"): they win over the Setup screen's mapping. */
  lanes?: Lanes | null;
}

/** The HID scanner's state as the host's scanner manager reports it. */
export interface HidScannerStatus {
  state: 'connected' | 'disconnected';
  reason?: string | null;
  message: string;
}
