/**
 * Retry timing for the issuer client and the queue drain (docs/protocol.md
 * "Errors": INTERNAL → retry with exponential backoff; "Rate limits": back off
 * exponentially on 429 and respect Retry-After). Pure.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/**
 * Delay before retry number `attempt` (0 = first retry): exponential, capped,
 * with "equal jitter" (half fixed, half random) so a venue full of kiosks that
 * lost the network together does not come back in lockstep, yet never retries at once.
 */
export function backoffDelayMs(attempt: number, random: () => number = Math.random, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 30);
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * `Retry-After` (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date. The
 * protocol sends integer seconds; the date form is accepted too. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the IMF-fixdate form: Date.parse alone would read "-5" or "1.5" as years.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
