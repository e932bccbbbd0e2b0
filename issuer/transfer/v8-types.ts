/**
 * The value types format version 8 added to the export file (docs/issuer.md "Moving an issuer to the venue and
 * back"): an event's check-out at a set time (docs/protocol.md "Check-out at a set time"). Each is checked by the rule
 * `event set --exit-all-at` applies, in the form it stores (issuer/services/exit-all.ts parseExitAllOptions), so an
 * import refuses what the CLI would have refused, naming the row and the field (file.ts checkRow). The kiosks' staff
 * records, the other table of version 8, are checked whole by the heartbeat's own rule (read.ts, protocol/staff-actions.ts
 * staffActionProblem).
 */
import { isTimeZone, parseExitAllAt } from '../../protocol/exit-all.js';
import type { TransferType } from '../store/columns.js';

/** `HH:MM` or a moment in UTC, exactly as the issuer stores what `--exit-all-at` was given (never `none`: no row). */
function isStoredExitAllAt(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const parsed = parseExitAllAt(v);
  return parsed.ok && parsed.at === v;
}

export const V8_TYPE_CHECKS = {
  exit_all_at: isStoredExitAllAt,
  time_zone: (v) => typeof v === 'string' && isTimeZone(v),
} satisfies Partial<Record<TransferType, (value: unknown) => boolean>>;

export const V8_TYPE_NAMES: Record<keyof typeof V8_TYPE_CHECKS, string> = {
  exit_all_at: 'a daily time HH:MM or an RFC 3339 moment in UTC (2026-07-12T04:00:00Z), as event set --exit-all-at stores it',
  time_zone: 'an IANA time zone (e.g. Europe/Berlin, UTC), as event set --time-zone accepts',
};
