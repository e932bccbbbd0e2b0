/**
 * Which logged scans are alerts on the dashboard (docs/issuer.md "Admin dashboard"), and which of them is a double
 * admission a webhook tells of (docs/issuer.md "Webhooks"). Pure.
 */
import type { AlertKind } from '../dashboard-api.js';
import type { NewScanRow } from '../store/dashboard.js';
import { IMPORT_CONFLICT_OUTCOME } from '../store/log-rows.js';

/** An `already_used` that arrives this much after its scan is a possible offline double admission. */
export const LATE_SCAN_MS = 30_000;

export const ALERT_KINDS: readonly AlertKind[] = [
  'offline_double_admission',
  'merged_double_admission',
  'forged_signature',
  'revoked_ticket',
  'wrong_event',
];

/** The alert a logged scan raises, if any. Pure. */
export function alertKindOf(scan: Pick<NewScanRow, 'outcome' | 'at' | 'scanned_at'>, lateMs = LATE_SCAN_MS): AlertKind | null {
  switch (scan.outcome) {
    case 'invalid_signature':
      return 'forged_signature';
    // Written by `ticket-issuer import` when both copies of the issuer checked the ticket in (issuer/transfer/merge-checkins.ts).
    case IMPORT_CONFLICT_OUTCOME:
      return 'merged_double_admission';
    case 'revoked':
      return 'revoked_ticket';
    case 'wrong_event':
      return 'wrong_event';
    case 'already_used': {
      const delay = scanDelayMs(scan);
      return delay !== null && delay > lateMs ? 'offline_double_admission' : null;
    }
    default:
      return null;
  }
}

/** How long after its scan the issuer received it; null when scanned_at is missing or unreadable. */
export function scanDelayMs(scan: Pick<NewScanRow, 'at' | 'scanned_at'>): number | null {
  if (scan.scanned_at === null) return null;
  const scanned = Date.parse(scan.scanned_at);
  const at = Date.parse(scan.at);
  return Number.isNaN(scanned) || Number.isNaN(at) ? null : at - scanned;
}
