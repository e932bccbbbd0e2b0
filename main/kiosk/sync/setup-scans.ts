/**
 * A setup code scanned at the door (docs/kiosk.md "Enrolling a kiosk", "Re-enrolling"): it enrolls a new
 * kiosk at once; an enrolled one keeps it waiting until staff confirm, so a working door never moves to
 * another event silently. After an enrollment the kiosk is authorised and online, and what follows it
 * (the heartbeat, the revocation list, the LAN) is the core's (afterEnrolled).
 * In sync/: enrolling talks to the issuer (enrollment.ts enroll); no verdict is decided here.
 */
import type { SetupPayload } from '../../../protocol/index.js';
import type { ScanResult } from '../kiosk-api.js';
import type { ApiKeyStore } from '../store/api-key-store.js';
import type { LocalStore } from '../store/local-store.js';
import type { DiscoveryCache } from './discovery.js';
import { defaultPlatform, enroll, readSetupCode, setupSummary } from './enrollment.js';
import type { IssuerClient } from './issuer-client.js';
import type { IssuerLink } from './issuer-link.js';

export interface SetupScansDeps {
  store: LocalStore;
  apiKeys: ApiKeyStore;
  discovery: DiscoveryCache;
  client: IssuerClient;
  link: IssuerLink;
  now: () => number;
  /** Sent as scanner_platform at enrollment (default: this machine's). */
  platform: string | undefined;
  changed: () => void;
  /** The kiosk enrolled (authorised and online already): the core starts what follows an enrollment. */
  afterEnrolled: () => void;
}

export class SetupScans {
  /** A setup code waiting for staff to confirm a re-enrollment. */
  pending: SetupPayload | null = null;

  constructor(private readonly deps: SetupScansDeps) {}

  /** One scanned setup code (trimmed). */
  async scan(text: string): Promise<ScanResult> {
    const read = readSetupCode(text, this.deps.now());
    if (!read.ok) return { type: 'enroll_failed', code: read.code, message: read.message };
    const current = this.deps.store.getEnrollment();
    if (current) {
      // Never silently move a working door to another event: the operator confirms.
      this.pending = read.setup;
      this.deps.changed();
      return {
        type: 'confirm_re_enroll',
        current: { issuer_name: current.issuer_name, event_name: current.event_name, gate_id: current.gate_id },
        proposed: setupSummary(read.setup),
        pending_scans: this.deps.store.pendingCount(),
      };
    }
    return this.enroll(read.setup);
  }

  async enroll(setup: SetupPayload): Promise<ScanResult> {
    const { store, link } = this.deps;
    const outcome = await enroll(setup, {
      store,
      apiKeys: this.deps.apiKeys,
      discovery: this.deps.discovery,
      client: this.deps.client,
      now: this.deps.now,
      platform: this.deps.platform ?? defaultPlatform(),
      timeoutMs: link.interactiveTimeoutMs,
    });
    if (!outcome.ok) {
      this.deps.changed();
      return { type: 'enroll_failed', code: outcome.code, message: outcome.message };
    }
    if (setup.pin_required === true) store.requireStaffPin();
    link.authorised = true;
    link.connection = 'online';
    this.deps.afterEnrolled();
    const e = outcome.enrollment;
    return { type: 'enrolled', issuer_name: e.issuer_name, event_name: e.event_name, event_date: e.event_date, gate_id: e.gate_id };
  }
}
