/**
 * Party tickets exact under concurrency on PostgreSQL with two `serve` processes on one database (docs/protocol.md
 * "Party tickets (project extension)", "One state per ticket, exact under concurrency"): parts of one party sent at
 * once to both processes never admit more people than the party has, and the counts, the answers and the occupancy
 * agree afterwards.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PartyState } from '../../../protocol/party.js';
import { cliJson, issueTickets, LOOPBACK_SERVE, serveCli } from '../../support/cli-harness.js';
import { enroll, postCheckIn } from '../../support/issuer-http.js';
import { useTwoNodeIssuerOnPostgres } from '../../support/issuer-on-store.js';

const issuer = useTwoNodeIssuerOnPostgres('Party Concurrency');

describe('party tickets on two serve processes', () => {
  it('parallel parts at both processes: admitted people never exceed the size; counts and occupancy agree', async () => {
    const servers = await Promise.all(
      issuer.nodes.map((node) => serveCli(['--data', node, ...LOOPBACK_SERVE, '--enroll-rpm', '1000', '--scanner-rpm', '100000'])),
    );
    const urls = servers.map((server) => server.url);
    const eid = issuer.event.eid;
    const tids = await issueTickets(issuer.data, eid, 3, ['--party', '7']);
    const doors = await Promise.all(urls.map((url) => enroll(url, issuer.data, eid)));
    let admittedAll = 0;
    for (const tid of tids) {
      const parts = Array.from({ length: 12 }, (_, i) => ({ door: i % 2, people: (i % 3) + 1 }));
      const answers = await Promise.all(
        parts.map(async (part) => {
          const answer = await postCheckIn(urls[part.door]!, doors[part.door]!, {
            tid,
            eid,
            scanned_at: new Date().toISOString(),
            scanner_id: doors[part.door]!.scannerId,
            idempotency_key: crypto.randomUUID(),
            action: 'entry',
            people: part.people,
          });
          expect(answer.status, answer.text).toBe(200);
          return JSON.parse(answer.text) as { status: string; party: PartyState };
        }),
      );
      const admitted = answers.reduce((sum, answer, i) => sum + (answer.status === 'valid' ? parts[i]!.people : 0), 0);
      expect(admitted).toBeLessThanOrEqual(7);
      // Each valid answer's counts are a step of one history: all different, the largest the final one.
      const steps = answers.filter((a) => a.status === 'valid').map((a) => a.party.admitted_total);
      expect(new Set(steps).size).toBe(steps.length);
      const status = await fetch(`${urls[0]}/api/v1/tickets/${tid}/status`, { headers: { authorization: `Bearer ${doors[0]!.apiKey}` } });
      const party = ((await status.json()) as { party: PartyState }).party;
      expect(party.admitted_total).toBe(admitted);
      expect(Math.max(...steps)).toBe(admitted);
      admittedAll += admitted;
    }
    const occupancy = await cliJson<{ inside: number; entries: number }>(['event', 'occupancy', '--data', issuer.data, '--event', eid]);
    expect(occupancy.inside).toBe(admittedAll);
    expect(occupancy.entries).toBe(admittedAll);
  }, 180_000);
});
