/**
 * Kiosks on one LAN for the unit and property tests (main/kiosk/sync/lan-peers.ts): an issuer signing key the
 * kiosks trust (published as in a discovery document), certificates it signs for each kiosk's own key, and
 * memberships built from them. Another issuer key, never published, makes forged certificates.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { encodeAnnulmentReceipt } from '../../../protocol/annulment-receipt.js';
import { encodeKioskCertificate, type KioskCertificatePayload } from '../../../protocol/kiosk-certificate.js';
import type { EventWindow, LanMembership, LanSigner, LanTrust } from '../../../main/kiosk/sync/lan-peers.js';
import { kidFromPublicKey, type PublicKey } from '../../../protocol/index.js';

export const ISS = 'https://tickets.example';
export const EID = 'evt_summer';
export const NOW = Date.parse('2026-07-18T21:03:00Z');

interface IssuerKey {
  privateKey: KeyObject;
  published: PublicKey;
}

function issuerKey(validUntil?: string): IssuerKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  const kid = kidFromPublicKey(Buffer.from(x, 'base64url'));
  return {
    privateKey,
    published: {
      kid,
      alg: 'Ed25519',
      public_key: x,
      valid_from: '2026-01-01T00:00:00Z',
      ...(validUntil ? { valid_until: validUntil } : {}),
    },
  };
}

/** The issuer's key, published to every kiosk. */
export const ISSUER = issuerKey();
/** A key no kiosk trusts: its certificates are forged. */
export const OTHER_ISSUER = issuerKey();
/** A key the issuer retired before the event: still published, but what it signs after its window is not believed. */
export const RETIRED_ISSUER = issuerKey('2026-03-01T00:00:00Z');

export interface CertificateOptions {
  eid?: string;
  issuer?: IssuerKey;
  iss?: string;
  expMs?: number;
}

/** A certificate for `pub` (base64url), signed by `issuer` (default: the trusted one). */
export function certify(scannerId: string, gate: string | null, pub: string, options: CertificateOptions = {}): string {
  const issuer = options.issuer ?? ISSUER;
  const payload: KioskCertificatePayload = {
    v: 1,
    iss: options.iss ?? ISS,
    kid: issuer.published.kid,
    scanner_id: scannerId,
    eid: options.eid ?? EID,
    gate,
    pub,
    iat: Math.floor(Date.parse('2026-07-01T00:00:00Z') / 1000),
    exp: Math.floor((options.expMs ?? Date.parse('2026-07-25T00:00:00Z')) / 1000),
  };
  return encodeKioskCertificate(payload, (message) => sign(null, message, issuer.privateKey));
}

const signers = new Map<string, LanSigner>();

/** A kiosk's own key and its certificate (one per scanner, gate and options, reused: key generation is not free). */
export function signerFor(scannerId: string, gate: string | null, options: CertificateOptions = {}): LanSigner {
  const cacheKey = JSON.stringify([scannerId, gate, options.eid, options.iss, options.expMs, options.issuer === OTHER_ISSUER]);
  let signer = signers.get(cacheKey);
  if (!signer) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    signer = { privateKey, certificate: certify(scannerId, gate, publicKey.export({ format: 'jwk' }).x!, options) };
    signers.set(cacheKey, signer);
  }
  return signer;
}

/** What every test kiosk trusts: the issuer's published key; `revoked` can be changed by the test (a sync). */
export function trust(revoked: Set<string> = new Set()): LanTrust {
  return { iss: ISS, keys: () => [ISSUER.published, RETIRED_ISSUER.published], revokedScanners: () => revoked };
}

export function member(
  scannerId: string,
  gate: string | null = scannerId,
  options: CertificateOptions & { revoked?: Set<string>; eventWindow?: EventWindow } = {},
): LanMembership {
  return {
    eid: options.eid ?? EID,
    scannerId,
    gate,
    signer: signerFor(scannerId, gate, options),
    trust: trust(options.revoked),
    ...(options.eventWindow ? { eventWindow: options.eventWindow } : {}),
  };
}

export interface ReceiptOptions {
  eid?: string;
  issuer?: IssuerKey;
  /** When the issuer annulled (default a minute before NOW). */
  annulledAtMs?: number;
  /** When it signed (default NOW). */
  iatMs?: number;
  scannerId?: string;
}

/** The issuer's annulment receipt for `tid` (docs/protocol.md "Annulment receipt"), signed by `issuer` (default: the trusted key). */
export function receiptFor(tid: string, options: ReceiptOptions = {}): string {
  const issuer = options.issuer ?? ISSUER;
  return encodeAnnulmentReceipt(
    {
      v: 1,
      iss: ISS,
      kid: issuer.published.kid,
      eid: options.eid ?? EID,
      tid,
      annulled_at: new Date(options.annulledAtMs ?? NOW - 60_000).toISOString(),
      scanner_id: options.scannerId ?? 'scn_b',
      staff_id: 'stf_sam',
      role: 'supervisor',
      iat: Math.floor((options.iatMs ?? NOW) / 1000),
    },
    (message) => sign(null, message, issuer.privateKey),
  );
}
