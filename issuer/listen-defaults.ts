/**
 * Where the issuer listens unless told (docs/issuer.md "TLS"): `ticket-issuer serve` and the on-site issuer alike.
 */
import { isLoopbackHost } from '../protocol/base-url.js';

/** The port when the base URL names none. */
export const DEFAULT_PORT = 8443;
export const DEFAULT_HOST = '127.0.0.1';

/**
 * Scanners reach the issuer at its base URL, so a loopback base URL means
 * loopback only, and any other means every interface (a venue laptop's
 * scanners come over the LAN); the port is the base URL's.
 */
export function defaultListen(baseUrl: string): { host: string; port: number } {
  const url = new URL(baseUrl);
  return { host: isLoopbackHost(url.hostname) ? DEFAULT_HOST : '0.0.0.0', port: url.port === '' ? DEFAULT_PORT : Number(url.port) };
}
