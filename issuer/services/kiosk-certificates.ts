/**
 * A kiosk's LAN certificate (docs/protocol.md "Enrollment"): the issuer signs, with its active signing key, the
 * public key a kiosk made at enrollment, bound to its scanner id, event and gate, valid until its key expires.
 * Kiosks check each other's LAN messages against it with the issuer's published keys: no shared secret.
 *
 * The one place `serve` reads a private signing key. A serving node's dir holds none (docs/issuer.md "Serving
 * nodes"): there the enrollment answers without a certificate.
 */
import fs from 'node:fs';
import { encodeKioskCertificate } from '../../protocol/kiosk-certificate.js';
import { keyFile, loadSigningKey, signEd25519Node } from '../signing.js';
import { activeKid } from '../store/signing-keys.js';
import type { Sql } from '../store/sql.js';
import { unixSeconds } from '../time.js';

export interface CertificateSubject {
  iss: string;
  scannerId: string;
  eid: string;
  gateId: string | null;
  /** base64url of the kiosk's 32-byte Ed25519 public key. */
  publicKey: string;
  /** The scanner key's expiry (its scope's expires_at). */
  expiresAt: string;
}

/** The tkc1. code for `subject`, or null when this data dir holds no private signing key. */
export async function signKioskCertificate(db: Sql, keysDir: string, subject: CertificateSubject, now: Date): Promise<string | null> {
  const kid = await activeKid(db);
  if (!fs.existsSync(keyFile(keysDir, kid))) return null;
  const key = loadSigningKey(keysDir, kid);
  return encodeKioskCertificate(
    {
      v: 1,
      iss: subject.iss,
      kid,
      scanner_id: subject.scannerId,
      eid: subject.eid,
      gate: subject.gateId,
      pub: subject.publicKey,
      iat: unixSeconds(now),
      exp: unixSeconds(new Date(subject.expiresAt)),
    },
    (message) => signEd25519Node(message, key.privateKey),
  );
}
