/**
 * A server of the issuer benchmark in a worker thread of its own, so the load generator does not share its event
 * loop: (a) the bare Fastify JSON route, or the real issuer (issuer/server.ts) on a data dir. Each takes its own
 * server-side latency (docs/benchmarks.md "Issuer (`npm run bench:issuer`)"): from the request's headers parsed to
 * its response written, in the server's thread. The worker runs server-worker.ts.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { parentPort, Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import { createLogger } from '../../issuer/logging.js';
import { percentiles } from '../bench-kit.js';

export type ServerRole = { role: 'bare' } | { role: 'issuer'; dataDir: string; sqliteThread: boolean };

export const CHECK_IN_PATH = '/api/v1/tickets/check-in';

/** In the worker thread: starts the server, posts its URL, then answers the main thread's commands. */
export async function serveInThisWorker(role: ServerRole): Promise<void> {
  let url: string;
  let close: () => Promise<void>;
  if (role.role === 'bare') {
    const app = Fastify({ logger: false });
    app.post(CHECK_IN_PATH, async (request) => {
      const body = request.body as { tid: string; eid: string; scanned_at: string };
      return { status: 'valid', ticket: { tid: body.tid, eid: body.eid, checked_in_at: body.scanned_at } };
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    close = () => app.close();
  } else {
    const { startServer } = await import('../../issuer/server.js');
    // Request logging off (warnings only), as for the bare route: the figures compare request handling.
    const server = await startServer({
      dataDir: role.dataDir,
      host: '127.0.0.1',
      port: 0,
      plainHttp: true,
      scannerRpm: 100_000_000,
      handleSignals: false,
      logger: createLogger({ level: 'warn' }),
      sqliteThread: role.sqliteThread,
    });
    url = server.url;
    close = () => server.close();
  }
  const timings = serverSideTimings();
  parentPort!.on('message', (command: ServerCommand) => {
    if (command === 'reset') timings.length = 0;
    else if (command === 'report') parentPort!.postMessage(summarise(timings));
    else void close().then(() => parentPort!.postMessage('closed'));
  });
  parentPort!.postMessage(url);
}

/**
 * Server-side latency: from the request's arrival at Node's HTTP server to
 * its response being handed to the socket, taken in the server's own thread.
 * Beside the load generator's figure it shows how much of a tail is the
 * server and how much is the two threads sharing this machine's cores.
 */
function serverSideTimings(): number[] {
  const timings: number[] = [];
  const startedAt = new WeakMap<object, number>();
  diagnosticsChannel.subscribe('http.server.request.start', (message) =>
    startedAt.set((message as { response: object }).response, performance.now()),
  );
  diagnosticsChannel.subscribe('http.server.response.finish', (message) => {
    const started = startedAt.get((message as { response: object }).response);
    if (started !== undefined) timings.push(performance.now() - started);
  });
  return timings;
}

type ServerCommand = 'reset' | 'report' | 'close';

export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
}

function summarise(timings: number[]): LatencySummary {
  const { p50, p99 } = percentiles(timings);
  return { p50Ms: p50, p99Ms: p99 };
}

export interface ServerThread {
  url: string;
  /** Forgets the server-side timings taken so far (before a measured run). */
  resetTimings(): void;
  /** Server-side p50/p99 since the last reset. */
  serverLatency(): Promise<LatencySummary>;
  stop(): Promise<void>;
}

export function startServerThread(role: ServerRole): Promise<ServerThread> {
  const worker = new Worker(new URL('./server-worker.js', import.meta.url), { workerData: role });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (url: string) =>
      resolve({
        url,
        resetTimings: () => worker.postMessage('reset' satisfies ServerCommand),
        serverLatency: () =>
          new Promise<LatencySummary>((done) => {
            worker.once('message', done);
            worker.postMessage('report' satisfies ServerCommand);
          }),
        stop: () =>
          new Promise<void>((done) => {
            worker.once('message', () => void worker.terminate().then(() => done()));
            worker.postMessage('close' satisfies ServerCommand);
          }),
      }),
    );
  });
}
