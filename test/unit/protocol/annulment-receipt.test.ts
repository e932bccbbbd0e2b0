/**
 * The annulment receipt (protocol/annulment-receipt.ts; docs/protocol.md "Annulment receipt"): what it carries, and
 * its ordered checks, each with its name, the first failing one named.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ANNULMENT_RECEIPT_CHECKS,
  checkAnnulmentReceipt,
  decodeAnnulmentReceipt,
  encodeAnnulmentReceipt,
  type AnnulmentReceiptPayload,
} from '../../../protocol/annulment-receipt.js';
import { kidFromPublicKey, type PublicKey } from '../../../protocol/index.js';

const ISS = 'https://tickets.example';
const NOW = Date.parse('2026-07-18T21:03:00Z');

function key(validUntil?: string): { sign: (m: Uint8Array) => Uint8Array; published: PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return {
    sign: (message) => sign(null, message, privateKey),
    published: {
      kid: kidFromPublicKey(Buffer.from(x, 'base64url')),
      alg: 'Ed25519',
      public_key: x,
      valid_from: '2026-01-01T00:00:00Z',
      ...(validUntil ? { valid_until: validUntil } : {}),
    },
  };
}
const ACTIVE = key();
const RETIRED = key('2026-03-01T00:00:00Z');
const UNKNOWN = key();

function receipt(fields: Partial<AnnulmentReceiptPayload> = {}, signer = ACTIVE): string {
  return encodeAnnulmentReceipt(
    {
      v: 1,
      iss: ISS,
      kid: signer.published.kid,
      eid: 'evt_summer',
      tid: 'T1',
      annulled_at: '2026-07-18T21:00:00.000Z',
      scanner_id: 'scn_b',
      staff_id: 'stf_sam',
      role: 'supervisor',
      iat: Math.floor(NOW / 1000),
      ...fields,
    },
    signer.sign,
  );
}

const ctx = { issuer: ISS, keys: [ACTIVE.published, RETIRED.published], nowMs: NOW, eid: 'evt_summer', tid: 'T1' };

describe('annulment receipt', () => {
  it('round-trips its fields and passes every check when genuine', () => {
    const code = receipt();
    expect(code.startsWith('tann1.')).toBe(true);
    expect(decodeAnnulmentReceipt(code).payload).toMatchObject({ eid: 'evt_summer', tid: 'T1', staff_id: 'stf_sam', role: 'supervisor' });
    expect(checkAnnulmentReceipt(code, ctx)).toMatchObject({ ok: true, receipt: { scanner_id: 'scn_b' } });
    expect(checkAnnulmentReceipt(receipt({ staff_id: null, role: 'technician' }), ctx)).toMatchObject({ ok: true });
  });

  it('names the first check that fails, in the documented order', () => {
    expect(ANNULMENT_RECEIPT_CHECKS).toEqual([
      'decode',
      'issuer',
      'key_known',
      'key_window',
      'signature',
      'event',
      'ticket',
      'signed_after',
    ]);
    const genuine = receipt();
    const [prefix, payload, signature] = genuine.split('.') as [string, string, string];
    const altered = `${prefix}.${Buffer.from(JSON.stringify({ ...decodeAnnulmentReceipt(genuine).payload, tid: 'T2' })).toString('base64url')}.${signature}`;
    const cases: Array<[string, string, Partial<typeof ctx>?]> = [
      ['tstaff1.abc.def', 'decode'],
      [receipt({ role: 'owner' as never }), 'decode'],
      [receipt({ annulled_at: 'yesterday' }), 'decode'],
      [receipt({ iss: 'https://elsewhere.example' }), 'issuer'],
      [receipt({}, UNKNOWN), 'key_known'],
      [receipt({}, RETIRED), 'key_window'],
      [`${prefix}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BA' : 'AA'}`, 'signature'],
      [altered, 'signature', { tid: 'T2' }],
      [genuine, 'event', { eid: 'evt_other' }],
      [genuine, 'ticket', { tid: 'T2' }],
      [receipt({ annulled_at: '2026-07-18T22:00:00.000Z' }), 'signed_after'],
      // The first failing check is named: another event and another ticket, the event comes first.
      [genuine, 'event', { eid: 'evt_other', tid: 'T2' }],
    ];
    for (const [code, check, changes] of cases) {
      const result = checkAnnulmentReceipt(code, { ...ctx, ...changes });
      expect(result, check).toMatchObject({ ok: false, check });
      expect((result as { message: string }).message, check).not.toContain(payload);
    }
  });
});
