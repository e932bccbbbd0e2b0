/**
 * How long a client may take and how many may connect at once
 * (docs/issuer.md "Threats handled", slow clients). Without these, anyone on
 * a venue's LAN could open connections and send their bodies a byte at a
 * time until the issuer stopped answering the doors.
 *
 * A kiosk's check-in is one small request (at most 16 KB) answered in
 * milliseconds, so every limit here leaves a slow but honest client seconds
 * to spare.
 */

export interface ConnectionTimeouts {
  /** The request line and headers must arrive within this time. */
  headersMs: number;
  /** The whole request, body included, must arrive within this time. */
  requestMs: number;
  /** A connection with no traffic at all (never sent a request, or stalled) is closed after this. */
  idleMs: number;
  /** An idle keep-alive connection between a kiosk's scans is kept this long. */
  keepAliveMs: number;
  /** A TLS handshake must finish within this time (Node's default is 120 s). */
  tlsHandshakeMs: number;
  /** How often Node checks the header and request timeouts (its default, 30 s, would let a slow client stay 45 s). */
  checkIntervalMs: number;
}

export const DEFAULT_TIMEOUTS: ConnectionTimeouts = {
  headersMs: 10_000,
  requestMs: 15_000,
  idleMs: 20_000,
  keepAliveMs: 10_000,
  tlsHandshakeMs: 10_000,
  checkIntervalMs: 1_000,
};

/** Open connections at most; further ones are refused at once (serve --max-connections). */
export const DEFAULT_MAX_CONNECTIONS = 1_000;

/** Options for http(s).createServer: Node applies the header and request timeouts itself. */
export function serverTimeoutOptions(timeouts: ConnectionTimeouts) {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  } as const;
}

/**
 * `--trust-proxy` entries: IPv4/IPv6 addresses or CIDR ranges of the reverse
 * proxies whose X-Forwarded-For is believed. Returns the problem, or null.
 */
export function trustedProxyProblem(entry: string): string | null {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || address === undefined) return `"${entry}" is not an address or a CIDR range`;
  const version = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (version === 0) return `"${entry}" is not an IPv4 or IPv6 address or CIDR range`;
  if (prefix === undefined) return null;
  const bits = Number(prefix);
  const max = version === 4 ? 32 : 128;
  if (!/^\d+$/.test(prefix) || bits > max) return `"${entry}" has a prefix length outside 0-${max}`;
  return null;
}

function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

function isIPv6(text: string): boolean {
  return /^[0-9a-f:.]+$/i.test(text) && text.includes(':') && (text.match(/::/g)?.length ?? 0) <= 1;
}
