/**
 * Issuing tickets: build the payload (spec "Ticket QR payload"), sign it with
 * the active key, store it. Shared by `ticket issue`, `ticket import` and the
 * issuance benchmark (bench/issuer-bench.ts).
 *
 * Speed: one Ed25519 signature costs about 70 µs on the reference machine, so
 * a single thread tops out near 14,000 tickets/s. Signing therefore uses the
 * callback form of node:crypto's sign — the same OpenSSL signer as
 * issuer/signing.ts signEd25519Node, run on libuv's thread pool — so every core
 * signs, while the main thread stores the previous batch (one transaction per
 * batch: a crash keeps whole batches, never half a ticket).
 */
import crypto from 'node:crypto';
import { encodeBase64Url, utf8Encode } from '../../protocol/base64url.js';
import { encodeTicketCode } from '../../protocol/ticket-code.js';
import { PROTOCOL_VERSION, type TicketPayload } from '../../protocol/types.js';
import type { SigningKey } from '../signing.js';
import type { Db } from '../store/database.js';
import type { EventRow } from '../store/events.js';
import { insertTickets, type NewTicket } from '../store/tickets.js';
import { addHours, isoUtc, unixSeconds } from './arguments.js';
import type { IdFactory } from './ids.js';

/** protocol-decisions.md "admin CLI": default ticket expiry is the event end plus 12 h. */
export const DEFAULT_EXPIRY_HOURS_AFTER_END = 12;
export const DEFAULT_BATCH_SIZE = 2_000;

export interface TicketSpec {
  holderName?: string;
  ticketType?: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

export interface IssuanceContext {
  iss: string;
  event: EventRow;
  key: SigningKey;
  nextId: IdFactory;
  now: Date;
}

export const defaultTicketExpiry = (event: EventRow): number => unixSeconds(addHours(new Date(event.ends_at), DEFAULT_EXPIRY_HOURS_AFTER_END));

/** The QR payload of one ticket; `tt` and `hn` only when given (both optional in the spec). */
export function ticketPayload(context: IssuanceContext, spec: TicketSpec, tid: string): TicketPayload {
  const { event } = context;
  const payload: TicketPayload = {
    v: PROTOCOL_VERSION,
    iss: context.iss,
    kid: context.key.kid,
    tid,
    eid: event.eid,
    ev: { name: event.name, date: event.date, venue: event.venue },
    iat: unixSeconds(context.now),
    exp: spec.exp,
  };
  if (spec.ticketType !== undefined) payload.tt = spec.ticketType;
  if (spec.holderName !== undefined) payload.hn = spec.holderName;
  return payload;
}

/** Signs, stores in batches, and returns every ticket in issue order. */
export async function issueTickets(
  db: Db,
  context: IssuanceContext,
  specs: readonly TicketSpec[],
  options: { batchSize?: number; onStored?: (count: number) => void } = {},
): Promise<NewTicket[]> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const issued: NewTicket[] = [];
  let signing: Promise<NewTicket[]> | undefined = specs.length > 0 ? signBatch(context, specs.slice(0, batchSize)) : undefined;
  for (let start = 0; signing !== undefined; start += batchSize) {
    const batch = await signing;
    const next = start + batchSize;
    // Start signing the next batch before storing this one, so the thread pool never waits for SQLite.
    signing = next < specs.length ? signBatch(context, specs.slice(next, next + batchSize)) : undefined;
    insertTickets(db, batch);
    for (const ticket of batch) issued.push(ticket);
    options.onStored?.(batch.length);
  }
  return issued;
}

async function signBatch(context: IssuanceContext, specs: readonly TicketSpec[]): Promise<NewTicket[]> {
  const issuedAt = isoUtc(context.now);
  const payloads = specs.map((spec) => ticketPayload(context, spec, context.nextId()));
  const messages = payloads.map(signedBytesOf);
  const signatures = await signAll(messages, context.key.privateKey);
  return payloads.map((payload, i) => ({
    tid: payload.tid,
    eid: payload.eid,
    kid: payload.kid,
    holder_name: payload.hn ?? null,
    ticket_type: payload.tt ?? null,
    issued_at: issuedAt,
    exp: payload.exp,
    // The protocol codec assembles the code; its signer hands back the signature made for these exact bytes.
    qr: encodeTicketCode(payload, (message) => signatureFor(message, messages[i]!, signatures[i]!)),
  }));
}

/** Spec "Ticket QR payload": the signature covers the ASCII of the base64url payload segment. */
const signedBytesOf = (payload: TicketPayload): Uint8Array => utf8Encode(encodeBase64Url(utf8Encode(JSON.stringify(payload))));

function signatureFor(message: Uint8Array, signed: Uint8Array, signature: Uint8Array): Uint8Array {
  if (!Buffer.from(message.buffer, message.byteOffset, message.byteLength).equals(signed)) {
    throw new Error('the ticket codec encodes different bytes than were signed');
  }
  return signature;
}

/** Signs every message on the thread pool (node:crypto's callback form); resolves when all are done. */
function signAll(messages: readonly Uint8Array[], privateKey: crypto.KeyObject): Promise<Uint8Array[]> {
  return new Promise((resolve, reject) => {
    const signatures = new Array<Uint8Array>(messages.length);
    let pending = messages.length;
    let failed = false;
    if (pending === 0) resolve(signatures);
    messages.forEach((message, i) => {
      crypto.sign(null, message, privateKey, (error, signature) => {
        if (failed) return;
        if (error) {
          failed = true;
          reject(error);
          return;
        }
        signatures[i] = new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength);
        if (--pending === 0) resolve(signatures);
      });
    });
  });
}
