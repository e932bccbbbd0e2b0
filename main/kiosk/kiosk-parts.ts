/**
 * The parts a kiosk core is wired from, built in the order they depend on each other: the local store
 * (recovered if damaged), the input paths, the staff PIN, the issuer client and link, the LAN, the queue
 * drain and its schedule, the heartbeat, the revocation list, and the door's scan and annul flows.
 * Timers start here (drain, heartbeat, revocation sync) and a queue left by a previous run is sent soon.
 * At the top of main/kiosk/: it only connects store/, sync/ and the flows; kiosk-core.ts serves the page.
 */
import type { OfflinePolicy, Verdict } from '../../protocol/index.js';
import type { KioskState, ScanResult } from './kiosk-api.js';
import { DEFAULT_ANNUL_WINDOW_MS } from './decide/annul.js';
import { DEFAULT_ATTENTION_HOLD_SECONDS } from './decide/attention.js';
import { AttentionDoor } from './attention-door.js';
import { IdCheckDoor } from './id-check-door.js';
import { PartyDoor } from './party-door.js';
import { DEFAULT_BACKOFF } from './decide/backoff.js';
import type { Lane } from './decide/lanes.js';
import type { DoorAnnulDeps } from './door-annul.js';
import { DoorScan } from './door-scan.js';
import { DEFAULT_ONLINE_BUDGET_MS, type KioskCoreOptions } from './kiosk-options.js';
import { ReadPaths } from './read-paths.js';
import { actsOnCalibration } from './decide/access.js';
import { StaffAccess } from './staff-access.js';
import type { LocalStore } from './store/local-store.js';
import { openStoreWithRecovery, recoveryMessage, type StorageRecovery } from './store/store-recovery.js';
import { BackgroundWork } from './sync/background.js';
import { DiscoveryCache } from './sync/discovery.js';
import { drainPass } from './sync/drain-pass.js';
import { DrainSchedule } from './sync/drain-schedule.js';
import { HEARTBEAT_INTERVAL_MS, Heartbeat } from './sync/heartbeat.js';
import { IssuerClient, type IssuerClientOptions } from './sync/issuer-client.js';
import { IssuerClock } from './sync/issuer-clock.js';
import { IssuerLink } from './sync/issuer-link.js';
import { LanDoor } from './sync/lan-door.js';
import { NotesSync } from './sync/notes.js';
import { DEFAULT_REVOCATION_MAX_AGE_MS, REVOCATION_SYNC_INTERVAL_MS, RevocationSchedule, RevocationSync } from './sync/revocation-sync.js';

/** What the parts call back in the core. */
export interface KioskHooks {
  /** The state changed: push it to the page. */
  changed: () => void;
  /** Show a verdict (on the scan's lane) and answer the page. */
  show: (verdict: Verdict, lane: Lane | null) => ScanResult;
  /** The Setup screen is up: no event yet, or a re-enrollment waits for its answer (docs/kiosk.md "Calibration"). */
  onSetup: () => boolean;
}

export interface KioskParts {
  now: () => number;
  log: (line: string) => void;
  policy: OfflinePolicy;
  store: LocalStore;
  /** The storage's state at start-up: recovered now, earlier, or sound (docs/kiosk.md "Storage integrity"). */
  storage: KioskState['storage'];
  reads: ReadPaths;
  staff: StaffAccess;
  client: IssuerClient;
  /** The kiosk's clock against the issuer's (docs/kiosk.md "The kiosk's clock"). */
  clock: IssuerClock;
  discovery: DiscoveryCache;
  link: IssuerLink;
  background: BackgroundWork;
  lan: LanDoor;
  drains: DrainSchedule;
  drainAbort: AbortController;
  heartbeat: Heartbeat;
  revocations: RevocationSync;
  revocationSchedule: RevocationSchedule;
  doorScan: DoorScan;
  annulDeps: DoorAnnulDeps;
  /** An attention verdict holding the door (docs/kiosk.md "Attention notes"). */
  attention: AttentionDoor;
  /** A scan waiting for the steward's ID check (docs/kiosk.md "ID checks"). */
  idChecks: IdCheckDoor;
  /** A party ticket's scan waiting for how many come in (docs/kiosk.md "Party tickets"). */
  parties: PartyDoor;
}

export function assembleKiosk(options: KioskCoreOptions, hooks: KioskHooks): KioskParts {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const budgetMs = options.onlineBudgetMs ?? DEFAULT_ONLINE_BUDGET_MS;
  const policy = options.offlinePolicy ?? 'optimistic';
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const log = options.log ?? (() => undefined);
  const { changed } = hooks;
  const background = new BackgroundWork();
  const drainAbort = new AbortController();
  const drains: DrainSchedule = new DrainSchedule({
    pass: () =>
      drainPass({
        store,
        client,
        discovery,
        link,
        background,
        lan,
        schedule: () => drains,
        now,
        random,
        backoff,
        concurrency: options.drainConcurrency,
        timeoutMs: options.drainTimeoutMs,
        signal: drainAbort.signal,
        heartbeat: (afterDrain) => heartbeat.run(afterDrain),
        syncRevocationsIfBehind: () => revocationSchedule.runIfBehind(),
        changed,
      }),
    auto: options.autoDrain !== false,
    backoff,
    now,
    random,
  });
  // A damaged file is set aside and its readable rows carried over (store-recovery.ts).
  const opened = openStoreWithRecovery(options.dbPath, { log });
  const store = opened.store;
  // This run's recovery is news for the door too; an earlier one stays on Setup for IT.
  const recovery = store.getStorageRecovery<StorageRecovery>();
  const storage: KioskState['storage'] = recovery
    ? {
        state: opened.recovery ? 'recovered' : 'recovered_earlier',
        message: recoveryMessage(recovery),
        damaged_file: recovery.damaged_file,
      }
    : null;
  const reads = new ReadPaths({
    store,
    now,
    log,
    changed,
    lanes: options.lanes,
    repeatReadWindowMs: options.repeatReadWindowMs,
    actsOnCalibration: (mappingLanes) => actsOnCalibration({ onSetup: hooks.onSetup(), mappingLanes, unlockedAs: staff.unlockedRole() }),
  });
  const staff = new StaffAccess({
    store,
    now,
    log,
    onExpiry: changed,
    ...(options.staffIdleMs === undefined ? {} : { idleMs: options.staffIdleMs }),
  });
  // docs/kiosk.md "The kiosk's clock": each issuer answer's Date tells the kiosk its clock's offset; the door's
  // decisions, the times it records (and sends) and the heartbeat go by the issuer's time as last known.
  const clock = new IssuerClock({ store, now, log, changed });
  const doorNow = clock.issuerNow;
  const clientOptions: IssuerClientOptions = { now, noteIssuerTime: (bounds) => clock.note(bounds) };
  if (options.fetch) clientOptions.fetch = options.fetch;
  if (options.dispatcher) clientOptions.dispatcher = options.dispatcher;
  const client = new IssuerClient(clientOptions);
  const discovery = new DiscoveryCache({
    store,
    client,
    now,
    ...(options.discoveryMaxAgeMs === undefined ? {} : { maxAgeMs: options.discoveryMaxAgeMs }),
    ...(options.discoveryMinRefetchIntervalMs === undefined ? {} : { minRefetchIntervalMs: options.discoveryMinRefetchIntervalMs }),
  });
  // scanner_id is generated on first start, not at first enrollment; the keyring entry is this kiosk's own.
  const scannerId = store.identity().scanner_id;
  const link = new IssuerLink({
    apiKeys: options.apiKeys,
    scannerId,
    discovery,
    interactiveTimeoutMs: options.interactiveTimeoutMs ?? 10_000,
    onChange: changed,
  });
  const lan = new LanDoor({ lan: options.lan, store, apiKeys: options.apiKeys, discovery, background, log, now: doorNow });
  store.identity(); // scanner_id is generated on first start, not at first enrollment
  // A pinned self-signed issuer stays pinned across restarts (docs/protocol.md "Self-signed issuers").
  const enrollment = store.getEnrollment();
  if (enrollment?.tls_cert_sha256) client.pinCertificate(enrollment.iss, enrollment.tls_cert_sha256);
  // docs/kiosk.md "Secret storage": a key kept in the older per-issuer entry becomes this kiosk's own at start
  // (reading it takes it over); a keyring that fails now is reported by the first call that needs the key.
  if (enrollment) background.run(link.loadApiKey(enrollment));
  // Scans left in the queue by a previous run go out as soon as possible.
  if (store.pendingCount() > 0) drains.soon();
  const annulWindowMs = options.annulWindowMs ?? DEFAULT_ANNUL_WINDOW_MS;
  const heartbeat: Heartbeat = new Heartbeat({
    store,
    client,
    link,
    background,
    now: doorNow,
    clockOffsetMs: () => clock.view().offset_ms,
    log,
    annulWindowMs,
    intervalMs: options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS,
    drainSoon: () => drains.soon(),
    syncRevocationsIfBehind: () => revocationSchedule.runIfBehind(),
    changed,
  });
  const revocationSyncMs = options.revocationSyncIntervalMs ?? REVOCATION_SYNC_INTERVAL_MS;
  const revocations = new RevocationSync({
    store,
    client,
    now,
    // A zero period (no timer) still makes a successful call sync when the last sync is a minute old.
    syncIntervalMs: revocationSyncMs > 0 ? revocationSyncMs : REVOCATION_SYNC_INTERVAL_MS,
    maxAgeMs: options.revocationMaxAgeMs ?? DEFAULT_REVOCATION_MAX_AGE_MS,
  });
  const revocationSchedule: RevocationSchedule = new RevocationSchedule({
    sync: revocations,
    store,
    link,
    background,
    log,
    intervalMs: revocationSyncMs,
    changed,
    notes: new NotesSync({ store, client, now }),
  });
  const door = { store, client, link, drains, heartbeat, lan, now: doorNow, budgetMs, changed };
  const idChecks = new IdCheckDoor({ now, changed, audit: (at) => store.auditDoorRefusal(null, 'id_check_pending', at) });
  const parties = new PartyDoor({ now, changed, audit: (at) => store.auditDoorRefusal(null, 'party_pending', at) });
  const doorScan = new DoorScan({
    ...door,
    discovery,
    background,
    revocations,
    revocationSchedule,
    staff,
    kioskPolicy: policy,
    notes: (payload) => store.attentionOf(payload.tid, payload.tt ?? null),
    idCheck: (payload) => store.idCheckOf(payload.tid, payload.tt ?? null, payload.hn ?? null),
    // docs/kiosk.md "Handouts": the issuer's answer or the synced list, with this kiosk's own handouts and its LAN peers'.
    handouts: (payload, fromAnswer) =>
      store.handouts.handoutsFor(
        payload.tid,
        payload.tt ?? null,
        store.identity().scanner_name ?? store.identity().scanner_id,
        fromAnswer,
        lan.peerHandouts(payload.tid),
      ),
    isStation: () => {
      const enrollment = store.getEnrollment();
      return enrollment !== null && heartbeat.last(enrollment)?.response.role === 'handout';
    },
    askIdCheck: (pending) => idChecks.ask(pending),
    partySize: (tid) => store.partySizeOf(tid),
    partyFacts: (tid) => store.partyFacts(tid),
    askParty: (pending) => parties.ask(pending),
    show: hooks.show,
  });
  const attention = new AttentionDoor({
    now,
    holdSeconds: options.attentionHoldSeconds ?? DEFAULT_ATTENTION_HOLD_SECONDS,
    changed,
    audit: (at) => store.auditDoorRefusal(null, 'attention_held', at),
    auditOverride: (detail) => staff.record(detail),
  });
  if (enrollment && options.lan) background.run(lan.join());
  return {
    now,
    log,
    policy,
    store,
    storage,
    reads,
    staff,
    client,
    clock,
    discovery,
    link,
    background,
    lan,
    drains,
    drainAbort,
    heartbeat,
    revocations,
    revocationSchedule,
    doorScan,
    annulDeps: { ...door, annulWindowMs, log, staff },
    attention,
    idChecks,
    parties,
  };
}
