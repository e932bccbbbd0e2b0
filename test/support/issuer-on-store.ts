/**
 * The built CLI's issuer on either store, for the tests that must hold on SQLite and on PostgreSQL alike
 * (docs/issuer.md "Where the database is"): `init` into a scratch data dir, on a throwaway PostgreSQL
 * cluster for 'PostgreSQL', and optionally a `serve` on loopback before each test (the CLI harness stops
 * every serve after each test). Each function registers its hooks in the describe block that calls it.
 */
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { cliJson, createEvent, LOOPBACK_SERVE, scratchDir, serveCli, type EventJson } from './cli-harness.js';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';

export type Store = 'SQLite' | 'PostgreSQL';

/** For `describe.each<[Store]>(BOTH_STORES)`. */
export const BOTH_STORES: [Store][] = [['SQLite'], ['PostgreSQL']];

/** The base URL every issuer made here has (tickets name it; serve answers on loopback whatever it is). */
export const TEST_BASE_URL = 'http://127.0.0.1:8080';

/** `serve` on loopback with limits that let one test enroll and scan as fast as it likes. */
export const SERVE_FOR_SCANNERS = [...LOOPBACK_SERVE, '--enroll-rpm', '1000', '--scanner-rpm', '100000'] as const;

/** Filled in by the hooks: read its fields inside tests and hooks, not when the describe block is collected. */
export interface IssuerOnStore {
  /** The data dir `init` made. */
  data: string;
  /** The throwaway cluster on 'PostgreSQL'; undefined on SQLite. */
  cluster: PostgresCluster | undefined;
  /** The URL of this test's `serve` (with `servePerTest`), else ''. */
  url: string;
}

export function useIssuerOnStore(store: Store, name: string, options: { servePerTest?: boolean } = {}): IssuerOnStore {
  const issuer: IssuerOnStore = { data: '', cluster: undefined, url: '' };
  beforeAll(async () => {
    issuer.data = path.join(scratchDir(), 'issuer-data');
    const database: string[] = [];
    if (store === 'PostgreSQL') {
      issuer.cluster = await startPostgresCluster({ database: 'issuer' });
      database.push('--database', issuer.cluster.url);
    }
    await cliJson(['init', '--data', issuer.data, ...database, '--base-url', TEST_BASE_URL, '--name', name]);
  }, 120_000);
  if (options.servePerTest) {
    beforeEach(async () => {
      issuer.url = (await serveCli(['--data', issuer.data, ...SERVE_FOR_SCANNERS])).url;
    });
  }
  afterAll(async () => {
    await issuer.cluster?.stop();
  }, 60_000);
  return issuer;
}

/**
 * One issuer on a throwaway PostgreSQL cluster with an event and two serving node dirs (`node-config`), for
 * the tests of several `serve` processes on one database (docs/issuer.md "Serving nodes").
 */
export interface TwoNodeIssuer {
  cluster: PostgresCluster;
  data: string;
  event: EventJson;
  /** The node dirs, each for one `serve --data NODE`. */
  nodes: string[];
}

export function useTwoNodeIssuerOnPostgres(name: string): TwoNodeIssuer {
  const issuer = { nodes: [] as string[] } as unknown as TwoNodeIssuer;
  beforeAll(async () => {
    issuer.cluster = await startPostgresCluster({ database: 'issuer' });
    issuer.data = path.join(scratchDir(), 'issuer-data');
    await cliJson(['init', '--data', issuer.data, '--database', issuer.cluster.url, '--base-url', TEST_BASE_URL, '--name', name]);
    issuer.event = await createEvent(issuer.data);
    for (const node of ['node-a', 'node-b']) {
      const dir = path.join(scratchDir(), node);
      await cliJson(['node-config', '--data', issuer.data, '--to', dir]);
      issuer.nodes.push(dir);
    }
  }, 120_000);
  afterAll(async () => {
    await issuer.cluster?.stop();
  }, 60_000);
  return issuer;
}
