/**
 * What webhooks cost a check-in, and whether delivery keeps up (docs/issuer.md "Webhooks"; docs/benchmarks.md
 * "Webhooks"). `ticket-issuer serve` child processes on one SQLite data dir, 50 concurrent scanners on loopback,
 * in one run on one machine: check-ins per second at saturation and p99 at half that rate, first without any
 * endpoint, then with one endpoint taking every check-in (a receiver in this process answering 204), once per
 * `--delivery` mode: `same`, the check-in process delivers too (serve's default); `other`, the check-in process runs
 * `serve --webhook-delivery off` and a second serve process on the same file, taking no check-ins, delivers. With
 * the endpoint it also counts the deliveries that arrived while the load ran, and the time from the last check-in
 * until every one had arrived. Prints figures and load averages, asserts nothing.
 *
 *   npm run bench:webhooks [-- --seconds 6 --concurrency 50 --delivery same,other --profile DIR]
 *
 * `--profile DIR`: a CPU profile of every serve process and thread (node --cpu-prof), written to DIR when it stops.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { addEndpointWrite } from '../issuer/services/webhooks.js';
import { newWebhookSecret } from '../issuer/services/webhook-signature.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import { numberOption, textOption } from './bench-kit.js';
import { runLoad, type LoadResult } from './http-load.js';
import { freePort } from '../test/support/free-port.js';
import { createLoopbackIssuerData, startServeProcess, type ServeProcess } from './serve-process.js';

const argv = process.argv.slice(2);
const seconds = numberOption(argv, '--seconds', 6, { min: 1, max: 120 });
const concurrency = numberOption(argv, '--concurrency', 50, { min: 1, max: 500 });
const profileDir = textOption(argv, '--profile', '');
const DELIVERY_MODES = ['same', 'other'] as const;
type DeliveryMode = (typeof DELIVERY_MODES)[number];
const deliveryModes = (textOption(argv, '--delivery', 'same,other') ?? '').split(',').map((mode) => {
  if (!(DELIVERY_MODES as readonly string[]).includes(mode))
    throw new Error(`--delivery takes a comma list of ${DELIVERY_MODES.join(', ')}`);
  return mode as DeliveryMode;
});
/** Room for two runs (saturated, half rate) per row at up to 5,000 check-ins per second. */
const TICKETS = 2 * (1 + deliveryModes.length) * seconds * 5_000;
const loadAverage = (): string =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  console.log(`Preparing ${TICKETS} tickets and ${concurrency} scanners…`);
  const data = await createLoopbackIssuerData({ name: 'Webhook bench', tickets: TICKETS, scanners: concurrency });
  const serve = (port: number, extraArgs: readonly string[], name: string): Promise<ServeProcess> =>
    startServeProcess(data.dataDir.root, port, ['--scanner-rpm', '1000000', ...extraArgs], {
      logFile: path.join(data.root, `${name}.log`),
      ...(profileDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] } : {}),
    });
  const stop = async (process: ServeProcess): Promise<void> => {
    process.process.kill('SIGTERM');
    await process.exited;
  };
  let checkInServe = await serve(data.port, [], 'serve');
  let deliveringServe: ServeProcess | null = null;
  let delivered = 0;
  let lastDeliveryAt = 0;
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      delivered++;
      lastDeliveryAt = performance.now();
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  let nextTicket = 0;
  const load = (ratePerSecond?: number): Promise<LoadResult> =>
    runLoad({
      url: checkInServe.url,
      concurrency,
      maxRequests: Number.MAX_SAFE_INTEGER,
      maxMs: seconds * 1000,
      ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
      request: (_i, client) => {
        const scanner = data.scanners[client % data.scanners.length]!;
        const tid = data.tids[nextTicket++];
        if (tid === undefined) throw new Error('out of tickets: lower --seconds');
        return {
          path: '/api/v1/tickets/check-in',
          headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            tid,
            eid: data.eid,
            scanned_at: new Date().toISOString(),
            scanner_id: scanner.scannerId,
            idempotency_key: crypto.randomUUID(),
          }),
        };
      },
      outcome: (status, body) => `${status} ${(JSON.parse(body) as { status?: string }).status ?? ''}`,
    });
  try {
    const rows: string[][] = [];
    const deliveries: string[] = [];
    const run = async (label: string): Promise<{ saturated: LoadResult; half: LoadResult }> => {
      const before = loadAverage();
      const saturated = await load();
      const half = await load(Math.round(saturated.perSecond / 2));
      rows.push([
        label,
        saturated.perSecond.toFixed(0),
        saturated.p99Ms.toFixed(1),
        half.p99Ms.toFixed(1),
        [...saturated.outcomes.keys()].join(', '),
        `${before} → ${loadAverage()}`,
      ]);
      return { saturated, half };
    };
    const without = (await run('no endpoint')).saturated;

    const db = openSqliteDatabase(data.dataDir.database);
    await db.write(
      addEndpointWrite({
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        events: ['checkin.created'],
        eid: null,
        secret: newWebhookSecret(),
        now: new Date().toISOString(),
      }),
    );
    await db.close();
    const ratios: string[] = [];
    for (const mode of deliveryModes) {
      if (mode === 'other') {
        // The check-in node records the outbox only; a second serve on the same file, taking no check-ins, sends it.
        await stop(checkInServe);
        checkInServe = await serve(data.port, ['--webhook-delivery', 'off'], 'serve-checkins');
        deliveringServe = await serve(await freePort(), [], 'serve-delivering');
      }
      delivered = 0;
      const label = mode === 'same' ? '1 endpoint, delivered by the check-in process' : '1 endpoint, delivered by a second process';
      const started = performance.now();
      const { saturated, half } = await run(label);
      const ended = performance.now();
      const sentInRow = saturated.requests + half.requests;
      const duringLoad = delivered;
      const deadline = Date.now() + 120_000;
      while (delivered < sentInRow && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      ratios.push(`${label}: ${(saturated.perSecond / without.perSecond).toFixed(2)}`);
      deliveries.push(
        `${label}: ${duringLoad} of ${sentInRow} arrived while the load ran (${((duringLoad / (ended - started)) * 1000).toFixed(0)}/s); ` +
          (delivered >= sentInRow
            ? `the last arrived ${Math.max(0, lastDeliveryAt - ended).toFixed(0)} ms after the last check-in.`
            : `only ${delivered} after 120 s.`),
      );
    }

    console.log(`\nCheck-ins, serve processes on one SQLite file, same run, same machine (${os.cpus().length} cores):`);
    console.log(
      ['', 'check-ins/s', 'p99 ms (saturated)', 'p99 ms (half rate)', 'answers', 'load average (1, 5, 15 min) before → after'].join(' | '),
    );
    for (const row of rows) console.log(row.join(' | '));
    console.log(`\nwith / without:\n  ${ratios.join('\n  ')}`);
    console.log(`\nDeliveries:\n  ${deliveries.join('\n  ')}`);
  } finally {
    await stop(checkInServe);
    if (deliveringServe !== null) await stop(deliveringServe);
    receiver.close();
    fs.rmSync(data.root, { recursive: true, force: true });
  }
}

await main();
