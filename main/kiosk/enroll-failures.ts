/**
 * Why an enrollment failed: stable codes the screens translate. Its own
 * dependency-free module, so kiosk-api.ts (and through it the renderer's
 * DOM type check) never pulls in the Node-only core.
 */
export const ENROLL_FAILURES = [
  'not_a_setup_code', // a `tsetup1.` code that does not decode
  'unsupported_version', // setup `v` not spoken here
  'bad_issuer_url', // `iss` is not an HTTPS (or loopback) base URL
  'bad_enroll_url', // `enroll_url` is not HTTPS (or loopback)
  'setup_expired', // the setup code's `expires_at` has passed
  'issuer_unreachable', // discovery or the exchange could not reach the issuer
  'bad_discovery', // the discovery document is invalid
  'enroll_url_mismatch', // `enroll_url` differs from discovery endpoints.scanner_enroll
  'token_invalid', // 400 INVALID_TOKEN: malformed, expired or already used
  'token_revoked', // 403 TOKEN_REVOKED
  'protocol_version_unsupported', // 400 PROTOCOL_VERSION_UNSUPPORTED
  'rate_limited', // 429
  'issuer_error', // 5xx or an answer that is not per spec
  'scope_mismatch', // the issuer answered for another issuer or event than the setup code named
  'secret_store_unavailable', // no usable OS keyring to keep the API key (spec "Authentication" 8)
] as const;
export type EnrollFailureCode = (typeof ENROLL_FAILURES)[number];
