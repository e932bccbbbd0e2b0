/**
 * An annulment receipt: `tann1.<base64url(payload JSON)>.<base64url(signature)>`, the issuer's signed word that it
 * annulled a ticket's check-in (docs/protocol.md "Annulment receipt"). The issuer returns it in the annul answer;
 * the annulling kiosk passes it on in its LAN `annul` message, and a kiosk of the event that holds the issuer's keys
 * then forgets the ticket's admissions up to `annulled_at`, whichever kiosk made them. It carries no secret: it
 * names who authorised the annulment, never a badge's code. Pure.
 */
import { isStaffRole, type StaffRole } from './access.js';
import { FieldError, requireInteger, requireString, type JsonObject } from './fields.js';
import {
  decodeSignedCode,
  encodeSignedCode,
  issuerSignatureProblem,
  type DecodedSignedCode,
  type IssuerSignatureContext,
} from './signed-code.js';

export const ANNULMENT_RECEIPT_PREFIX = 'tann1.';

export interface AnnulmentReceiptPayload {
  v: 1;
  iss: string;
  kid: string;
  eid: string;
  tid: string;
  /** ISO time the issuer recorded for the annulment: admissions of the ticket up to it are undone. */
  annulled_at: string;
  /** The scanner whose request annulled it. */
  scanner_id: string;
  /** Who authorised it: a valid badge's sid, else the staff id the kiosk sent, else null. */
  staff_id: string | null;
  /** The role that allowed it: the badge's when a badge allowed it, else the scanner key's. */
  role: StaffRole;
  /** Unix seconds: signed. */
  iat: number;
}

export type DecodedAnnulmentReceipt = DecodedSignedCode<AnnulmentReceiptPayload>;

export function encodeAnnulmentReceipt(payload: AnnulmentReceiptPayload, sign: (message: Uint8Array) => Uint8Array): string {
  return encodeSignedCode(ANNULMENT_RECEIPT_PREFIX, payload, sign);
}

/** Throws a QrCodeError for a malformed receipt. */
export function decodeAnnulmentReceipt(code: string): DecodedAnnulmentReceipt {
  return decodeSignedCode(ANNULMENT_RECEIPT_PREFIX, 'annulment receipt', code, readPayload);
}

function readPayload(obj: JsonObject): AnnulmentReceiptPayload {
  const v = requireInteger(obj, 'v');
  if (v !== 1) throw new FieldError('v', 'wrong_type');
  const role = requireString(obj, 'role');
  if (!isStaffRole(role)) throw new FieldError('role', 'wrong_type');
  const annulledAt = requireString(obj, 'annulled_at');
  if (Number.isNaN(Date.parse(annulledAt))) throw new FieldError('annulled_at', 'wrong_type');
  const staffId = obj['staff_id'];
  if (staffId !== null && typeof staffId !== 'string') throw new FieldError('staff_id', staffId === undefined ? 'missing' : 'wrong_type');
  return {
    v,
    iss: requireString(obj, 'iss'),
    kid: requireString(obj, 'kid'),
    eid: requireString(obj, 'eid'),
    tid: requireString(obj, 'tid'),
    annulled_at: annulledAt,
    scanner_id: requireString(obj, 'scanner_id'),
    staff_id: staffId,
    role,
    iat: requireInteger(obj, 'iat'),
  };
}

export interface AnnulmentReceiptContext extends IssuerSignatureContext {
  /** The receiver's event. */
  eid: string;
  /** The ticket the message carrying the receipt names. */
  tid: string;
}

/** What the checks read: the receipt, the receiver's context, and the issuer signature's problem (found once). */
interface Facts {
  receipt: DecodedAnnulmentReceipt;
  ctx: AnnulmentReceiptContext;
  signature: ReturnType<typeof issuerSignatureProblem>;
}

interface Check {
  name: string;
  /** Why the receipt fails this check, or null. */
  problem: (facts: Facts) => string | null;
}

const signatureCheck =
  (name: 'issuer' | 'key_known' | 'key_window' | 'signature'): Check['problem'] =>
  ({ signature }) =>
    signature?.check === name ? signature.message : null;

/**
 * How a receiver checks a receipt (docs/protocol.md "Annulment receipt"): one ordered list, the first check that
 * fails refuses it. The signature checks are those of every code the issuer signs (protocol/signed-code.ts); each
 * reports only its own failure, so the first failing one in this order is the one named.
 */
const CHECKS: readonly Check[] = [
  { name: 'issuer', problem: signatureCheck('issuer') },
  { name: 'key_known', problem: signatureCheck('key_known') },
  { name: 'key_window', problem: signatureCheck('key_window') },
  { name: 'signature', problem: signatureCheck('signature') },
  { name: 'event', problem: ({ receipt, ctx }) => (receipt.payload.eid === ctx.eid ? null : 'is for another event') },
  {
    name: 'ticket',
    problem: ({ receipt, ctx }) => (receipt.payload.tid === ctx.tid ? null : 'is for another ticket than its message names'),
  },
  {
    name: 'signed_after',
    // The issuer signs once it has annulled: a receipt dated after its own signing is not one it made.
    problem: ({ receipt, ctx }) =>
      Date.parse(receipt.payload.annulled_at) <= receipt.payload.iat * 1000 + (ctx.clockSkewMs ?? 5 * 60_000)
        ? null
        : 'names an annulment after it was signed',
  },
];

/** The checks' names in order, with `decode` first. */
export const ANNULMENT_RECEIPT_CHECKS = ['decode', ...CHECKS.map((check) => check.name)] as const;

export type AnnulmentReceiptCheckResult = { ok: true; receipt: AnnulmentReceiptPayload } | { ok: false; check: string; message: string };

/** Reads and checks a receipt; the message is for the log and quotes nothing of the code. */
export function checkAnnulmentReceipt(code: string, ctx: AnnulmentReceiptContext): AnnulmentReceiptCheckResult {
  let decoded: DecodedAnnulmentReceipt;
  try {
    decoded = decodeAnnulmentReceipt(code);
  } catch (error) {
    return { ok: false, check: 'decode', message: `not a readable annulment receipt (${(error as Error).message})` };
  }
  const facts: Facts = { receipt: decoded, ctx, signature: issuerSignatureProblem(decoded, ctx) };
  for (const check of CHECKS) {
    const problem = check.problem(facts);
    if (problem !== null) return { ok: false, check: check.name, message: `annulment receipt ${problem}` };
  }
  return { ok: true, receipt: decoded.payload };
}
