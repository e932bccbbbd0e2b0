/** Setup-screen wording: enrollment failures in plain words, and the re-enroll question. Pure. */
import type { EnrollFailureCode, SetupSummary } from '../kiosk-bridge-types.js';
import { t, tn, type PlainMessageKey } from '../messages/format.js';

const ENROLL_FAILURE_MESSAGE: Readonly<Record<EnrollFailureCode, PlainMessageKey>> = {
  not_a_setup_code: 'setup.error.not_a_setup_code',
  unsupported_version: 'setup.error.unsupported_version',
  bad_issuer_url: 'setup.error.bad_issuer_url',
  bad_enroll_url: 'setup.error.bad_enroll_url',
  setup_expired: 'setup.error.setup_expired',
  issuer_unreachable: 'setup.error.issuer_unreachable',
  bad_discovery: 'setup.error.bad_discovery',
  enroll_url_mismatch: 'setup.error.enroll_url_mismatch',
  token_invalid: 'setup.error.token_invalid',
  token_revoked: 'setup.error.token_revoked',
  protocol_version_unsupported: 'setup.error.protocol_version_unsupported',
  rate_limited: 'setup.error.rate_limited',
  issuer_error: 'setup.error.issuer_error',
  scope_mismatch: 'setup.error.scope_mismatch',
  secret_store_unavailable: 'setup.error.secret_store_unavailable',
};

export function enrollFailureText(code: EnrollFailureCode): string {
  // A code newer than this renderer still gets a sentence rather than nothing.
  const key = ENROLL_FAILURE_MESSAGE[code] as PlainMessageKey | undefined;
  return t(key ?? 'setup.error.failed');
}

export interface ReEnrollQuestion {
  title: string;
  current: string;
  proposed: string;
  pending: string | null;
}

export function reEnrollQuestion(
  current: { event_name: string; gate_id: string | null } | null,
  proposed: SetupSummary,
  pendingScans: number,
): ReEnrollQuestion {
  return {
    title: t('setup.confirm.title'),
    current: current ? t('setup.confirm.current', { event: withGate(current.event_name, current.gate_id) }) : '',
    proposed: t('setup.confirm.proposed', { event: withGate(proposed.event_name ?? t('setup.confirm.unnamed_event'), proposed.gate_id) }),
    pending: pendingScans === 0 ? null : tn('setup.confirm.pending', pendingScans),
  };
}

function withGate(event: string, gate: string | null): string {
  return `${event} — ${gate ? t('ready.gate', { gate }) : t('ready.all_gates')}`;
}
