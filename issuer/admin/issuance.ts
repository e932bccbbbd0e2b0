/**
 * Issuing tickets: build the payload (docs/protocol.md "Ticket payload"), sign it with
 * the active key, store it. Shared by `ticket issue`, `ticket import` and the
 * issuance benchmark (bench/issuer-bench.ts).
 *
 * Speed (goal: 20,000 tickets/s on 2 cores): signatures are made on every
 * core (signing-pool.ts) while the main thread stores the previous batch, one
 * transaction per batch (a crash keeps whole batches, never half a ticket).
 */
import type { HandoutItem } from '../../protocol/handouts.js';
import { TICKET_PREFIX } from '../../protocol/ticket-code.js';
import { PROTOCOL_VERSION, type TicketPayload } from '../../protocol/types.js';
import { loadSigningKey, type SigningKey } from '../signing.js';
import type { SqlDatabase } from '../store/sql.js';
import type { EventRow } from '../store/events.js';
import { activeKid } from '../store/signing-keys.js';
import { insertTickets, type NewTicket } from '../store/tickets.js';
import { addHours, isoUtc, unixSeconds } from '../time.js';
import type { IdFactory } from './ids.js';
import { requireEvent, type IssuerContext } from './issuer-context.js';
import type { StartProgress } from './progress.js';
import { createSigner, type BatchSigner } from './signing-pool.js';

/** docs/protocol.md "The admin CLI": default ticket expiry is the event end plus 12 h. */
export const DEFAULT_EXPIRY_HOURS_AFTER_END = 12;
export const DEFAULT_BATCH_SIZE = 2_000;

export interface TicketSpec {
  holderName?: string;
  ticketType?: string;
  /** Expiry, Unix seconds. */
  exp: number;
  /** Attention flag and check-in note (docs/protocol.md "Attention notes (project extension)"); not in the QR. */
  attention?: boolean;
  note?: string;
  /** Date of birth, YYYY-MM-DD (docs/protocol.md "ID checks (project extension)"); never in the QR. */
  dob?: string;
  /** How many people the ticket admits, 2 to 1000 (docs/protocol.md "Party tickets (project extension)"); never in the QR. */
  party?: number;
  /** Its own handout items (docs/protocol.md "Handouts (project extension)"); not in the QR. */
  handouts?: HandoutItem[];
}

export interface IssuanceContext {
  iss: string;
  event: EventRow;
  key: SigningKey;
  nextId: IdFactory;
  now: Date;
}

export const defaultTicketExpiry = (event: EventRow): number =>
  unixSeconds(addHours(new Date(event.ends_at), DEFAULT_EXPIRY_HOURS_AFTER_END));

/** The QR payload of one ticket; `tt` and `hn` only when given (both optional: docs/protocol.md "Ticket payload"). */
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

/**
 * `ticket issue` and `ticket import`: signs and stores `specs(event)` for the
 * event `eid` with the active key, reporting each stored batch to the progress.
 */
export async function issueForEvent(
  context: IssuerContext,
  eid: string,
  specs: (event: EventRow) => TicketSpec[],
  nextId: IdFactory,
  now: Date,
  startProgress: StartProgress,
): Promise<{ event: EventRow; kid: string; tickets: NewTicket[] }> {
  const { database, dataDir, info } = context;
  const event = await requireEvent(database.read, eid);
  const list = specs(event);
  const key = loadSigningKey(dataDir.keysDir, await activeKid(database.read));
  const progress = startProgress(list.length, 'Signing tickets');
  try {
    const tickets = await issueTickets(database, { iss: info.base_url, event, key, nextId, now }, list, {
      onStored: (count) => progress.advance(count),
    });
    return { event, kid: key.kid, tickets };
  } finally {
    progress.stop();
  }
}

/** Signs, stores in batches, and returns every ticket in issue order. */
export async function issueTickets(
  database: SqlDatabase,
  context: IssuanceContext,
  specs: readonly TicketSpec[],
  options: { batchSize?: number; onStored?: (count: number) => void } = {},
): Promise<NewTicket[]> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const signer = createSigner(context.key.privateKey, specs.length);
  const issued: NewTicket[] = [];
  // Batches being signed, oldest first. Two in flight: while the main thread
  // stores one and prepares the next, the signing threads always have work.
  const signing: Promise<NewTicket[]>[] = [];
  let nextStart = 0;
  const startSigning = (): void => {
    if (nextStart >= specs.length) return;
    signing.push(signBatch(signer, context, specs.slice(nextStart, nextStart + batchSize)));
    nextStart += batchSize;
  };
  try {
    startSigning();
    startSigning();
    while (signing.length > 0) {
      const batch = await signing.shift()!;
      startSigning();
      await database.write((db) => insertTickets(db, batch));
      for (const ticket of batch) issued.push(ticket);
      options.onStored?.(batch.length);
    }
  } finally {
    // Let any batch still being signed settle (after an error) before the threads stop.
    await Promise.allSettled(signing);
    await signer.close();
  }
  return issued;
}

async function signBatch(signer: BatchSigner, context: IssuanceContext, specs: readonly TicketSpec[]): Promise<NewTicket[]> {
  const issuedAt = isoUtc(context.now);
  const payloads = specs.map((spec) => ticketPayload(context, spec, context.nextId()));
  const segments = payloads.map(payloadSegment);
  const signatures = await signer.signAll(segments.map((segment) => Buffer.from(segment, 'latin1')));
  return payloads.map((payload, i) => ({
    ...(specs[i]!.attention === true ? { attention: true } : {}),
    ...(specs[i]!.note === undefined ? {} : { note: specs[i]!.note }),
    ...(specs[i]!.dob === undefined ? {} : { dob: specs[i]!.dob }),
    ...(specs[i]!.party === undefined || specs[i]!.party === 1 ? {} : { party: specs[i]!.party }),
    ...(specs[i]!.handouts === undefined ? {} : { handouts: specs[i]!.handouts }),
    tid: payload.tid,
    eid: payload.eid,
    kid: payload.kid,
    holder_name: payload.hn ?? null,
    ticket_type: payload.tt ?? null,
    issued_at: issuedAt,
    exp: payload.exp,
    qr: ticketCode(segments[i]!, signatures[i]!),
  }));
}

/*
 * The code format of protocol/ticket-code.ts encodeTicketCode (docs/protocol.md
 * "Codes people scan"), with Node's native base64url: the same canonical unpadded text,
 * three times faster than the portable encoder, which matters at 20,000
 * tickets/s. The CLI tests decode every issued code with decodeTicketCode and
 * verify its signature.
 */
const payloadSegment = (payload: TicketPayload): string => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');

/** The signature covers the ASCII bytes of the payload segment. */
const ticketCode = (segment: string, signature: Uint8Array): string =>
  `${TICKET_PREFIX}${segment}.${Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('base64url')}`;
