/**
 * The annul answer's receipt (docs/protocol.md "Annulment receipt"): when a scanner's annulment is accepted, the
 * issuer signs, with its active signing key, which ticket of which event it annulled, when, at whose request and
 * on whose authority, so that the annulling kiosk's LAN peers can believe it without asking the issuer.
 *
 * Signed inside the check-in's write job (which may run on the SQLite database thread), so the stored answer holds
 * it and a replay sends the same bytes. A data dir without the private key (a serving node: docs/issuer.md
 * "Serving nodes") answers without a receipt, as enrollment then answers without a kiosk certificate.
 */
import fs from 'node:fs';
import { mayCall, type ScannerKeyRole, type StaffRole } from '../../protocol/access.js';
import { encodeAnnulmentReceipt } from '../../protocol/annulment-receipt.js';
import { getIssuerInfo } from '../store/issuer-info.js';
import { activeKid } from '../store/signing-keys.js';
import type { Sql } from '../store/sql.js';
import { keyFile, loadSigningKey, signEd25519Node, type SigningKey } from '../signing.js';
import { unixSeconds } from '../time.js';
import type { BadgeFact } from './check-in-decision.js';

/** Loaded keys, per file: an annulment is rare, but reading and parsing a PEM on each is needless. */
const loaded = new Map<string, SigningKey>();

function signingKey(keysDir: string, kid: string): SigningKey | null {
  const file = keyFile(keysDir, kid);
  const cached = loaded.get(file);
  if (cached) return cached;
  if (!fs.existsSync(file)) return null;
  const key = loadSigningKey(keysDir, kid);
  loaded.set(file, key);
  return key;
}

export interface AnnulledFacts {
  eid: string;
  tid: string;
  /** The annulment's recorded time (the answer's or the earlier one when it was annulled already). */
  at: string;
  scannerId: string;
  keyRole: ScannerKeyRole;
  /** The staff id the request named (without a badge). */
  staffId: string | null;
  badge: BadgeFact | undefined;
}

/**
 * Who authorised an annulment (docs/protocol.md "Check-in request: who at the door"): a valid badge whose role may
 * annul, else the scanner key's role with the staff id the kiosk sent.
 */
export function authorisedBy(facts: Pick<AnnulledFacts, 'keyRole' | 'staffId' | 'badge'>): { staff_id: string | null; role: StaffRole } {
  const { badge } = facts;
  if (badge?.ok === true && mayCall(badge.role, 'issuer.annul')) return { staff_id: badge.sid, role: badge.role };
  // A handout station's key may not annul (protocol/access.ts), so its annulment never gets here: named as a steward's.
  return { staff_id: facts.staffId, role: facts.keyRole === 'handout' ? 'steward' : facts.keyRole };
}

/** The tann1. receipt for an accepted annulment, or null when this data dir holds no private signing key. */
export async function signAnnulmentReceipt(db: Sql, keysDir: string, facts: AnnulledFacts, now: Date): Promise<string | null> {
  const kid = await activeKid(db);
  const key = signingKey(keysDir, kid);
  if (!key) return null;
  // Never later than the signing: a kiosk whose clock ran ahead cannot make the issuer vouch for a future time.
  const at = Math.min(Date.parse(facts.at), now.getTime());
  return encodeAnnulmentReceipt(
    {
      v: 1,
      iss: (await getIssuerInfo(db)).base_url,
      kid,
      eid: facts.eid,
      tid: facts.tid,
      annulled_at: new Date(at).toISOString(),
      scanner_id: facts.scannerId,
      ...authorisedBy(facts),
      iat: unixSeconds(now),
    },
    (message) => signEd25519Node(message, key.privateKey),
  );
}
