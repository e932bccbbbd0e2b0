/**
 * The issuer's annulment receipts on the LAN (docs/kiosk.md "Kiosks on one LAN"; docs/protocol.md "Annulment
 * receipt", "LAN messages between kiosks"): how many go to a datagram, what a receipt field must look like to be
 * read at all, and whether one is believed. Pure; lan-peers.ts applies what it says.
 */
import { checkAnnulmentReceipt } from '../../../protocol/annulment-receipt.js';
import type { PublicKey } from '../../../protocol/index.js';
import { verifyEd25519 } from './lan-certificate.js';

/** Annulments with their receipts (about 460 bytes each) go one to a datagram: with the certificate, about 1.3 KB. */
export const RECEIPTS_PER_DATAGRAM = 1;
/** A receipt longer than this is not read. */
const MAX_RECEIPT_LENGTH = 1024;

/** A receipt field's shape (its checks come later): `tann1.` and two base64url segments, not too long. */
export function isReceiptText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_RECEIPT_LENGTH && /^tann1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}

/** What a receiver believes a receipt against. */
export interface ReceiptTrust {
  iss: string;
  eid: string;
  keys: readonly PublicKey[];
  /** When a peer's admissions and annulments may be dated (lan-peers.ts eventWindowOf), if known. */
  eventWindow?: { fromMs: number; toMs: number } | undefined;
  /** How far past now a time a peer tells may be (the replay window). */
  futureMs: number;
}

/**
 * When the issuer annulled the ticket, by a receipt that holds (its signature by a published key, this event, this
 * ticket: protocol/annulment-receipt.ts) and is dated as any admission a peer tells must be; else why not, in words.
 */
export function receiptAnnulledAt(receipt: string, tid: string, trust: ReceiptTrust, nowMs: number): number | string {
  const checked = checkAnnulmentReceipt(receipt, {
    issuer: trust.iss,
    keys: trust.keys,
    nowMs,
    eid: trust.eid,
    tid,
    verify: verifyEd25519,
  });
  if (!checked.ok) return `${checked.check}, ${checked.message}`;
  const at = Date.parse(checked.receipt.annulled_at);
  if (at > nowMs + trust.futureMs) return `its time ${checked.receipt.annulled_at} is in the future`;
  const window = trust.eventWindow;
  if (window && (at < window.fromMs || at > window.toMs)) return `its time ${checked.receipt.annulled_at} is outside the event's window`;
  return at;
}
