/**
 * Codes the issuer signs besides tickets: a staff badge (`tstaff1.`) and a
 * kiosk's LAN certificate (`tkc1.`), both `<prefix><base64url(payload
 * JSON)>.<base64url(64-byte Ed25519 signature)>` like a ticket, and signed
 * by the same keys, found by the payload's `kid` (docs/protocol.md "Codes
 * people scan", "Keys"). Pure.
 */
import { Base64UrlError, decodeBase64Url, encodeBase64Url, utf8Decode, utf8Encode } from './base64url.js';
import { verifyEd25519 } from './ed25519.js';
import { FieldError, isJsonObject, type JsonObject } from './fields.js';
import { QrCodeError } from './qr-code-error.js';
import type { PublicKey } from './types.js';

export const SIGNATURE_LENGTH = 64;

/** What every signed payload names: the issuer, its key, and when it was made. */
export interface SignedPayload {
  v: number;
  iss: string;
  kid: string;
  /** Unix seconds. */
  iat: number;
}

export interface DecodedSignedCode<P> {
  payload: P;
  /** The ASCII of the payload segment: what the signature covers. */
  signedBytes: Uint8Array;
  signature: Uint8Array;
}

export function encodeSignedCode(prefix: string, payload: SignedPayload, sign: (message: Uint8Array) => Uint8Array): string {
  const segment = encodeBase64Url(utf8Encode(JSON.stringify(payload)));
  const signature = sign(utf8Encode(segment));
  if (signature.length !== SIGNATURE_LENGTH) throw new Error('signer returned a signature of the wrong length');
  return `${prefix}${segment}.${encodeBase64Url(signature)}`;
}

/** Decodes a signed code; a malformed one throws a QrCodeError naming what is wrong (never whether it is genuine). */
export function decodeSignedCode<P>(prefix: string, what: string, code: string, read: (obj: JsonObject) => P): DecodedSignedCode<P> {
  if (!code.startsWith(prefix)) throw new QrCodeError('wrong_prefix', `a ${what} starts with "${prefix}"`);
  const segments = code.slice(prefix.length).split('.');
  if (segments.length !== 2) throw new QrCodeError('wrong_segment_count', `a ${what} has a payload and a signature segment`);
  const [payloadSegment, signatureSegment] = segments as [string, string];
  const json = decodeSegmentJson(payloadSegment, 'payload');
  const signature = decodeSegment(signatureSegment, 'signature');
  if (signature.length !== SIGNATURE_LENGTH) {
    throw new QrCodeError('bad_signature_length', `the signature is ${signature.length} bytes, not ${SIGNATURE_LENGTH}`);
  }
  return { payload: readFields(json, read), signedBytes: utf8Encode(payloadSegment), signature };
}

/** What checking the issuer's signature needs, all of it data. */
export interface IssuerSignatureContext {
  /** The issuer base URL the checker is enrolled with. */
  issuer: string;
  /** The issuer's published keys (the last good discovery document). */
  keys: readonly PublicKey[];
  nowMs: number;
  /** Tolerated clock difference for key windows. Default 5 minutes, as for tickets. */
  clockSkewMs?: number;
  /** Ed25519 verifier; default the portable one (protocol/ed25519.ts). */
  verify?: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;
}

export type SignatureCheckCode = 'issuer' | 'key_known' | 'key_window' | 'signature';

const DEFAULT_SKEW_MS = 5 * 60_000;

/**
 * The issuer's signature, checked as a ticket's is (docs/protocol.md "Keys"):
 * from this issuer, by a published key, made inside that key's window, and
 * the signature verifies. null when all hold.
 */
export function issuerSignatureProblem(
  code: DecodedSignedCode<SignedPayload>,
  ctx: IssuerSignatureContext,
): { check: SignatureCheckCode; message: string } | null {
  const { payload } = code;
  if (payload.iss !== ctx.issuer) return { check: 'issuer', message: 'signed by another issuer' };
  const key = ctx.keys.find((candidate) => candidate.kid === payload.kid);
  if (!key) return { check: 'key_known', message: `key ${payload.kid} is not published` };
  const skew = ctx.clockSkewMs ?? DEFAULT_SKEW_MS;
  const from = Date.parse(key.valid_from);
  const until = key.valid_until ? Date.parse(key.valid_until) : Number.POSITIVE_INFINITY;
  const madeMs = payload.iat * 1000;
  if (Number.isNaN(from) || Number.isNaN(until)) return { check: 'key_window', message: 'the key has an unreadable validity window' };
  if (madeMs + skew < from || madeMs - skew > until) return { check: 'key_window', message: "made outside the key's validity window" };
  let publicKey: Uint8Array;
  try {
    publicKey = decodeBase64Url(key.public_key);
  } catch {
    return { check: 'key_known', message: 'the published key is not base64url' };
  }
  return (ctx.verify ?? verifyEd25519)(code.signature, code.signedBytes, publicKey)
    ? null
    : { check: 'signature', message: 'the signature does not verify' };
}

/**
 * The first steps of checking any code the issuer signs: it decodes (`decode`), and the issuer's
 * signature holds (issuerSignatureProblem). The message names `what` and quotes nothing of the code.
 */
export function readSignedByIssuer<P extends SignedPayload>(
  code: string,
  what: string,
  decode: (code: string) => DecodedSignedCode<P>,
  ctx: IssuerSignatureContext,
): { ok: true; payload: P } | { ok: false; check: 'decode' | SignatureCheckCode; message: string } {
  let decoded: DecodedSignedCode<P>;
  try {
    decoded = decode(code);
  } catch (error) {
    return { ok: false, check: 'decode', message: `not a readable ${what} (${(error as Error).message})` };
  }
  const problem = issuerSignatureProblem(decoded, ctx);
  return problem ? { ok: false, check: problem.check, message: `${what} ${problem.message}` } : { ok: true, payload: decoded.payload };
}

// Segment decoding and field reading with typed errors, shared with setup-code.ts.
export function decodeSegment(segment: string, what: string): Uint8Array {
  try {
    return decodeBase64Url(segment);
  } catch (error) {
    if (error instanceof Base64UrlError) throw new QrCodeError('bad_base64url', `the ${what} segment is not base64url: ${error.message}`);
    throw error;
  }
}

export function decodeSegmentJson(segment: string, what: string): JsonObject {
  const bytes = decodeSegment(segment, what);
  let value: unknown;
  try {
    value = JSON.parse(utf8Decode(bytes));
  } catch {
    throw new QrCodeError('bad_json', `the ${what} segment is not UTF-8 JSON`);
  }
  if (!isJsonObject(value)) throw new QrCodeError('not_an_object', `the ${what} is not a JSON object`);
  return value;
}

export function readFields<T>(obj: JsonObject, read: (obj: JsonObject) => T): T {
  try {
    return read(obj);
  } catch (error) {
    if (error instanceof FieldError) {
      throw new QrCodeError(error.problem === 'missing' ? 'missing_field' : 'wrong_field_type', error.message, error.field);
    }
    throw error;
  }
}
