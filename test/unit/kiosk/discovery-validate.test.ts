import { describe, expect, it } from 'vitest';
import { encodeBase64Url, kidFromPublicKey, publicKeyFromSecret, type DiscoveryDocument } from '../../../protocol/index.js';
import { validateDiscovery } from '../../../main/kiosk/sync/discovery.js';

const ISS = 'https://tickets.example.org';
const raw = publicKeyFromSecret(new Uint8Array(32).fill(3));

function doc(): DiscoveryDocument {
  return {
    protocol_version: 1,
    issuer: ISS,
    name: 'Example',
    keys: [
      {
        kid: kidFromPublicKey(raw),
        alg: 'Ed25519',
        public_key: encodeBase64Url(raw),
        valid_from: '2026-01-01T00:00:00Z',
        valid_until: null,
      },
    ],
    endpoints: {
      check_in: `${ISS}/api/v1/tickets/check-in`,
      status: `${ISS}/api/v1/tickets/{tid}/status`,
      scanner_enroll: `${ISS}/api/v1/scanners/enroll`,
    },
    supported_versions: [1],
  };
}

type Mutation = (d: any) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('validateDiscovery', () => {
  it('accepts a document per spec, keeping only spec fields', () => {
    const body = { ...doc(), extra: 'ignored' };
    const result = validateDiscovery(body, ISS);
    expect(result).toEqual({ ok: true, document: doc() });
  });

  it('accepts http on loopback', () => {
    const loop = 'http://127.0.0.1:8080';
    const d = doc();
    d.issuer = loop;
    d.endpoints = { check_in: `${loop}/c`, status: `${loop}/s/{tid}`, scanner_enroll: `${loop}/e` };
    expect(validateDiscovery(d, loop).ok).toBe(true);
  });

  it.each<[string, Mutation, string?]>([
    ['issuer of another origin', (d) => (d.issuer = 'https://evil.example')],
    ['issuer with trailing slash', (d) => (d.issuer = ISS + '/')],
    ['no keys array', (d) => delete d.keys],
    ['kid not matching the key', (d) => (d.keys[0].kid = 'deadbeef')],
    ['a 31-byte key', (d) => (d.keys[0].public_key = encodeBase64Url(new Uint8Array(31)))],
    ['another alg', (d) => (d.keys[0].alg = 'RS256')],
    ['bad valid_from', (d) => (d.keys[0].valid_from = 'yesterday')],
    ['bad valid_until', (d) => (d.keys[0].valid_until = 12)],
    ['http endpoint off loopback', (d) => (d.endpoints.check_in = 'http://tickets.example.org/c')],
    ['status without {tid}', (d) => (d.endpoints.status = `${ISS}/status`)],
    ['no version 1', (d) => (d.supported_versions = [2])],
    ['non-integer protocol_version', (d) => (d.protocol_version = '1')],
    ['no name', (d) => delete d.name],
  ])('rejects %s', (_name, mutate) => {
    const d = doc();
    mutate(d);
    expect(validateDiscovery(d, ISS).ok).toBe(false);
  });

  it('rejects non-objects', () => {
    for (const body of [null, 'x', 1, [doc()]]) expect(validateDiscovery(body, ISS).ok).toBe(false);
  });

  it('rejects when the expected issuer itself is not canonical', () => {
    const d = doc();
    d.issuer = 'http://tickets.example.org';
    expect(validateDiscovery(d, 'http://tickets.example.org').ok).toBe(false);
  });
});
