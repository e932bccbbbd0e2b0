/**
 * The offline exposure policy at the door (docs/protocol.md "Door operations",
 * "Offline exposure policy"; docs/kiosk.md "Offline exposure policy"): when
 * the issuer cannot be reached, may this kiosk admit this ticket on its
 * signature alone?
 *
 * Pure: the caller passes the policies of the last heartbeat, the ticket's
 * type and this kiosk's own offline admissions. One ordered list of named
 * checks with stable codes, as in verdict.ts: the first that refuses decides.
 */
import { DEFAULT_OFFLINE_POLICIES, policyForType, typeKey, type OfflineExposurePolicy, type OfflinePolicies } from './door.js';
import { ticketFromPayload, type OfflinePolicy, type RefuseVerdict } from './verdict.js';
import type { IsoDateTime, TicketPayload } from './types.js';

/** The window a `capped` policy counts in. */
export const ROLLING_HOUR_MS = 60 * 60_000;

/** The exposure checks, in precedence order. */
export const EXPOSURE_CHECKS = [
  'kiosk_strict', // the kiosk's own `strict` option: nothing is admitted offline
  'online_only', // the type's policy is online-only
  'hourly_cap', // a capped type has reached its cap in the last rolling hour
] as const;
export type ExposureCheckCode = (typeof EXPOSURE_CHECKS)[number];

export interface ExposureFacts {
  /** The kiosk's own offline option (KioskCoreOptions.offlinePolicy). */
  kioskPolicy: OfflinePolicy;
  /** From the last heartbeat; DEFAULT_OFFLINE_POLICIES (admit) when the issuer never sent any. */
  policies: OfflinePolicies;
  ticketType: string | undefined | null;
  /** This kiosk's offline admissions of the ticket's type in the last rolling hour (before this one). */
  admittedLastHour: number;
}

export type ExposureDecision =
  | { admit: true; policy: OfflineExposurePolicy }
  | { admit: false; check: 'kiosk_strict'; reason: 'offline' }
  | { admit: false; check: 'online_only'; reason: 'needs_connection'; policy: OfflineExposurePolicy }
  | { admit: false; check: 'hourly_cap'; reason: 'offline_cap_reached'; policy: OfflineExposurePolicy; count: number; cap: number };

type Refusal = Extract<ExposureDecision, { admit: false }>;

const RULES: Readonly<Record<ExposureCheckCode, (facts: ExposureFacts, policy: OfflineExposurePolicy) => Refusal | null>> = {
  kiosk_strict: (facts) => (facts.kioskPolicy === 'strict' ? { admit: false, check: 'kiosk_strict', reason: 'offline' } : null),
  online_only: (_facts, policy) =>
    policy.policy === 'online-only' ? { admit: false, check: 'online_only', reason: 'needs_connection', policy } : null,
  hourly_cap: (facts, policy) => {
    if (policy.policy !== 'capped') return null;
    // A capped policy without its number admits nothing offline: the safe reading of a malformed answer.
    const cap = Math.max(0, Math.floor(policy.per_hour ?? 0));
    return facts.admittedLastHour >= cap
      ? { admit: false, check: 'hourly_cap', reason: 'offline_cap_reached', policy, count: facts.admittedLastHour, cap }
      : null;
  },
};

/** May this ticket be admitted offline? Exits are never limited: only admissions are exposure. */
export function decideOfflineAdmission(facts: ExposureFacts): ExposureDecision {
  const policy = policyForType(facts.policies, facts.ticketType);
  for (const check of EXPOSURE_CHECKS) {
    const refusal = RULES[check](facts, policy);
    if (refusal) return refusal;
  }
  return { admit: true, policy };
}

/** The door's refusal for an exposure decision that refused. */
export function exposureRefusal(decision: Refusal, payload: TicketPayload, decidedAt: IsoDateTime): RefuseVerdict {
  const verdict: RefuseVerdict = {
    kind: 'refuse',
    reason: decision.reason,
    decided_at: decidedAt,
    offline: true,
    decided_by: decision.check === 'kiosk_strict' ? 'offline_policy' : 'exposure_policy',
    ticket: ticketFromPayload(payload),
  };
  switch (decision.check) {
    case 'kiosk_strict':
      verdict.detail = 'issuer unreachable; strict offline policy';
      break;
    case 'online_only':
      verdict.detail = `issuer unreachable; ticket type "${typeKey(payload.tt)}" is online-only`;
      break;
    case 'hourly_cap':
      verdict.offline_count = decision.count;
      verdict.offline_cap = decision.cap;
      verdict.detail = `issuer unreachable; ${decision.count} of ${decision.cap} offline admissions of type "${typeKey(payload.tt)}" in the last hour`;
      break;
  }
  return verdict;
}

/** One offline admission by this kiosk: its ticket type and when. */
export interface OfflineAdmission {
  ticket_type: string | null;
  admitted_at: IsoDateTime;
}

/** Admissions per type key ('' for no type) within the last rolling hour before `nowMs` (heartbeat `offline_last_hour`). */
export function admissionsLastHour(admissions: readonly OfflineAdmission[], nowMs: number): Record<string, number> {
  const since = nowMs - ROLLING_HOUR_MS;
  const counts: Record<string, number> = {};
  for (const admission of admissions) {
    const at = Date.parse(admission.admitted_at);
    if (!(at > since && at <= nowMs)) continue;
    const key = typeKey(admission.ticket_type);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** What staff see per ticket type: this hour's offline admissions and the cap, if the type has one. */
export interface ExposureRow {
  ticket_type: string;
  policy: OfflineExposurePolicy['policy'];
  last_hour: number;
  cap: number | null;
  /** Offline admissions of this type the issuer has not answered yet (the heartbeat's `offline_exposure`). */
  unsynced: number;
}

/**
 * One row per type that has a policy of its own, an offline admission this hour or one not yet
 * synced, and one for the default (''), sorted by type.
 */
export function exposureRows(
  policies: OfflinePolicies | null,
  lastHour: Readonly<Record<string, number>>,
  unsynced: Readonly<Record<string, number>> = {},
): ExposureRow[] {
  const known = policies ?? DEFAULT_OFFLINE_POLICIES;
  const types = new Set<string>(['', ...Object.keys(known.by_type), ...Object.keys(lastHour), ...Object.keys(unsynced)]);
  return [...types].sort().map((type) => {
    const policy = policyForType(known, type);
    return {
      ticket_type: type,
      policy: policy.policy,
      last_hour: lastHour[type] ?? 0,
      cap: policy.policy === 'capped' ? Math.max(0, Math.floor(policy.per_hour ?? 0)) : null,
      unsynced: unsynced[type] ?? 0,
    };
  });
}
