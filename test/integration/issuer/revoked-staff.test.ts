/**
 * The revocation list's staff and scanner lists (docs/protocol.md "Revocation list"), all real: badges and scanner
 * keys revoked with the built CLI show up, in full, on every page a served issuer answers, for their event only.
 */
import { describe, expect, it } from 'vitest';
import type { RevocationPage } from '../../../protocol/revocations.js';
import { cliJson, createEvent, issueTickets } from '../../support/cli-harness.js';
import { enroll, type HttpScanner } from '../../support/issuer-http.js';
import { useIssuerOnStore } from '../../support/issuer-on-store.js';

describe('revoked badges and scanners in the revocation list', () => {
  const issuer = useIssuerOnStore('SQLite', 'Revoked Staff', { servePerTest: true });

  async function page(who: HttpScanner, query = ''): Promise<RevocationPage> {
    const response = await fetch(`${issuer.url}/api/v1/scanners/revocations${query}`, {
      headers: { authorization: `Bearer ${who.apiKey}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as RevocationPage;
  }

  it('every page carries the event’s revoked badges and scanners in full; other events’ never', async () => {
    const event = await createEvent(issuer.data);
    const other = await createEvent(issuer.data);
    const tids = await issueTickets(issuer.data, event.eid, 3);
    const reader = await enroll(issuer.url, issuer.data, event.eid);
    const stolen = await enroll(issuer.url, issuer.data, event.eid);
    const elsewhere = await enroll(issuer.url, issuer.data, other.eid);

    expect(await page(reader)).toMatchObject({ revoked_badges: [], revoked_scanners: [] });

    const badge = (name: string, eid: string) =>
      cliJson<{ sid: string }>(['staff', 'badge', 'issue', '--data', issuer.data, '--event', eid, '--name', name, '--role', 'supervisor']);
    const [kept, lost, otherBadge] = [await badge('Kept', event.eid), await badge('Lost', event.eid), await badge('Other', other.eid)];
    const revoked = await cliJson<{ revoked_at: string }>(['staff', 'badge', 'revoke', '--data', issuer.data, lost.sid]);
    await cliJson(['staff', 'badge', 'revoke', '--data', issuer.data, otherBadge.sid]);
    const keys = await cliJson<{ scanners: { scanner_id: string; api_key_id: string }[] }>(['scanner', 'list', '--data', issuer.data]);
    const keyOf = (who: HttpScanner) => keys.scanners.find((s) => s.scanner_id === who.scannerId)!.api_key_id;
    await cliJson(['scanner', 'revoke', '--data', issuer.data, keyOf(stolen)]);
    await cliJson(['scanner', 'revoke', '--data', issuer.data, keyOf(elsewhere)]);
    for (const tid of tids) await cliJson(['ticket', 'revoke', tid, '--data', issuer.data]);

    const first = await page(reader, '?limit=2');
    expect(first.complete).toBe(false);
    expect(first.revoked_badges).toEqual([{ sid: lost.sid, revoked_at: revoked.revoked_at }]);
    expect(first.revoked_scanners).toEqual([{ scanner_id: stolen.scannerId, revoked_at: expect.any(String) }]);
    const second = await page(reader, `?since=${first.next}&limit=2`);
    expect(second.complete).toBe(true);
    expect(second.revoked_badges).toEqual(first.revoked_badges);
    expect(second.revoked_scanners).toEqual(first.revoked_scanners);
    expect(JSON.stringify(second)).not.toContain(kept.sid);
  });
});
