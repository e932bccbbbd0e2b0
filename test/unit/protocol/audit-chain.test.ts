/**
 * The hash chain's encoding (protocol/audit-chain.ts; docs/issuer.md "Audit: tamper-evident logs"): fixed
 * vectors computed independently (Python hashlib over the documented encoding), and the verifier's verdicts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChainVerifier,
  chainHash,
  chainMessage,
  describeChainBreak,
  GENESIS_HASH,
  headContradiction,
  pureSha256Hex,
  type ChainField,
} from '../../../protocol/audit-chain.js';

const FIRST: ChainField[] = [
  1,
  '2026-11-26T08:00:00.000Z',
  null,
  'TID',
  'EID',
  'scanner',
  'key_1',
  'A',
  'idem',
  'valid',
  '{"check":"x"}',
  null,
];

describe('the encoding', () => {
  it('matches vectors computed outside this code, multi-byte text counted in UTF-8 bytes', () => {
    const first = chainHash(GENESIS_HASH, FIRST);
    expect(first).toBe('089a4da5207a1204539d20115c3d78f5f1351790a011a4324672c2bcc4120ab5');
    expect(chainHash(first, [2, 'Zoë 🎟', null])).toBe('4a4145f0e679a8c3ae12a3a2aadd30ba20f9e35fdbe3d6143a7a33a20772cfa9');
    expect(new TextDecoder().decode(chainMessage('p', [12, null, '', 'é']))).toBe('p2:12~0:2:é');
  });

  it('node:crypto’s SHA-256 (what the issuer and the kiosk pass) gives the same vectors as the pure one', () => {
    const nodeSha256Hex = (message: Uint8Array): string => createHash('sha256').update(message).digest('hex');
    const first = chainHash(GENESIS_HASH, FIRST, nodeSha256Hex);
    expect(first).toBe('089a4da5207a1204539d20115c3d78f5f1351790a011a4324672c2bcc4120ab5');
    expect(chainHash(first, [2, 'Zoë 🎟', null], nodeSha256Hex)).toBe('4a4145f0e679a8c3ae12a3a2aadd30ba20f9e35fdbe3d6143a7a33a20772cfa9');
    for (const fields of [[], [null], ['x'.repeat(10_000)], [Number.MAX_SAFE_INTEGER, '日本語', '']] as ChainField[][]) {
      expect(chainHash(first, fields, nodeSha256Hex)).toBe(chainHash(first, fields, pureSha256Hex));
    }
  });

  it('counts each field in UTF-8 bytes as TextEncoder encodes it: 1 to 4 bytes a character, a lone surrogate as 3', () => {
    const texts = [
      '',
      'abc',
      'é',
      'ß€',
      '🎟',
      'Zoë 🎟 日本語',
      '\ud83c',
      'a\udc00b',
      '\ud83c\ud83c\udf9f',
      '\u0000\u007f\u0080\u07ff\u0800\uffff',
    ];
    for (const text of texts) {
      const encoded = new TextDecoder().decode(chainMessage('', [text]));
      expect(encoded.slice(0, encoded.indexOf(':'))).toBe(String(new TextEncoder().encode(text).length));
    }
  });

  it('is unambiguous: moving text between fields, or null against empty, changes the hash', () => {
    expect(chainHash(GENESIS_HASH, ['ab', 'c'])).not.toBe(chainHash(GENESIS_HASH, ['a', 'bc']));
    expect(chainHash(GENESIS_HASH, [null])).not.toBe(chainHash(GENESIS_HASH, ['']));
    expect(chainHash(GENESIS_HASH, [1])).toBe(chainHash(GENESIS_HASH, ['1']));
  });
});

describe('the verifier', () => {
  const chain = (n: number) => {
    let prev = GENESIS_HASH;
    return Array.from({ length: n }, (_, i) => {
      const fields = [i + 1, `row ${i + 1}`];
      const hash = chainHash(prev, fields);
      const record = { id: 100 + i, position: i + 1, prev_hash: prev, hash, fields };
      prev = hash;
      return record;
    });
  };
  const run = (records: ReturnType<typeof chain>) => {
    const verifier = new ChainVerifier();
    for (const record of records) if (verifier.next(record)) break;
    return verifier.finish(null);
  };

  it('passes a good chain and names the first broken record of a bad one', () => {
    expect(run(chain(5))).toBeNull();
    const edited = chain(5);
    edited[2] = { ...edited[2]!, fields: [3, 'changed'] };
    expect(run(edited)).toMatchObject({ kind: 'hash_mismatch', id: 102, position: 3 });
    const deleted = chain(5).filter((r) => r.position !== 2);
    expect(run(deleted)).toMatchObject({ kind: 'gap', id: 102, missing: 2 });
    const swapped = chain(5);
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    expect(run(swapped)).toMatchObject({ kind: 'gap', missing: 2 });
    const backwards = [...chain(3), chain(3)[1]!];
    expect(run(backwards)).toMatchObject({ kind: 'reordered', position: 2, expected: 4 });
    const truncated = new ChainVerifier();
    for (const record of chain(3)) truncated.next(record);
    const head = chain(4)[3]!;
    expect(truncated.finish({ position: 4, hash: head.hash })).toMatchObject({ kind: 'head_mismatch' });
    expect(describeChainBreak({ kind: 'gap', id: 7, position: 5, missing: 4 })).toContain('position 4 is missing');
  });

  it('flags a reported head that contradicts an earlier one', () => {
    const earlier = [{ position: 5, hash: 'a'.repeat(64), reported_at: '2026-11-26T08:00:00Z' }];
    expect(headContradiction(earlier, { position: 5, hash: 'a'.repeat(64) })).toBeNull();
    expect(headContradiction(earlier, { position: 7, hash: 'b'.repeat(64) })).toBeNull();
    expect(headContradiction(earlier, { position: 5, hash: 'b'.repeat(64) })).toContain('position 5 was reported at');
    expect(headContradiction(earlier, { position: 4, hash: 'b'.repeat(64) })).toContain('lower than position 5');
  });
});
