/**
 * (e) What the shared rate limit costs (docs/issuer.md "Serving nodes": the windows live in PostgreSQL so that
 * every process counts them together): the store @fastify/rate-limit calls once per scanner request, driven
 * directly, one count at a time (its latency: what each check-in waits for it) and 50 at a time (its rate).
 */
import type { DataDir } from '../issuer/data-dir.js';
import { openIssuerDatabase } from '../issuer/store/open.js';
import { ensureRateLimitTable, postgresRateLimitStore } from '../issuer/store/postgres-rate-limit.js';
import { fmt, percentiles } from './bench-kit.js';

export async function measureSharedRateLimit(dataDir: DataDir): Promise<void> {
  const { database } = await openIssuerDatabase(dataDir, { schema: 'as-is', poolSize: 10 });
  try {
    await ensureRateLimitTable(database);
    const Store = postgresRateLimitStore(database);
    // The plugin's typings leave out what it passes at run time: the window and the maximum (store/postgres-rate-limit.ts).
    const store = new Store({}) as unknown as {
      incr(key: string, callback: (error: Error | null) => void, timeWindow: number, max: number): void;
    };
    const count = (key: string): Promise<void> =>
      new Promise((resolve, reject) => store.incr(key, (error) => (error ? reject(error) : resolve()), 60_000, 1_000_000));
    const samples: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const start = performance.now();
      await count(`bench:${i % 50}`);
      samples.push(performance.now() - start);
    }
    const one = percentiles(samples);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async (_, lane) => {
        while (next < 10_000) {
          next += 1;
          await count(`bench:${lane}`);
        }
      }),
    );
    const perSecond = 10_000 / ((performance.now() - started) / 1000);
    console.log('');
    console.log(
      `(e) shared rate limit (PostgreSQL, unlogged table): one count at a time p50 ${fmt(one.p50, 3)} ms, p99 ${fmt(one.p99, 3)} ms (${one.count} counts); 50 at a time ${fmt(perSecond)} counts/s`,
    );
  } finally {
    await database.close();
  }
}
