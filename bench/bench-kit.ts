/**
 * What every benchmark shares: reading its options from the command line,
 * nearest-rank percentiles of its samples, and its figures printed.
 */

export interface NumberLimits {
  /** Smallest whole number accepted (default 1). */
  min?: number;
  /** Largest number accepted; without it any positive safe whole number is. */
  max?: number;
  /** Accept fractions too: then any number above 0 up to max (a short soak of 0.5 minutes). */
  fraction?: boolean;
}

/**
 * The number given after `flag` (`--scans 50`), or `fallback` when the flag
 * is absent. Throws, saying what the flag takes, when the value is out of range.
 */
export function numberOption(
  argv: readonly string[],
  flag: string,
  fallback: number,
  { min = 1, max, fraction = false }: NumberLimits = {},
): number {
  const i = argv.indexOf(flag);
  if (i < 0) return fallback;
  const n = Number(argv[i + 1]);
  const tooSmall = fraction ? n <= 0 : n < min;
  const tooLarge = n > (max ?? Number.MAX_SAFE_INTEGER);
  if (!Number.isFinite(n) || tooSmall || tooLarge || (!fraction && !Number.isInteger(n))) {
    throw new Error(
      max === undefined
        ? `${flag} needs a positive whole number`
        : `${flag} needs a ${fraction ? '' : 'whole '}number from ${min} to ${max}`,
    );
  }
  return n;
}

/** The word given after `flag`, or `fallback` when the flag is absent (undefined when the flag ends the line). */
export function textOption(argv: readonly string[], flag: string, fallback: string): string | undefined {
  const i = argv.indexOf(flag);
  return i < 0 ? fallback : argv[i + 1];
}

/** Nearest-rank percentile of sorted values (NaN when there are none). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of a set of samples, in any order (NaN when there are none). */
export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** A figure as printed: thousands grouped (en-US), `digits` decimals. */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
