/**
 * The scanner that cuts an export file into pieces for `import` (issuer/transfer/json-pieces.ts; docs/issuer.md
 * "Moving an issuer to the venue and back"): the same pieces wherever the text is split into chunks, strings
 * with escapes and brackets read as strings, and a clear error for a truncated or damaged file.
 */
import { describe, expect, it } from 'vitest';
import { JsonScanner, JsonStreamError, MAX_PIECE_DEPTH, type JsonPiece } from '../../../issuer/transfer/json-pieces.js';
import { REFERENCES } from '../../../issuer/transfer/read.js';
import { TRANSFER_TABLES, type TransferTable } from '../../../issuer/transfer/store.js';

/** Members and rows of the kinds an export holds, with the strings that could mislead a scanner. */
const DOCUMENT = {
  format: 'ticket-issuer-export',
  version: 4,
  scope: { eid: null },
  tls: { cert_pem: '-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----\n', key_pem: 'k' },
  empty: [],
  tickets: [
    { tid: 't1', holder_name: 'Ada "the Countess" L.', qr: 'TV1.abc', exp: 1798761600, revoked_at: null },
    { tid: 't2', holder_name: 'back\\slash\\', ticket_type: '[VIP] {front}', exp: -1.5e3, ok: true, no: false },
    { tid: 't3', holder_name: 'Zoë ß 東京 😀', details: '{"nested":["]","}",{"a":"\\""}]}', tags: [[], {}, [1, [2]]] },
  ],
  numbers: [0, -0.25, 12e-3, 'x', null],
  sha256: 'abc',
};
const COMPACT = JSON.stringify(DOCUMENT);
/** The same document as `export` lays it out (one row per line), and with other whitespace. */
const LAID_OUT = JSON.stringify(DOCUMENT, null, 2).replace(/\n/g, '\r\n\t');

/** What the scanner must yield: one piece per member, per array start, element and end. */
function expectedPieces(document: Record<string, unknown>): JsonPiece[] {
  return Object.entries(document).flatMap(([name, value]): JsonPiece[] =>
    Array.isArray(value)
      ? [
          { kind: 'array', name },
          ...value.map((element, index): JsonPiece => ({ kind: 'element', name, index, value: element })),
          { kind: 'array-end', name, length: value.length },
        ]
      : [{ kind: 'member', name, value }],
  );
}

function scan(chunks: string[]): JsonPiece[] {
  const scanner = new JsonScanner();
  const pieces = chunks.flatMap((chunk) => scanner.push(chunk));
  scanner.end();
  return pieces;
}

function scanError(text: string): string {
  try {
    scan([text]);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonStreamError);
    return (error as Error).message;
  }
  throw new Error(`scanned without an error: ${text}`);
}

const chunksOf = (text: string, size: number): string[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

describe('export file scanner', () => {
  it('yields each member and each array element, whatever the layout', () => {
    expect(scan([COMPACT])).toEqual(expectedPieces(DOCUMENT));
    expect(scan([LAID_OUT])).toEqual(expectedPieces(DOCUMENT));
  });

  it('yields the same pieces when the text is split at any place, or into chunks of any size', () => {
    const expected = expectedPieces(DOCUMENT);
    for (const text of [COMPACT, LAID_OUT]) {
      for (let at = 0; at <= text.length; at++) expect(scan([text.slice(0, at), text.slice(at)])).toEqual(expected);
      for (const size of [1, 2, 3, 7, 64]) expect(scan(chunksOf(text, size))).toEqual(expected);
    }
  });

  it('refuses a truncated file, at any place, saying that it ends early', () => {
    for (let at = 0; at < COMPACT.length; at++) {
      const message = scanError(COMPACT.slice(0, at));
      expect(message).toMatch(at === 0 ? /the file is empty/ : /the file ends before the object is closed/);
    }
    expect(scanError(COMPACT.slice(0, COMPACT.indexOf('"t2"')))).toContain('inside "tickets" after 1 element(s)');
  });

  it('refuses text after the closing brace, but not whitespace', () => {
    expect(scanError(`${COMPACT} x`)).toContain('expected nothing after the closing "}"');
    expect(scanError(`${COMPACT}{}`)).toContain('expected nothing after the closing "}"');
    expect(scan([`${COMPACT}\n\r\n `])).toEqual(expectedPieces(DOCUMENT));
  });

  it('refuses damaged JSON with where and why', () => {
    expect(scanError('[1, 2]')).toContain('the file does not start with "{"');
    expect(scanError('{"a" 1}')).toContain('expected ":" after "a" at character 5');
    expect(scanError('{"a":1 "b":2}')).toContain('expected "," or "}" after a member');
    expect(scanError('{a:1}')).toContain('expected a member name');
    expect(scanError('{"a":[1 2]}')).toContain('expected "," or "]" after a[0]');
    expect(scanError('{"a":[1,]}')).toContain('expected an element of "a"');
    expect(scanError('{"a":,}')).toContain('expected the value of "a"');
    expect(scanError('{"a":[{"x":tru}]}')).toMatch(/a\[0\] at character 6 is not valid JSON$/);
    expect(scanError('{"a":{"x":1]}')).toContain('"a" at character 5 is not valid JSON');
    expect(scanError('{"a":"unterminated}')).toContain('the file ends before the object is closed');
  });

  it('never quotes the text around a damage: it may be a private key', () => {
    for (const damaged of ['{"tls":{"key_pem":"SECRETKEY" x}}', '{"keys":[{"pem":"SECRETKEY"}}SECRETKEY]}', '{"k":"SECRETKEY"SECRETKEY}']) {
      expect(scanError(damaged)).not.toContain('SECRET');
    }
  });

  it(`refuses a piece nested more than ${MAX_PIECE_DEPTH} levels deep with a clear message, however deep (200,000 arrays overflowed the stack)`, () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(scan([`{"a":[${deep(MAX_PIECE_DEPTH)}]}`])).toHaveLength(3);
    expect(scanError(`{"a":[${deep(MAX_PIECE_DEPTH + 1)}]}`)).toBe(
      `a[0] at character 6 is nested more than ${MAX_PIECE_DEPTH} levels deep`,
    );
    expect(scanError(`{"tickets":${deep(200_000)}}`)).toBe(`tickets[0] at character 12 is nested more than ${MAX_PIECE_DEPTH} levels deep`);
    expect(scanError(`{"tls":{"x":${deep(200_000)}}}`)).toContain(`is nested more than ${MAX_PIECE_DEPTH} levels deep`);
  });

  it('an empty object and empty arrays are whole documents', () => {
    expect(scan(['{}'])).toEqual([]);
    expect(scan(['{ "a" : [ ] }'])).toEqual([
      { kind: 'array', name: 'a' },
      { kind: 'array-end', name: 'a', length: 0 },
    ]);
  });
});

describe('export file references', () => {
  it('point only to earlier tables, so the first pass checks them in one read', () => {
    const order = (table: TransferTable): number => TRANSFER_TABLES.indexOf(table);
    for (const [table, references] of Object.entries(REFERENCES) as [TransferTable, readonly { to: TransferTable }[]][]) {
      for (const reference of references)
        expect({ table, to: reference.to, earlier: order(reference.to) < order(table) }).toMatchObject({ earlier: true });
    }
  });
});
