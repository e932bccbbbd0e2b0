/** Timestamps as the issuer writes them (docs/protocol.md "Times": ISO 8601 UTC; `iat`/`exp` are Unix seconds). */

/** UTC, second precision: the form every timestamp the issuer stores and prints takes. */
export function isoUtc(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

export const addHours = (date: Date, hours: number): Date => new Date(date.getTime() + hours * 3_600_000);
