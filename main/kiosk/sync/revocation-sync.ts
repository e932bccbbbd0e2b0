/**
 * The kiosk's revocation list (docs/kiosk.md "Revocation list"; docs/protocol.md "Revocation list"): the
 * enrolled event's revoked tickets, fetched from the issuer incrementally with a cursor and kept in the local
 * store, so a ticket revoked at the issuer is refused while the issuer cannot be reached.
 *
 * When: at enrollment, every minute while online (syncIntervalMs), and after any successful call to the issuer
 * (a check-in, a heartbeat, a drain pass) when the last good sync is older than that minute: the kiosk is then
 * behind. One sync at a time; it pages until the issuer says `complete`, each page committed with its cursor,
 * so a sync cut short continues where it stopped. RevocationSchedule (below) runs it: the timer, a sync when
 * behind, and what its outcome says about the issuer.
 */
import { revocationsUrlOf, type RevocationPage } from '../../../protocol/revocations.js';
import type { NotesSync } from './notes.js';
import type { DiscoveryDocument, IsoDateTime } from '../../../protocol/index.js';
import type { IssuerClient, RevocationCall } from './issuer-client.js';
import type { RevocationListView } from '../../../renderer/kiosk-bridge-types.js';
import type { Enrollment, LocalStore } from '../store/local-store.js';
import type { BackgroundWork } from './background.js';
import type { IssuerLink } from './issuer-link.js';

/** Every minute while online (KioskCoreOptions.revocationSyncIntervalMs). */
export const REVOCATION_SYNC_INTERVAL_MS = 60_000;
/** Ready warns when the list is older than this (KioskCoreOptions.revocationMaxAgeMs). */
export const DEFAULT_REVOCATION_MAX_AGE_MS = 15 * 60_000;
/**
 * The `revocations` section of `kiosk-config.json` (docs/kiosk.md "Revocation list"), for IT: how often to
 * sync while online, and after how long without a good sync Ready warns. Each field is optional; the
 * defaults above stand for what is left out. Checked field by field, with an error naming the field.
 *
 * ```json
 * { "revocations": { "sync_every_seconds": 300, "warn_after_minutes": 30 } }
 * ```
 */
export interface RevocationSettings {
  syncIntervalMs?: number;
  maxAgeMs?: number;
}

const SYNC_SECONDS = { min: 10, max: 3600 };
const WARN_MINUTES = { min: 1, max: 1440 };

export function parseRevocationSettings(config: unknown, where = 'kiosk-config.json'): RevocationSettings {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new Error(`${where}: expected a JSON object`);
  const section = (config as Record<string, unknown>)['revocations'];
  if (section === undefined) return {};
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    throw new Error(`${where}: "revocations" must be an object, e.g. {"sync_every_seconds": 300}`);
  const fields = section as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (name !== 'sync_every_seconds' && name !== 'warn_after_minutes')
      throw new Error(`${where}: revocations.${name} is not a setting (sync_every_seconds, warn_after_minutes)`);
  }
  const whole = (name: string, range: { min: number; max: number }): number | undefined => {
    const value = fields[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max)
      throw new Error(`${where}: revocations.${name} must be a whole number from ${range.min} to ${range.max}`);
    return value;
  };
  const seconds = whole('sync_every_seconds', SYNC_SECONDS);
  const minutes = whole('warn_after_minutes', WARN_MINUTES);
  return {
    ...(seconds === undefined ? {} : { syncIntervalMs: seconds * 1000 }),
    ...(minutes === undefined ? {} : { maxAgeMs: minutes * 60_000 }),
  };
}

/** A sync stops after this many pages and continues at the next (a safety net against an issuer that never completes). */
const MAX_PAGES_PER_SYNC = 1_000;

export type RevocationSyncOutcome =
  | { kind: 'synced'; added: number; pages: number }
  | { kind: 'unsupported' }
  | { kind: 'failed'; call: Exclude<RevocationCall, { kind: 'answered' }> | { kind: 'wrong_event'; eid: string } };

export interface RevocationSyncDeps {
  store: LocalStore;
  client: IssuerClient;
  now: () => number;
  syncIntervalMs: number;
  maxAgeMs: number;
}

export class RevocationSync {
  private running: Promise<RevocationSyncOutcome> | null = null;

  constructor(private readonly deps: RevocationSyncDeps) {}

  /** The list of the enrolled event's issuer, or null when there is none for it yet. */
  view(enrollment: Enrollment | null): RevocationListView | null {
    if (!enrollment) return null;
    const sync = this.deps.store.getRevocationSync();
    if (!sync || sync.iss !== enrollment.iss || sync.eid !== enrollment.eid) return null;
    return { synced_at: sync.synced_at, count: this.deps.store.revokedCount(), max_age_ms: this.deps.maxAgeMs };
  }

  /** What the offline check `revoked_list` consults (protocol/verdict.ts); absent before the first sync of this event. */
  offlineList(enrollment: Enrollment): { isRevoked(tid: string): boolean; syncedAt: IsoDateTime | null } | undefined {
    const sync = this.deps.store.getRevocationSync();
    if (!sync || sync.iss !== enrollment.iss || sync.eid !== enrollment.eid) return undefined;
    return { isRevoked: (tid) => this.deps.store.isRevoked(tid), syncedAt: sync.synced_at };
  }

  /** The last good sync is older than the interval (or there was none): a successful call to the issuer should sync. */
  behind(enrollment: Enrollment): boolean {
    const sync = this.deps.store.getRevocationSync();
    if (!sync || sync.iss !== enrollment.iss || sync.eid !== enrollment.eid || sync.synced_at === null) return true;
    return this.deps.now() - Date.parse(sync.synced_at) >= this.deps.syncIntervalMs;
  }

  /** One sync now; single-flight (a call while one runs gets that one's outcome). */
  sync(enrollment: Enrollment, document: DiscoveryDocument, apiKey: string, timeoutMs: number): Promise<RevocationSyncOutcome> {
    if (this.running) return this.running;
    const run = this.run(enrollment, document, apiKey, timeoutMs).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  private async run(
    enrollment: Enrollment,
    document: DiscoveryDocument,
    apiKey: string,
    timeoutMs: number,
  ): Promise<RevocationSyncOutcome> {
    const url = revocationsUrlOf(document);
    if (url === null) return { kind: 'unsupported' };
    const { store } = this.deps;
    const before = store.getRevocationSync();
    let cursor = before && before.iss === enrollment.iss && before.eid === enrollment.eid ? before.cursor : null;
    let added = 0;
    for (let pages = 1; pages <= MAX_PAGES_PER_SYNC; pages++) {
      const call = await this.deps.client.revocations(url, apiKey, cursor, { timeoutMs });
      if (call.kind !== 'answered') return { kind: 'failed', call };
      const page: RevocationPage = call.page;
      if (page.eid !== enrollment.eid) return { kind: 'failed', call: { kind: 'wrong_event', eid: page.eid } };
      store.applyRevocations({
        iss: enrollment.iss,
        eid: enrollment.eid,
        tids: page.revoked,
        cursor: page.next,
        // A first sync from nothing also replaces whatever list there was (another event's, or none).
        reset: page.reset || cursor === null,
        syncedAt: page.complete ? new Date(this.deps.now()).toISOString() : null,
      });
      // docs/kiosk.md "Kiosks on one LAN": the event's revoked scanners come whole with every page (an extension
      // older issuers leave out); their LAN messages are ignored from now on.
      const scanners = revokedIdsOf(page, 'revoked_scanners', 'scanner_id');
      if (scanners !== null) store.saveRevokedScanners(enrollment.eid, scanners);
      // docs/kiosk.md "Staff badges": every page carries the event's revoked badges in full; kept beside the tickets.
      const badges = revokedIdsOf(page, 'revoked_badges', 'sid');
      if (badges !== null) store.saveRevokedBadges(enrollment.eid, badges);
      added += page.revoked.length;
      cursor = page.next;
      if (page.complete) return { kind: 'synced', added, pages };
    }
    return { kind: 'synced', added, pages: MAX_PAGES_PER_SYNC };
  }
}

export interface RevocationScheduleDeps {
  sync: RevocationSync;
  store: LocalStore;
  link: IssuerLink;
  background: BackgroundWork;
  log: (line: string) => void;
  /** Period of the timer; 0 for none (tests call run()). */
  intervalMs: number;
  changed: () => void;
  /** The attention notes, synced beside the list with the same opening (sync/notes.ts, docs/kiosk.md "Attention notes"). */
  notes?: NotesSync;
}

/**
 * When the list syncs (docs/kiosk.md "Revocation list"): the timer, a sync after a successful call when the
 * list is behind, and what a sync's outcome says about the issuer.
 */
export class RevocationSchedule {
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: RevocationScheduleDeps) {
    if (deps.intervalMs > 0) {
      this.timer = setInterval(() => void this.run(), deps.intervalMs);
      this.timer.unref?.();
    }
  }

  /**
   * One sync of the revocation list now (also what the timer runs every minute). Single-flight; nothing when
   * not enrolled, not authorised, or the issuer has no revocation endpoint. Never throws.
   */
  async run(): Promise<void> {
    const { store, link, background, log } = this.deps;
    try {
      const opening = await link.backgroundCall(
        () => store.getEnrollment(),
        revocationsUrlOf,
        () => background.closed,
      );
      if (!opening) return;
      const outcome = await this.deps.sync.sync(opening.enrollment, opening.document, opening.apiKey, link.interactiveTimeoutMs);
      if (background.closed) return;
      if (outcome.kind === 'failed') {
        log(`Revocation list sync failed: ${outcome.call.kind}.`);
        // As for the heartbeat: an answer says the issuer is there, no answer says nothing to the door.
        if (outcome.call.kind === 'unauthorized' || outcome.call.kind === 'rejected' || outcome.call.kind === 'rate_limited')
          link.noteConnection(outcome.call);
      } else if (outcome.kind === 'synced') {
        link.noteConnection({ kind: 'answered' });
        if (outcome.added > 0) log(`Revocation list: ${outcome.added} new revoked ticket(s).`);
      }
      const notes = await this.deps.notes?.sync(opening.enrollment, opening.document, opening.apiKey, link.interactiveTimeoutMs);
      if (notes?.kind === 'failed') log(`Attention notes sync failed: ${notes.call.kind}.`);
      this.deps.changed();
    } catch (error) {
      log(`Revocation list sync failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** After a successful call to the issuer: sync the revocation list when it is behind (last sync over a minute old). */
  runIfBehind(): void {
    const enrollment = this.deps.store.getEnrollment();
    if (!enrollment || this.deps.background.closed || !this.deps.sync.behind(enrollment)) return;
    this.deps.background.run(this.run());
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The page's `revoked_badges` (a project extension: `[{sid, revoked_at}]`) as badge ids; null when the issuer sends none. */
/**
 * The ids in one of the lists every page carries in full (docs/protocol.md "Revocation list"): `revoked_badges`
 * by `sid`, `revoked_scanners` by `scanner_id`. null when the issuer leaves the list out (an older issuer).
 */
function revokedIdsOf(page: RevocationPage, list: 'revoked_badges' | 'revoked_scanners', id: 'sid' | 'scanner_id'): string[] | null {
  const entries = (page as Partial<Record<typeof list, unknown>>)[list];
  if (!Array.isArray(entries)) return null;
  return entries
    .map((entry: unknown) => (typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[id] : undefined))
    .filter((value): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200);
}
