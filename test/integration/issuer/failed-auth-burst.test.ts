/**
 * Failed authentications under a parallel burst (docs/issuer.md "Failed authentications"), on SQLite and on
 * PostgreSQL, all real: the built CLI's `serve` on loopback, every request on a socket of its own, all sent
 * before any is answered. The limit holds for the burst as a whole: no more wrong keys or tokens from one
 * address reach a key lookup or a token comparison than the limit, however many arrive at once (when the
 * limit was checked before the lookup and counted after it, every request of the burst passed the check).
 * That failure showed on PostgreSQL, whose lookups are asynchronous (240 of 240 wrong keys and 47 of 50 wrong
 * tokens got through); on SQLite the main thread's reads are synchronous, so there the old code passed too, and
 * this test guards against a lookup that becomes asynchronous.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { cliJson } from '../../support/cli-harness.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';
import { ADMIN_FAILURE_LIMIT, SCANNER_FAILURE_LIMIT } from '../../../issuer/services/failed-authentications.js';

/** Sends every request on its own connection, all before any answer is read; resolves with the statuses. */
async function burst(url: string, authorizations: string[]): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    return await Promise.all(
      authorizations.map(
        (authorization) =>
          new Promise<number>((resolve, reject) => {
            const request = http.get(url, { agent, headers: { authorization } }, (response) => {
              response.resume();
              response.on('end', () => resolve(response.statusCode ?? 0));
            });
            request.on('error', reject);
          }),
      ),
    );
  } finally {
    agent.destroy();
  }
}

const count = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length;

describe.each<[Store]>(BOTH_STORES)('a parallel burst of wrong credentials on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Burst Tests', { servePerTest: true });

  it(`scanner routes: of ${SCANNER_FAILURE_LIMIT * 4} wrong keys at once, ${SCANNER_FAILURE_LIMIT} get to a key lookup (401), the rest are refused before it (429)`, async () => {
    const keys = Array.from({ length: SCANNER_FAILURE_LIMIT * 4 }, () => `Bearer tvk_${randomUUID()}`);
    const statuses = await burst(`${issuer.url}/api/v1/tickets/${'0'.repeat(26)}/status`, keys);
    expect(count(statuses, 401) + count(statuses, 429)).toBe(statuses.length);
    expect(count(statuses, 401)).toBe(SCANNER_FAILURE_LIMIT);
  });

  it(`admin API: of ${ADMIN_FAILURE_LIMIT * 5} wrong tokens at once, ${ADMIN_FAILURE_LIMIT} are compared (401), the rest refused (429); then the right token is refused too`, async () => {
    const { admin_token: token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', issuer.data, '--json']);
    const guesses = Array.from({ length: ADMIN_FAILURE_LIMIT * 5 }, () => `Bearer ${randomUUID()}`);
    const statuses = await burst(`${issuer.url}/admin/api/session`, guesses);
    expect(count(statuses, 401) + count(statuses, 429)).toBe(statuses.length);
    expect(count(statuses, 401)).toBe(ADMIN_FAILURE_LIMIT);
    expect(await burst(`${issuer.url}/admin/api/session`, [`Bearer ${token}`])).toEqual([429]);
  });
});
