/**
 * The scanner heartbeat (docs/protocol.md "Scanner heartbeat"): sent every minute while enrolled, after each
 * discovery refresh and after each drain pass; its answer (the event's door settings, this scanner's rights,
 * the occupancy) is kept in the local store so a kiosk that restarts offline still applies it. It carries the
 * staff records the issuer has not acknowledged yet (docs/kiosk.md "The kiosk's audit log"). Also the
 * store reads behind the door rules (decide/door-operations.ts), which are pure.
 * In sync/: it talks to the issuer and keeps its answer; what the answer means is decided in decide/.
 */
import { admissionsLastHour, type HeartbeatRequest, type Occupancy } from '../../../protocol/index.js';
import { MAX_STAFF_ACTIONS_PER_HEARTBEAT } from '../../../protocol/staff-actions.js';
import type { StaffRole } from '../../../protocol/access.js';
import { doorView, heartbeatOfEvent, rollingHourStart, withOccupancy } from '../decide/door-operations.js';
import { acknowledged, staffActionsToSend } from '../decide/staff-actions.js';
import type { Enrollment, LocalStore, StoredHeartbeat } from '../store/local-store.js';
import type { BackgroundWork } from './background.js';
import { heartbeatUrlOf } from './discovery.js';
import type { HeartbeatCall, IssuerClient } from './issuer-client.js';
import type { IssuerLink } from './issuer-link.js';

/** docs/protocol.md "Scanner heartbeat": every minute while online. */
export const HEARTBEAT_INTERVAL_MS = 60_000;

export interface HeartbeatDeps {
  store: LocalStore;
  client: IssuerClient;
  link: IssuerLink;
  background: BackgroundWork;
  /** The issuer's time as last known (sync/issuer-clock.ts): the stored admissions' times are on it. */
  now: () => number;
  /** What the kiosk knows of its clock's offset, sent with each heartbeat. */
  clockOffsetMs: () => number | null;
  log: (line: string) => void;
  /** How long staff may annul at the door, shown with the door's state. */
  annulWindowMs: number;
  /** Period of the timer; 0 for none (tests call run()). */
  intervalMs: number;
  /** An answer came and scans wait in the queue: send them soon. */
  drainSoon: () => void;
  /** An answer came: the revocation list syncs if it is behind. */
  syncRevocationsIfBehind: () => void;
  changed: () => void;
}

export class Heartbeat {
  private running: Promise<void> | null = null;
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: HeartbeatDeps) {
    if (deps.intervalMs > 0) {
      this.timer = setInterval(() => void this.run(), deps.intervalMs);
      this.timer.unref?.();
    }
  }

  /** The last heartbeat answer for the enrolled event (one for another event, before a re-enrollment, does not count). */
  last(enrollment: Enrollment): StoredHeartbeat | null {
    return heartbeatOfEvent(this.deps.store.getHeartbeat(), enrollment.eid);
  }

  /** An entry or exit answer's occupancy is newer than the last heartbeat's: kept, so the Ready screen's banner follows it. */
  noteOccupancy(enrollment: Enrollment, occupancy: Occupancy | undefined): boolean {
    const updated = withOccupancy(this.last(enrollment), occupancy);
    if (updated === null) return false;
    this.deps.store.saveHeartbeat(updated);
    return true;
  }

  /** What the state shows staff and the Ready screen (decide/door-operations.ts doorView). */
  view(enrollment: Enrollment | null, badgeRole: StaffRole | null = null): ReturnType<typeof doorView> {
    const nowMs = this.deps.now();
    const recentOfflineAdmissions = this.deps.store.offlineAdmissionsSince(rollingHourStart(nowMs));
    return doorView({
      heartbeat: enrollment ? this.last(enrollment) : null,
      recentOfflineAdmissions,
      unsyncedOfflineAdmissions: this.deps.store.unsyncedOfflineAdmissions(),
      nowMs,
      annulWindowMs: this.deps.annulWindowMs,
      badgeRole,
    });
  }

  /**
   * One scanner heartbeat now (docs/protocol.md "Scanner heartbeat"): also
   * what the timer runs every minute. Single-flight; nothing when not
   * enrolled, not authorised, or the issuer has no heartbeat endpoint.
   */
  run(afterDrain = false): Promise<void> {
    if (this.running) {
      // One in flight may have read the log head before the drain's records: another follows it.
      return afterDrain ? this.running.then(() => this.run(true)) : this.running;
    }
    const run = this.send(afterDrain)
      .catch((error: unknown) => this.deps.log(`Heartbeat failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.running = null;
      });
    this.running = run;
    return run;
  }

  /** Stops the timer and waits for a heartbeat in flight. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async send(afterDrain: boolean): Promise<void> {
    const { store, link, background } = this.deps;
    const opening = await link.backgroundCall(
      () => store.getEnrollment(),
      heartbeatUrlOf,
      () => background.closed,
    );
    if (!opening) return;
    const call = await this.exchange(opening.enrollment, opening.url, opening.apiKey);
    if (background.closed) return;
    // An answer says the issuer is there; no answer says nothing to the door: a background call that
    // failed must not make the next scans skip the issuer (the door's own requests decide that).
    if (call.kind !== 'unreachable' && call.kind !== 'server_error') link.noteConnection(call);
    // After a drain pass the schedule already knows what is left (and a heartbeat must not start another pass).
    if (!afterDrain && call.kind === 'answered' && store.pendingCount() > 0) this.deps.drainSoon();
    if (call.kind === 'answered') this.deps.syncRevocationsIfBehind();
    this.deps.changed();
  }

  /** Sends one heartbeat and keeps its answer. */
  private async exchange(enrollment: Enrollment, url: string, apiKey: string): Promise<HeartbeatCall> {
    const { store } = this.deps;
    const nowMs = this.deps.now();
    const request: HeartbeatRequest = {
      scanner_id: store.identity().scanner_id,
      direction: enrollment.direction,
      pending_scans: store.pendingCount(),
      offline_exposure: store.unsyncedOfflineAdmissions(),
      offline_last_hour: admissionsLastHour(store.offlineAdmissionsSince(rollingHourStart(nowMs)), nowMs),
      // The head of the kiosk's audit log (docs/kiosk.md "The kiosk's audit log"): the issuer keeps every one.
      log_head: store.logHead(),
    };
    // docs/kiosk.md "The kiosk's clock": the issuer lists kiosks whose clock is off.
    const clockOffsetMs = this.deps.clockOffsetMs();
    if (clockOffsetMs !== null) request.clock_offset_ms = clockOffsetMs;
    // docs/kiosk.md "The kiosk's audit log": the staff records the issuer has not acknowledged, 200 at most.
    const staff = staffActionsToSend(store.unacknowledgedStaffRecords(MAX_STAFF_ACTIONS_PER_HEARTBEAT));
    if (staff.reports.length > 0) request.staff_actions = staff.reports;
    const call = await this.deps.client.heartbeat(url, apiKey, request, { timeoutMs: this.deps.link.interactiveTimeoutMs });
    if (call.kind === 'answered' && call.response.eid === enrollment.eid) {
      store.saveHeartbeat({ response: call.response, received_at: new Date(this.deps.now()).toISOString() });
    }
    // Kept only once the issuer has said so: a crash before this line sends the same records again (at least once).
    const ack = acknowledged(staff.reports, staff.last, call.kind === 'answered' ? call.response.staff_actions_through : undefined);
    if (ack !== null) store.acknowledgeStaffRecords(ack);
    return call;
  }
}
