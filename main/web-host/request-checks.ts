/**
 * Where the web host may listen, and which requests it refuses before
 * anything else (docs/kiosk.md "The browser host"): whoever can call its API
 * operates the door. Pure.
 */
import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Null when the host may listen there; otherwise why not. */
export function listenProblem(host: string, allowRemote: boolean): string | null {
  if (isLoopbackAddress(host) || allowRemote) return null;
  return `refusing to listen on ${host}: anyone who can reach it could operate the door. Listen on 127.0.0.1, or pass --allow-remote if that is really intended.`;
}

export interface RequestFacts {
  hostHeader: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

/**
 * Null when the request may proceed; otherwise what to refuse with. Pure.
 * `configuredHost` is the --host value, `port` the port we listen on.
 */
export function requestProblem(facts: RequestFacts, configuredHost: string, port: number, isApi: boolean): string | null {
  const host = parseHostHeader(facts.hostHeader);
  if (!host) return 'the Host header is missing or malformed';
  if (host.port !== port) return 'the Host header names another port';
  const name = host.hostname.toLowerCase();
  const known = isIP(name.replace(/^\[|\]$/g, '')) !== 0 || name === 'localhost' || name === configuredHost.toLowerCase();
  if (!known) return 'the Host header names another server (DNS rebinding?)';
  if (!isApi) return null;
  if (facts.origin !== undefined && facts.origin !== `http://${facts.hostHeader}`) return 'cross-origin requests may not operate the kiosk';
  // Browsers send Sec-Fetch-Site; "none" is a typed URL or bookmark, never a page.
  if (facts.secFetchSite !== undefined && facts.secFetchSite !== 'same-origin' && facts.secFetchSite !== 'none') {
    return 'cross-site requests may not operate the kiosk';
  }
  return null;
}

function parseHostHeader(value: string | undefined): { hostname: string; port: number } | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== '/' || url.host !== value.toLowerCase()) return null;
  return { hostname: url.hostname, port: url.port === '' ? 80 : Number(url.port) };
}
