/**
 * A scanner that says how many (docs/protocol.md "Party tickets (project extension)"): one check-in request with
 * `people` straight to the real issuer, for the party table tests' online column.
 */
import { randomUUID } from 'node:crypto';

export interface PeopleScanner {
  url: string;
  eid: string;
  scannerId: string;
  apiKey: string;
}

/** POSTs an entry or exit of `people` of the ticket; the issuer's answer body. */
export async function checkInPeople(
  scanner: PeopleScanner,
  tid: string,
  action: 'entry' | 'exit',
  people: number,
): Promise<{ status: string; party?: { inside: number; admitted_total: number; remaining: number } }> {
  const answer = await fetch(`${scanner.url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tid,
      eid: scanner.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: randomUUID(),
      action,
      people,
    }),
  });
  return (await answer.json()) as { status: string; party?: { inside: number; admitted_total: number; remaining: number } };
}
