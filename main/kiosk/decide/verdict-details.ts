/**
 * A verdict's details (docs/kiosk.md "Verdict details"): what a steward and up see behind the verdict screen's
 * Details, from the verdict the door showed and the override of its attention prompt, if any. The screen's words
 * sum these up; here they are the codes, times and ids, and who overrode the prompt.
 *
 * Pure, in decide/: no store, no clock of its own.
 */
import type { Verdict } from '../../../protocol/index.js';
import type { AttentionOverride, IdCheckAnswer, VerdictDetails } from '../kiosk-api.js';

/** The verdict of `verdicts` (newest first) decided at `decidedAt`, or null when it is not among them any more. */
export function findVerdict(verdicts: readonly Verdict[], decidedAt: string): Verdict | null {
  return verdicts.find((verdict) => verdict.decided_at === decidedAt) ?? null;
}

export function verdictDetailsOf(
  verdict: Verdict,
  override: AttentionOverride | null,
  idCheck: IdCheckAnswer | null = null,
): VerdictDetails {
  const refusal = verdict.kind === 'refuse' ? verdict : null;
  const firstUsedAt = refusal?.first_used_at;
  return {
    decided_at: verdict.decided_at,
    kind: verdict.kind,
    reason: refusal?.reason ?? null,
    decided_by: verdict.decided_by,
    offline: verdict.offline,
    lane: verdict.lane ?? null,
    tid: verdict.ticket?.tid ?? null,
    eid: verdict.ticket?.eid ?? null,
    ticket_type: verdict.ticket?.ticket_type ?? null,
    first_used:
      firstUsedAt === undefined
        ? null
        : {
            at: firstUsedAt,
            gate: refusal?.first_used_gate ?? null,
            scanner_id: refusal?.first_used_scanner ?? null,
            offline: refusal?.first_used_offline ?? null,
          },
    rule: refusal?.rule?.name ?? null,
    detail: refusal?.detail ?? null,
    revocations_synced_at: refusal?.revocations_synced_at ?? null,
    attention:
      verdict.kind === 'admit' && verdict.attention ? { required: verdict.attention.required, notes: [...verdict.attention.notes] } : null,
    override,
    ...(idCheck === null ? {} : { id_check: idCheck }),
  };
}
