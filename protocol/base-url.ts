/**
 * Issuer base URL rules (docs/protocol.md
 * "Base URL"): HTTPS, no trailing slash; http:// only for loopback hosts.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

export type BaseUrlProblem = 'not_a_url' | 'not_https' | 'trailing_slash' | 'has_query_or_fragment' | 'has_credentials';

/** Returns null when `value` is a canonical issuer base URL, else what is wrong with it. */
export function baseUrlProblem(value: string): BaseUrlProblem | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not_a_url';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) return 'not_https';
  if (url.username || url.password) return 'has_credentials';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'has_query_or_fragment';
  if (value.endsWith('/')) return 'trailing_slash';
  return null;
}

/** The same rule for any URL an issuer hands out (enroll_url, endpoints): HTTPS unless loopback. */
export function isSecureOrLoopbackUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
}
