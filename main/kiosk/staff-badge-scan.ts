/**
 * A staff badge read at the door (docs/kiosk.md "Staff badges"): checked like
 * a ticket, offline too, against the issuer keys this kiosk holds, its event,
 * the issuer's time as last known (docs/kiosk.md "The kiosk's clock") and the
 * revoked badges the revocation list brought. A good one unlocks its role; a
 * refused one is audited. A badge is never checked in as a ticket.
 */
import { checkStaffBadge } from '../../protocol/staff-badge.js';
import type { ScanResult } from './kiosk-api.js';
import { verifyEd25519Node } from './node-ed25519.js';
import type { StaffAccess } from './staff-access.js';
import type { LocalStore } from './store/local-store.js';
import type { DiscoveryCache } from './sync/discovery.js';

export interface StaffBadgeScanDeps {
  store: LocalStore;
  discovery: Pick<DiscoveryCache, 'cached'>;
  staff: StaffAccess;
  /** The issuer's time as last known: a badge's window is the issuer's. */
  now: () => number;
  changed: () => void;
}

export function scanStaffBadge(code: string, deps: StaffBadgeScanDeps): ScanResult {
  const { store, staff } = deps;
  const enrollment = store.getEnrollment();
  if (!enrollment) {
    const message = 'this kiosk is not enrolled: a staff badge works at a kiosk of its event';
    staff.refuseBadge('event', message);
    return { type: 'staff_badge_refused', check: 'event', message };
  }
  const revoked = new Set(store.getRevokedBadges(enrollment.eid));
  const result = checkStaffBadge(code, {
    issuer: enrollment.iss,
    keys: deps.discovery.cached(enrollment.iss)?.keys ?? [],
    nowMs: deps.now(),
    eid: enrollment.eid,
    verify: verifyEd25519Node,
    isRevoked: (sid) => revoked.has(sid),
  });
  if (!result.ok) {
    staff.refuseBadge(result.check, result.message, result.badge);
    deps.changed();
    return { type: 'staff_badge_refused', check: result.check, message: result.message };
  }
  const { person, until } = staff.unlockBadge(result.badge, code);
  deps.changed();
  return { type: 'staff_unlocked', person, unlocked_until: until };
}
