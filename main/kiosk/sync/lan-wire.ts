/**
 * The LAN message format (docs/protocol.md "LAN messages between kiosks (project extension)"): what one UDP
 * datagram of JSON (`tvlan/2`) carries, the canonical bytes the sender's Ed25519 signature covers, encoding and
 * decoding, and the shape checks a datagram passes before anything else is looked at. Pure: no socket, no clock.
 * Who may say what, and what a receiver does with it, is lan-peers.ts.
 *
 * The signature (`sig`) covers a canonical encoding: the JSON array
 * `["tvlan/2", type, eid, from, gate, seq, ts, since, adm]` (arrays keep their order, so the bytes are fixed).
 */
import { sign as signBytes, type KeyObject } from 'node:crypto';
import { isIsoTime, isLabel, isShortString } from './lan-fields.js';
import { decodeExits, decodeHandouts, wireExits, wireHandouts, type LanExit, type LanHandout } from './lan-moves.js';
import { peopleFields, type RawPeople } from './lan-people.js';
import { isReceiptText } from './lan-receipts.js';

export const LAN_PROTOCOL = 'tvlan/2';
/** The documented UDP port (docs/kiosk.md "Kiosks on one LAN"). */
export const DEFAULT_LAN_PORT = 47474;
/** Administratively scoped IPv4 multicast (RFC 2365): stays on the site. */
export const DEFAULT_LAN_GROUP = '239.255.47.74';
/** in datagrams of at most this many (with the certificate, about 1.3 KB: no IP fragmentation on Ethernet). */
export const ADMISSIONS_PER_DATAGRAM = 8;
/** Larger datagrams are not read. */
export const MAX_DATAGRAM_BYTES = 8192;

/** `exit` and `handout` came later (lan-moves.ts): a kiosk of an earlier version drops them as an unknown type. */
export const LAN_MESSAGE_TYPES = ['hello', 'admit', 'catchup', 'catchup_reply', 'annul', 'exit', 'handout'] as const;
export type LanMessageType = (typeof LAN_MESSAGE_TYPES)[number];

/** One admission a kiosk tells its peers about. */
export interface LanAdmission {
  tid: string;
  admitted_at: string;
  /** The admitting kiosk's gate (gate_id), or null for a kiosk without one. */
  gate: string | null;
  /** The admitting kiosk decided without the issuer. */
  offline: boolean;
  /** `annul` only: the issuer's annulment receipt (`tann1.`), when the issuer gave one. */
  receipt?: string;
  /** A part of a party: the people it let in, when more than one (`ppl`, sync/lan-people.ts); absent: one person. */
  people?: number;
}

/** What the kiosk core consults offline: a peer's admission of the ticket, if any (the earliest known). */
export interface PeerAdmission extends LanAdmission {
  /** The admitting kiosk's scanner_id. */
  scanner_id: string;
}

/** The fields a message carries (docs/protocol.md "LAN messages between kiosks"). */
export interface LanMessage {
  type: LanMessageType;
  eid: string;
  /** The sender's scanner_id. */
  from: string;
  /** The sender's gate, or null. */
  gate: string | null;
  /** Per sender, strictly increasing (it starts from the sender's clock in microseconds, so a restart keeps it increasing). */
  seq: number;
  /** The sender's clock, Unix milliseconds. */
  ts: number;
  /** `catchup` only: the ISO time from which admissions are asked for; else null. */
  since: string | null;
  /**
   * `admit` and `catchup_reply`: the admissions. `annul`: the annulments, each as the ticket, when the
   * issuer confirmed it, the annulling kiosk's gate and `offline` false. Else empty.
   */
  adm: LanAdmission[];
  /** `exit` only (wire `ext`): the exits told, at least one. */
  exits?: LanExit[];
  /** `handout` only (wire `hnd`): the handouts told, at least one. */
  handouts?: LanHandout[];
}

type WireAdmission = [tid: string, admitted_at: string, gate: string | null, offline: 0 | 1];

function wireAdmissions(adm: readonly LanAdmission[]): WireAdmission[] {
  return adm.map((a) => [a.tid, a.admitted_at, a.gate, a.offline ? 1 : 0]);
}

/** The bytes the signature covers: a JSON array in a fixed order (no object keys whose order could vary). */
export function canonicalBytes(message: LanMessage): Buffer {
  const fields = [
    LAN_PROTOCOL,
    message.type,
    message.eid,
    message.from,
    message.gate,
    message.seq,
    message.ts,
    message.since,
    wireAdmissions(message.adm),
    // docs/protocol.md "LAN messages between kiosks": an `exit` or `handout` signs its entries as a tenth element.
    ...(message.type === 'exit' ? [wireExits(message.exits ?? [])] : []),
    ...(message.type === 'handout' ? [wireHandouts(message.handouts ?? [])] : []),
  ];
  return Buffer.from(JSON.stringify(fields), 'utf8');
}

/** How a kiosk signs its messages: its own Ed25519 key (never shared) and the issuer's certificate for it. */
export interface LanSigner {
  privateKey: KeyObject;
  /** The tkc1 code the issuer returned at enrollment (not a secret: it goes in every message). */
  certificate: string;
}

/**
 * One datagram: the message's fields, the sender's certificate and its signature (base64url); an `annul` with
 * receipts adds `rcpt`, one receipt or null per annulment. The receipts are outside the kiosk's signature: each is
 * signed by the issuer and names its event and ticket, so taking one out only leaves the sender's own word, and
 * kiosks that do not read `rcpt` still check the signature of what they read.
 */
export function encodeMessage(message: LanMessage, signer: LanSigner): Buffer {
  const receipts = message.adm.map((a) => a.receipt ?? null);
  const wire = {
    p: LAN_PROTOCOL,
    type: message.type,
    eid: message.eid,
    from: message.from,
    gate: message.gate,
    seq: message.seq,
    ts: message.ts,
    since: message.since,
    adm: wireAdmissions(message.adm),
    ...(message.type === 'exit' ? { ext: wireExits(message.exits ?? []) } : {}),
    ...(message.type === 'handout' ? { hnd: wireHandouts(message.handouts ?? []) } : {}),
    cert: signer.certificate,
    sig: signBytes(null, canonicalBytes(message), signer.privateKey).toString('base64url'),
    ...(receipts.some((receipt) => receipt !== null) ? { rcpt: receipts } : {}),
    // docs/protocol.md "LAN messages between kiosks (project extension)": a party's people, signed apart.
    ...(message.type === 'admit' || message.type === 'catchup_reply'
      ? peopleFields(message, canonicalBytes(message), signer.privateKey)
      : {}),
  };
  return Buffer.from(JSON.stringify(wire), 'utf8');
}

export type Decoded = { ok: true; message: LanMessage; cert: string; sig: Buffer; people?: RawPeople } | { ok: false; problem: string };

/** Parses a datagram's shape (not its signature). Anything unexpected is a problem, never an exception. */
export function decodeMessage(bytes: Uint8Array): Decoded {
  if (bytes.length > MAX_DATAGRAM_BYTES) return { ok: false, problem: `datagram of ${bytes.length} bytes is too large` };
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) return { ok: false, problem: 'not an object' };
  const w = wire as Record<string, unknown>;
  if (w['p'] !== LAN_PROTOCOL) return { ok: false, problem: `not a ${LAN_PROTOCOL} message` };
  if (!(LAN_MESSAGE_TYPES as readonly unknown[]).includes(w['type'])) return { ok: false, problem: 'unknown message type' };
  if (!isLabel(w['eid'], 128) || !isLabel(w['from'], 128)) return { ok: false, problem: 'bad eid or sender' };
  if (w['gate'] !== null && !isLabel(w['gate'], 64)) return { ok: false, problem: 'bad gate' };
  if (!Number.isSafeInteger(w['seq']) || (w['seq'] as number) < 0) return { ok: false, problem: 'bad sequence number' };
  if (!Number.isSafeInteger(w['ts'])) return { ok: false, problem: 'bad timestamp' };
  if (w['since'] !== null && !isIsoTime(w['since'])) return { ok: false, problem: 'bad since' };
  if (typeof w['sig'] !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(w['sig'])) return { ok: false, problem: 'bad signature field' };
  if (!isShortString(w['cert'], 2048) || !/^[A-Za-z0-9_.-]+$/.test(w['cert'])) return { ok: false, problem: 'bad certificate field' };
  const adm = w['adm'];
  if (!Array.isArray(adm) || adm.length > 64) return { ok: false, problem: 'bad admissions list' };
  const rcpt = w['rcpt'];
  if (rcpt !== undefined) {
    if (w['type'] !== 'annul' || !Array.isArray(rcpt) || rcpt.length !== adm.length || !rcpt.every((r) => r === null || isReceiptText(r)))
      return { ok: false, problem: 'bad receipts list' };
  }
  const moves = decodeMoves(w);
  if ('problem' in moves) return { ok: false, problem: moves.problem };
  const admissions: LanAdmission[] = [];
  for (const [i, entry] of adm.entries()) {
    if (!Array.isArray(entry) || entry.length !== 4) return { ok: false, problem: 'bad admission' };
    const [tid, at, gate, offline] = entry as unknown[];
    if (!isLabel(tid, 128) || !isIsoTime(at) || (gate !== null && !isLabel(gate, 64)) || (offline !== 0 && offline !== 1)) {
      return { ok: false, problem: 'bad admission' };
    }
    const receipt = (rcpt as unknown[] | undefined)?.[i];
    admissions.push({
      tid,
      admitted_at: at,
      gate: gate as string | null,
      offline: offline === 1,
      ...(typeof receipt === 'string' ? { receipt } : {}),
    });
  }
  return {
    ok: true,
    message: {
      type: w['type'] as LanMessageType,
      eid: w['eid'] as string,
      from: w['from'] as string,
      gate: w['gate'] as string | null,
      seq: w['seq'] as number,
      ts: w['ts'] as number,
      since: w['since'] as string | null,
      adm: admissions,
      ...moves,
    },
    cert: w['cert'],
    sig: Buffer.from(w['sig'], 'base64url'),
    ...(w['ppl'] !== undefined || w['psig'] !== undefined ? { people: { ppl: w['ppl'], psig: w['psig'] } } : {}),
  };
}

/**
 * An `exit` carries its exits in `ext` and a `handout` its handouts in `hnd`, each with an empty `adm`; any other type
 * carries neither (lan-moves.ts).
 */
function decodeMoves(w: Record<string, unknown>): { exits?: LanExit[]; handouts?: LanHandout[] } | { problem: string } {
  const type = w['type'];
  if ((type === 'exit' || type === 'handout') && (w['adm'] as unknown[]).length > 0) return { problem: `bad ${type}: it tells admissions` };
  if (type !== 'exit' && w['ext'] !== undefined) return { problem: 'bad exits list' };
  if (type !== 'handout' && w['hnd'] !== undefined) return { problem: 'bad handouts list' };
  if (type === 'exit') {
    const exits = decodeExits(w['ext']);
    return 'problem' in exits ? exits : { exits };
  }
  if (type === 'handout') {
    const handouts = decodeHandouts(w['hnd']);
    return 'problem' in handouts ? handouts : { handouts };
  }
  return {};
}

/** Where a datagram came from or goes to. */
export interface PeerAddress {
  address: string;
  port: number;
}
