/**
 * The revocation list (docs/protocol.md "Revocation list") on SQLite and on PostgreSQL, all real: the built CLI
 * sets the issuer up and revokes, a `serve` process answers over loopback HTTP, the dashboard's API revokes too.
 * The cursor is exact while revocations are made concurrently by separate processes: a scanner polling
 * throughout ends up with every revoked ticket exactly once.
 */
import { describe, expect, it } from 'vitest';
import type { RevocationPage } from '../../../protocol/revocations.js';
import { cliJson, createEvent, issueTickets } from '../../support/cli-harness.js';
import { enroll, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';

describe.each<[Store]>(BOTH_STORES)('revocation list on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Revocation Tests', { servePerTest: true });

  async function page(who: HttpScanner, query = ''): Promise<{ status: number; body: RevocationPage & { error?: { code: string } } }> {
    const response = await fetch(`${issuer.url}/api/v1/scanners/revocations${query}`, {
      headers: { authorization: `Bearer ${who.apiKey}` },
    });
    return { status: response.status, body: (await response.json()) as RevocationPage & { error?: { code: string } } };
  }

  /** Every page from `since` to the end: the tids in order, and the cursor to continue from. */
  async function syncFrom(
    who: HttpScanner,
    since: string | null,
    limit?: number,
  ): Promise<{ tids: string[]; next: string; pages: number }> {
    const tids: string[] = [];
    let cursor = since;
    for (let pages = 1; ; pages++) {
      const params = new URLSearchParams();
      if (cursor !== null) params.set('since', cursor);
      if (limit !== undefined) params.set('limit', String(limit));
      const answer = await page(who, `?${params.toString()}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      tids.push(...answer.body.revoked);
      cursor = answer.body.next;
      if (answer.body.complete) return { tids, next: cursor, pages };
    }
  }

  const revoke = (tid: string) => cliJson(['ticket', 'revoke', tid, '--data', issuer.data, '--reason', 'refund']);

  it('lists the event’s revocations once each, in pages, then only what is new; discovery names the endpoint', async () => {
    const event = await createEvent(issuer.data);
    const other = await createEvent(issuer.data);
    const tids = await issueTickets(issuer.data, event.eid, 7);
    const [otherTid] = await issueTickets(issuer.data, other.eid, 1);
    const scanner = await enroll(issuer.url, issuer.data, event.eid);

    const discovery = (await (await fetch(`${issuer.url}/.well-known/ticket-issuer.json`)).json()) as { endpoints: Record<string, string> };
    expect(discovery.endpoints['scanner_revocations']).toBe('http://127.0.0.1:8080/api/v1/scanners/revocations');

    const empty = await page(scanner);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ eid: event.eid, revoked: [], complete: true, reset: false });

    for (const tid of tids.slice(0, 5)) await revoke(tid);
    await revoke(otherTid!); // another event's: never in this scanner's list
    await revoke(tids[0]!); // revoking again changes nothing

    const paged = await syncFrom(scanner, empty.body.next, 2);
    expect(paged.tids).toEqual(tids.slice(0, 5));
    expect(paged.pages).toBe(3);

    // Nothing new: an empty page, complete, the same cursor.
    const again = await page(scanner, `?since=${paged.next}`);
    expect(again.body).toMatchObject({ revoked: [], complete: true, next: paged.next });

    // The dashboard's revocation is numbered too.
    const token = (await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data])).admin_token;
    const dashboard = await fetch(`${issuer.url}/admin/api/tickets/${tids[5]!}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'resold' }),
    });
    expect(dashboard.status).toBe(200);
    const after = await syncFrom(scanner, paged.next);
    expect(after.tids).toEqual([tids[5]]);

    // From the start: the whole list.
    expect((await syncFrom(scanner, null)).tids).toEqual(tids.slice(0, 6));
  }, 60_000);

  it('starts again from the beginning for a cursor of another copy; refuses a malformed one and a missing key', async () => {
    const event = await createEvent(issuer.data);
    const [tid] = await issueTickets(issuer.data, event.eid, 1);
    await revoke(tid!);
    const scanner = await enroll(issuer.url, issuer.data, event.eid);
    const foreign = await page(scanner, '?since=0000000000000000.999999');
    expect(foreign.status).toBe(200);
    expect(foreign.body).toMatchObject({ revoked: [tid], complete: true, reset: true });

    const malformed = await page(scanner, '?since=yesterday');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'since' } });
    expect((await page(scanner, '?limit=0')).status).toBe(400);

    const anonymous = await fetch(`${issuer.url}/api/v1/scanners/revocations`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  }, 60_000);

  it('keeps the cursor exact while revocations are made concurrently by separate processes', async () => {
    const event = await createEvent(issuer.data);
    const tids = await issueTickets(issuer.data, event.eid, 24);
    const scanner = await enroll(issuer.url, issuer.data, event.eid);
    const start = (await page(scanner)).body.next;

    // A scanner polls with its cursor throughout, as a kiosk does; the revocations race each other.
    let cursor = start;
    const seen: string[] = [];
    let revoking = true;
    const poller = (async () => {
      while (revoking) {
        const synced = await syncFrom(scanner, cursor, 3);
        seen.push(...synced.tids);
        cursor = synced.next;
      }
    })();
    const batches = [tids.slice(0, 8), tids.slice(8, 16), tids.slice(16, 24)];
    for (const batch of batches) await Promise.all(batch.map((tid) => revoke(tid)));
    revoking = false;
    await poller;
    seen.push(...(await syncFrom(scanner, cursor)).tids);

    // Every revoked ticket exactly once: none skipped by a cursor, none sent twice.
    expect([...seen].sort()).toEqual([...tids].sort());
    expect(new Set(seen).size).toBe(seen.length);
  }, 120_000);
});
