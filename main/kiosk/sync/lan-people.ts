/**
 * The people of a party's parts told over the LAN (docs/protocol.md "LAN messages between kiosks (project
 * extension)", field `ppl`; docs/kiosk.md "Party tickets"). An admission is a fixed 4-element tuple that kiosks of
 * earlier versions check strictly, so the people go in a field of their own, `ppl`: `[tid, admitted_at, people]`
 * for each admission of more than one person, with a signature of its own, `psig`, by the same kiosk key over the
 * message's signed fields followed by `ppl`. A kiosk of an earlier version ignores both fields (and counts one
 * person an admission, as before); this one believes a count only when `psig` verifies, the entry names an
 * admission of the same message, and the count is a whole number 1..MAX_PARTY. Anything else changes nothing:
 * each admission then counts one person, as a message without `ppl` does.
 */
import { sign as signBytes, type KeyObject } from 'node:crypto';
import { MAX_PARTY } from '../../../protocol/party.js';

/** What the LAN message module needs of a message (sync/lan-peers.ts LanMessage). */
interface Told {
  adm: ReadonlyArray<{ tid: string; admitted_at: string; people?: number }>;
}

export type PeopleEntry = [tid: string, admitted_at: string, people: number];

/** The wire `ppl`: one entry per admission of more than one person, in the admissions' order; null when none. */
export function peopleList(message: Told): PeopleEntry[] | null {
  const list = message.adm.filter((a) => a.people !== undefined && a.people > 1).map((a): PeopleEntry => [a.tid, a.admitted_at, a.people!]);
  return list.length === 0 ? null : list;
}

/** The bytes `psig` covers: the message's signed array (lan-peers.ts canonicalBytes) with `ppl` appended. */
export function peopleCanonicalBytes(signedFields: Buffer, ppl: unknown): Buffer {
  const fields = JSON.parse(signedFields.toString('utf8')) as unknown[];
  return Buffer.from(JSON.stringify([...fields, ppl]), 'utf8');
}

/** The fields to add to a datagram: `ppl` and `psig`, or nothing when every admission is of one person. */
export function peopleFields(message: Told, signedFields: Buffer, privateKey: KeyObject): { ppl?: PeopleEntry[]; psig?: string } {
  const ppl = peopleList(message);
  if (ppl === null) return {};
  return { ppl, psig: signBytes(null, peopleCanonicalBytes(signedFields, ppl), privateKey).toString('base64url') };
}

/** The raw fields as a datagram carried them (checked only once its main signature holds). */
export interface RawPeople {
  ppl: unknown;
  psig: unknown;
}

const isCount = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PARTY;

/**
 * The people per admission to believe: a map from the admission's index in `adm` to its count, or a problem (then
 * no count is believed: each admission is one person). `verify` checks `psig` over the given bytes with the
 * sender's key, whose certificate and main signature already held.
 */
export function believedPeople(
  message: Told,
  signedFields: Buffer,
  raw: RawPeople,
  verify: (signature: Buffer, data: Buffer) => boolean,
): { ok: true; people: Map<number, number> } | { ok: false; problem: string } {
  const { ppl, psig } = raw;
  if (!Array.isArray(ppl) || ppl.length === 0 || ppl.length > message.adm.length) return { ok: false, problem: 'bad people list' };
  if (typeof psig !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(psig)) return { ok: false, problem: 'bad people signature field' };
  if (!verify(Buffer.from(psig, 'base64url'), peopleCanonicalBytes(signedFields, ppl)))
    return { ok: false, problem: 'bad people signature' };
  const people = new Map<number, number>();
  for (const entry of ppl) {
    if (!Array.isArray(entry) || entry.length !== 3) return { ok: false, problem: 'bad people entry' };
    const [tid, at, count] = entry as unknown[];
    if (!isCount(count))
      return { ok: false, problem: `people count ${JSON.stringify(count)} is not a whole number from 1 to ${MAX_PARTY}` };
    const index = message.adm.findIndex((a, i) => a.tid === tid && a.admitted_at === at && !people.has(i));
    if (index < 0) return { ok: false, problem: 'a people count for an admission the message does not tell' };
    people.set(index, count);
  }
  return { ok: true, people };
}
