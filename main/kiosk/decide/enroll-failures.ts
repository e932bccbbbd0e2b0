/**
 * Every reason an enrollment can fail, as a list (the codes and what each
 * means are the bridge's EnrollFailureCode, renderer/kiosk-bridge-types.ts):
 * tests check that each has a message on the screens. The compiler keeps the
 * list and the type equal.
 */
import type { EnrollFailureCode } from '../../../renderer/kiosk-bridge-types.js';

export type { EnrollFailureCode };

export const ENROLL_FAILURES = [
  'not_a_setup_code',
  'unsupported_version',
  'bad_issuer_url',
  'bad_enroll_url',
  'setup_expired',
  'issuer_unreachable',
  'bad_discovery',
  'enroll_url_mismatch',
  'token_invalid',
  'token_revoked',
  'protocol_version_unsupported',
  'rate_limited',
  'issuer_error',
  'scope_mismatch',
  'secret_store_unavailable',
] as const satisfies readonly EnrollFailureCode[];

/** A compile error names any EnrollFailureCode missing from ENROLL_FAILURES. */
export type EnrollFailuresListed = Unlisted<Exclude<EnrollFailureCode, (typeof ENROLL_FAILURES)[number]>>;
type Unlisted<Missing extends never> = Missing;
