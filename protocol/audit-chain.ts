/**
 * Tamper-evident logs (docs/issuer.md "Audit: tamper-evident logs"): every record of the issuer's scan_log,
 * and of each kiosk's audit log, is chained to the one before it with SHA-256.
 *
 *     hash = hex(SHA-256(prev_hash ‖ enc(field₁) ‖ enc(field₂) ‖ …))
 *
 * - prev_hash: the previous record's hash as 64 lowercase hex characters (its ASCII bytes); the first
 *   record's is GENESIS_HASH, 64 zeros.
 * - enc(null) = "~"; enc(text) = its UTF-8 byte length in decimal, ":", then its UTF-8 bytes; an integer is
 *   encoded as the text of its decimal digits ("-" first when negative). No separators: the lengths make
 *   the encoding unambiguous.
 * - The fields, in a fixed order that starts with the record's position (1, 2, 3, … with no gaps), are
 *   listed where each log is defined (SCAN_LOG_CHAIN_FIELDS, KIOSK_LOG_CHAIN_FIELDS).
 *
 * Pure (no I/O, no node: module): the same code runs in the issuer and in the kiosk.
 */
import { sha256 } from '@noble/hashes/sha2.js';

export const GENESIS_HASH = '0'.repeat(64);

export type ChainField = string | number | null;

/** The issuer's scan_log fields as hashed, in this order. */
export const SCAN_LOG_CHAIN_FIELDS = [
  'position',
  'at',
  'scanned_at',
  'tid',
  'eid',
  'scanner_id',
  'api_key_id',
  'gate_id',
  'idempotency_key',
  'outcome',
  'details',
  'origin',
] as const;

/** A kiosk's audit_log fields as hashed, in this order. */
export const KIOSK_LOG_CHAIN_FIELDS = ['position', 'at', 'kind', 'idempotency_key', 'tid', 'detail'] as const;

/** A chain head: the last record's position (0 and GENESIS_HASH for an empty log) and hash. */
export interface LogHead {
  position: number;
  hash: string;
}

const encoder = new TextEncoder();

function encodeField(value: ChainField): string {
  if (value === null) return '~';
  const text = typeof value === 'number' ? fieldNumber(value) : value;
  return `${utf8Length(text)}:${text}`;
}

/**
 * The UTF-8 byte length of a string, counted without encoding it: a TextEncoder call per field cost more than
 * the hash itself on the check-in path (docs/benchmarks.md "The hash chain"). A lone surrogate counts 3 bytes,
 * as TextEncoder encodes it (U+FFFD).
 */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one code point beyond U+FFFF
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function fieldNumber(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`a chained number must be an integer, not ${value}`);
  return String(value);
}

/** The bytes that are hashed for one record. */
export function chainMessage(prevHash: string, fields: readonly ChainField[]): Uint8Array {
  return encoder.encode(prevHash + fields.map(encodeField).join(''));
}

/** SHA-256 of a message as 64 lowercase hex characters. */
export type Sha256Hex = (message: Uint8Array) => string;

/**
 * The pure one (@noble/hashes), for any platform. The issuer and the kiosk pass node:crypto's, which gives
 * the same hex about ten times faster: about 19 µs a record here went to hashing on the check-in path
 * (docs/benchmarks.md "The hash chain").
 */
export const pureSha256Hex: Sha256Hex = (message) => {
  let hex = '';
  for (const byte of sha256(message)) hex += byte.toString(16).padStart(2, '0');
  return hex;
};

/** The record's hash, 64 lowercase hex characters. */
export function chainHash(prevHash: string, fields: readonly ChainField[], sha256Hex: Sha256Hex = pureSha256Hex): string {
  return sha256Hex(chainMessage(prevHash, fields));
}

/** The values of `names` from a row, in order (a missing column counts as null). */
export function chainFields(row: object, names: readonly string[]): ChainField[] {
  return names.map((name) => {
    const value = (row as Record<string, unknown>)[name];
    if (value === undefined || value === null) return null;
    if (typeof value === 'number' || typeof value === 'string') return value;
    if (typeof value === 'bigint') return Number(value);
    return String(value as string);
  });
}

/** One record as the verifier reads it, in the log's storage order (its id). */
export interface ChainRecord {
  /** The storage id (scan_log.id, audit_log.seq): what a break names. */
  id: number;
  position: number | null;
  prev_hash: string | null;
  hash: string | null;
  fields: readonly ChainField[];
}

/** The first thing wrong with a chain. */
export type ChainBreak =
  /** The stored hash is not the hash of the record's fields: the record (or its hash) was changed. */
  | { kind: 'hash_mismatch'; id: number; position: number; stored: string | null; computed: string }
  /** prev_hash is not the previous record's hash: a record before it was replaced, or records were spliced. */
  | { kind: 'link_broken'; id: number; position: number; prev_hash: string | null; expected: string }
  /** The next record in storage order is past `missing`: that position is gone (deleted). */
  | { kind: 'gap'; id: number; position: number; missing: number }
  /** A position at or below one already seen comes later in storage order: records were moved or copied. */
  | { kind: 'reordered'; id: number; position: number; expected: number }
  /** A record with no chain position at all (written around the chain). */
  | { kind: 'unchained'; id: number }
  /** The head kept with the log is not the last record: records at the end were removed (or added behind its back). */
  | { kind: 'head_mismatch'; head: LogHead; last: LogHead };

/** Checks records one at a time, in storage order; remembers only the last one, so any log length fits. */
export class ChainVerifier {
  private last: LogHead = { position: 0, hash: GENESIS_HASH };
  private broken: ChainBreak | null = null;
  rows = 0;

  constructor(private readonly sha256Hex: Sha256Hex = pureSha256Hex) {}

  /** Feeds the next record; returns the first break (also on every later call), or null while all is well. */
  next(record: ChainRecord): ChainBreak | null {
    if (this.broken) return this.broken;
    this.rows++;
    const expected = this.last.position + 1;
    if (record.position === null) return (this.broken = { kind: 'unchained', id: record.id });
    if (record.position < expected) return (this.broken = { kind: 'reordered', id: record.id, position: record.position, expected });
    if (record.position > expected) return (this.broken = { kind: 'gap', id: record.id, position: record.position, missing: expected });
    const computed = chainHash(record.prev_hash ?? '', record.fields, this.sha256Hex);
    if (computed !== record.hash) {
      return (this.broken = { kind: 'hash_mismatch', id: record.id, position: record.position, stored: record.hash, computed });
    }
    if (record.prev_hash !== this.last.hash) {
      return (this.broken = {
        kind: 'link_broken',
        id: record.id,
        position: record.position,
        prev_hash: record.prev_hash,
        expected: this.last.hash,
      });
    }
    this.last = { position: record.position, hash: record.hash };
    return null;
  }

  /** The last good record's position and hash (the head the log should have). */
  head(): LogHead {
    return { ...this.last };
  }

  /** Compares the head kept beside the log with the last record; call after the last record. */
  finish(kept: LogHead | null): ChainBreak | null {
    if (this.broken) return this.broken;
    if (kept && (kept.position !== this.last.position || kept.hash !== this.last.hash)) {
      return (this.broken = { kind: 'head_mismatch', head: kept, last: this.head() });
    }
    return null;
  }
}

/** One line for people: which record, and what differs. */
export function describeChainBreak(broken: ChainBreak, what = 'row'): string {
  switch (broken.kind) {
    case 'hash_mismatch':
      return `${what} id ${broken.id} (position ${broken.position}): its hash does not match its contents (stored ${broken.stored ?? 'none'}, computed ${broken.computed}): the row was changed`;
    case 'link_broken':
      return `${what} id ${broken.id} (position ${broken.position}): prev_hash ${broken.prev_hash ?? 'none'} is not the previous row's hash ${broken.expected}: a row before it was replaced`;
    case 'gap':
      return `position ${broken.missing} is missing: the next ${what} (id ${broken.id}) has position ${broken.position}: a row was deleted`;
    case 'reordered':
      return `${what} id ${broken.id} has position ${broken.position} where position ${broken.expected} was due: rows were reordered`;
    case 'unchained':
      return `${what} id ${broken.id} has no chain position: it was written around the chain`;
    case 'head_mismatch':
      return `the chain head says position ${broken.head.position} (hash ${broken.head.hash}) but the log ends at position ${broken.last.position} (hash ${broken.last.hash}): rows at the end were removed or added around the chain`;
  }
}

/** A kiosk's reported head, as the issuer keeps them. */
export interface ReportedHead {
  position: number;
  hash: string;
  reported_at: string;
}

/**
 * Why a newly reported head contradicts an earlier one of the same kiosk, or null: the same position with
 * another hash, or a lower position than before, means the kiosk's log was rewritten.
 */
export function headContradiction(earlier: readonly ReportedHead[], head: LogHead): string | null {
  for (const before of earlier) {
    if (before.position === head.position && before.hash !== head.hash) {
      return `position ${head.position} was reported at ${before.reported_at} with hash ${before.hash}, now with ${head.hash}`;
    }
    if (head.position < before.position) {
      return `position ${head.position} is lower than position ${before.position} reported at ${before.reported_at}`;
    }
  }
  return null;
}
