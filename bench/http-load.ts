/**
 * A small HTTP load generator for the benchmarks: `concurrency` clients on
 * keep-alive connections, bounded by a request count and a time limit. Each
 * client sends its next request as soon as the previous answer arrives
 * (saturation: the throughput ceiling), or, with `ratePerSecond`, paces itself
 * so all clients together offer that rate (latency under a given load): evenly
 * spaced, or with `bursts` as autocannon's `overallRate` does it (each client's
 * share of a second's requests sent back to back from the second's start, then
 * nothing until the next second), as kiosks that queue scans send them.
 * Given several URLs (several server processes), client `c` keeps its
 * connection to URL `c mod N`: the connections are spread round-robin, as a
 * load balancer would. Loopback only: benchmarks never send traffic anywhere else.
 */
import http from 'node:http';
import { percentile } from './bench-kit.js';

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadResult {
  requests: number;
  elapsedMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Response count per "HTTP status / outcome" label, to show every answer was the expected one. */
  outcomes: Map<string, number>;
}

export interface LoadOptions {
  /** One server, or several: then client `c` sends to `url[c % url.length]`. */
  url: string | readonly string[];
  concurrency: number;
  maxRequests: number;
  maxMs: number;
  /** The i-th request (0-based, across all clients) sent by client `client`. */
  request: (i: number, client: number) => LoadRequest;
  /** Offered load of all clients together; absent = as fast as answers come back. */
  ratePerSecond?: number;
  /**
   * With ratePerSecond: in bursts, as autocannon's `overallRate` (lib/run.js: a per-second tick resets each
   * connection's count, and a connection that has sent its share waits for the next tick). Client c's share of
   * each second is its part of the rate, the remainder spread over the first clients, so the total is exact.
   */
  bursts?: boolean;
  /** Labels a response for the outcome tally, e.g. "200 valid". */
  outcome: (status: number, body: string) => string;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const targets = (typeof options.url === 'string' ? [options.url] : options.url).map((url) => new URL(url));
  if (targets.length === 0) throw new Error('runLoad needs at least one URL');
  if (targets.some((target) => target.hostname !== '127.0.0.1')) throw new Error('benchmarks only load 127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const outcomes = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  const deadline = started + options.maxMs;

  // Each paced client sends every `interval` ms, the clients staggered evenly across one interval.
  const interval = options.ratePerSecond === undefined ? 0 : (options.concurrency * 1000) / options.ratePerSecond;

  const send = async (clientIndex: number, target: URL): Promise<void> => {
    const request = options.request(next++, clientIndex);
    const sent = performance.now();
    const { status, body } = await post(agent, target, request);
    latencies.push(performance.now() - sent);
    const label = options.outcome(status, body);
    outcomes.set(label, (outcomes.get(label) ?? 0) + 1);
  };

  const burstClient = async (clientIndex: number): Promise<void> => {
    const target = targets[clientIndex % targets.length]!;
    const rate = Math.round(options.ratePerSecond!);
    const share = Math.floor(rate / options.concurrency) + (clientIndex < rate % options.concurrency ? 1 : 0);
    for (let second = 0; ; second++) {
      const windowStart = started + second * 1000;
      const wait = windowStart - performance.now();
      if (wait > 0) await sleep(wait);
      for (let sent = 0; sent < share; sent++) {
        if (next >= options.maxRequests || performance.now() >= deadline) return;
        await send(clientIndex, target);
      }
      if (performance.now() >= deadline) return;
    }
  };

  const client = async (clientIndex: number): Promise<void> => {
    if (options.bursts === true && options.ratePerSecond !== undefined) return burstClient(clientIndex);
    const target = targets[clientIndex % targets.length]!;
    let sendAt = started + (clientIndex * interval) / options.concurrency;
    while (next < options.maxRequests && performance.now() < deadline) {
      if (interval > 0) {
        const wait = sendAt - performance.now();
        if (wait > 0) await sleep(wait);
        sendAt += interval;
        if (performance.now() >= deadline || next >= options.maxRequests) break;
      }
      await send(clientIndex, target);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => client(i)));
  const elapsedMs = performance.now() - started;
  agent.destroy();

  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    elapsedMs,
    perSecond: (latencies.length * 1000) / elapsedMs,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    outcomes,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function post(agent: http.Agent, target: URL, request: LoadRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: request.path,
        method: 'POST',
        headers: { ...request.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}
