/**
 * One pass over the kiosk's queue as the kiosk core runs it (drain-schedule.ts decides when, queue-drain.ts
 * sends): only while enrolled and authorised, with the API key of the moment; then what the pass says about
 * the issuer (offline, unauthorised, online), the LAN told of confirmed annulments, and a heartbeat after it,
 * so the issuer hears the audit log's head with each sync. In sync/: it talks to the issuer.
 */
import type { BackoffOptions } from '../decide/backoff.js';
import type { LocalStore } from '../store/local-store.js';
import type { BackgroundWork } from './background.js';
import type { DiscoveryCache } from './discovery.js';
import type { DrainSchedule } from './drain-schedule.js';
import type { IssuerClient } from './issuer-client.js';
import type { IssuerLink } from './issuer-link.js';
import type { LanDoor } from './lan-door.js';
import { DEFAULT_DRAIN_CONCURRENCY, drainQueue, type DrainReport } from './queue-drain.js';
import { drainHandouts } from './handout-drain.js';
import { handoutsUrlOf } from '../../../protocol/handouts.js';

export interface DrainPassDeps {
  store: LocalStore;
  client: IssuerClient;
  discovery: DiscoveryCache;
  link: IssuerLink;
  background: BackgroundWork;
  lan: LanDoor;
  /** The schedule that runs these passes (it is told what each one left). */
  schedule: () => DrainSchedule;
  now: () => number;
  random: () => number;
  backoff: BackoffOptions;
  concurrency: number | undefined;
  timeoutMs: number | undefined;
  signal: AbortSignal;
  /** A heartbeat after the pass (afterDrain: the schedule already knows what is left). */
  heartbeat: (afterDrain: boolean) => Promise<void>;
  syncRevocationsIfBehind: () => void;
  changed: () => void;
}

/** One pass over the queue (drain-schedule.ts decides when), and what its outcome says about the issuer. */
export async function drainPass(deps: DrainPassDeps): Promise<DrainReport | null> {
  const { store, link, background } = deps;
  if (background.closed) return null;
  const enrollment = store.getEnrollment();
  if (!enrollment || !link.authorised) return null;
  const document = deps.discovery.cached(enrollment.iss);
  const lookup = await link.loadApiKey(enrollment);
  if ('unavailable' in lookup) {
    deps.schedule().later(); // the keyring may come back; the queue waits
    return null;
  }
  const apiKey = lookup.key;
  if (!document || !apiKey) return null;
  const scans = await drainQueue({
    store,
    client: deps.client,
    iss: enrollment.iss,
    checkInUrl: document.endpoints.check_in,
    apiKey,
    now: deps.now,
    random: deps.random,
    concurrency: deps.concurrency ?? DEFAULT_DRAIN_CONCURRENCY,
    timeoutMs: deps.timeoutMs ?? 10_000,
    backoff: deps.backoff,
    signal: deps.signal,
  });
  // docs/kiosk.md "Handouts": the handouts confirmed here go after the scans, on the same pass and key; while some
  // wait (offline), the pass comes back as a scan's would.
  const handouts =
    background.closed || scans.stop === 'offline' || scans.stop === 'unauthorized'
      ? { left: store.handouts.pendingCount(), refused: [] }
      : await drainHandouts(
          store,
          enrollment,
          { client: deps.client, url: handoutsUrlOf(document), apiKey, timeoutMs: deps.timeoutMs ?? 10_000 },
          deps.now,
        );
  const report: DrainReport = handouts.left > 0 && scans.retryAt === null ? { ...scans, retryAt: deps.now() + deps.backoff.maxMs } : scans;
  if (background.closed) return report;
  for (const scan of report.settled) {
    if (scan.action === 'annul' && scan.result_status === 'annulled') deps.lan.tellAnnulled(scan.tid, scan.answered_at!, scan.result);
  }
  if (report.stop === 'offline') link.connection = 'offline';
  else if (report.stop === 'unauthorized') link.authorised = false;
  else if (report.settled.length > 0 || report.stop === 'rate_limited' || report.stop === 'leaving_room') link.connection = 'online';
  deps.schedule().afterPass(report);
  deps.changed();
  // Every drain pass is followed by a heartbeat, so the issuer hears the audit log's head with each sync.
  if (report.stop !== 'offline' && report.stop !== 'unauthorized') background.run(deps.heartbeat(true));
  if (report.settled.length > 0) deps.syncRevocationsIfBehind();
  return report;
}
