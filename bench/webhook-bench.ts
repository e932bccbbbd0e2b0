/**
 * What webhooks cost a check-in, and whether delivery keeps up (docs/issuer.md "Webhooks"; docs/benchmarks.md
 * "Webhooks"). One `ticket-issuer serve` child process on a SQLite data dir, 50 concurrent scanners on loopback,
 * in one run on one machine: check-ins per second at saturation and p99 at half that rate, first without any
 * endpoint, then with one endpoint taking every check-in (a receiver in this process answering 204). With the
 * endpoint it also counts the deliveries that arrived while the load ran, and the time from the last check-in
 * until every one had arrived. Prints figures, asserts nothing.
 *
 *   npm run bench:webhooks [-- --seconds 6 --concurrency 50]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { addEndpointWrite } from '../issuer/services/webhooks.js';
import { newWebhookSecret } from '../issuer/services/webhook-signature.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import { numberOption } from './bench-kit.js';
import { runLoad, type LoadResult } from './http-load.js';
import { createLoopbackIssuerData, startServeProcess } from './serve-process.js';

const argv = process.argv.slice(2);
const seconds = numberOption(argv, '--seconds', 6, { min: 1, max: 120 });
const concurrency = numberOption(argv, '--concurrency', 50, { min: 1, max: 500 });
/** Room for four runs at up to 5,000 check-ins per second. */
const TICKETS = 4 * seconds * 5_000;

async function main(): Promise<void> {
  console.log(`Preparing ${TICKETS} tickets and ${concurrency} scanners…`);
  const data = await createLoopbackIssuerData({ name: 'Webhook bench', tickets: TICKETS, scanners: concurrency });
  const serve = await startServeProcess(data.dataDir.root, data.port, ['--scanner-rpm', '1000000'], {
    logFile: path.join(data.root, 'serve.log'),
  });
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
      url: serve.url,
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
    const run = async (label: string): Promise<{ saturated: LoadResult; half: LoadResult }> => {
      const saturated = await load();
      const half = await load(Math.round(saturated.perSecond / 2));
      rows.push([
        label,
        saturated.perSecond.toFixed(0),
        saturated.p99Ms.toFixed(1),
        half.p99Ms.toFixed(1),
        [...saturated.outcomes.keys()].join(', '),
      ]);
      return { saturated, half };
    };
    const without = await run('no endpoint');

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
    const loadStarted = performance.now();
    const withEndpoint = await run('1 endpoint');
    const loadEnded = performance.now();
    const sent = withEndpoint.saturated.requests + withEndpoint.half.requests;
    const deliveredDuringLoad = delivered;
    const deadline = Date.now() + 120_000;
    while (delivered < sent && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

    console.log('\nCheck-ins, one serve process on SQLite, same run, same machine:');
    console.log(['', 'check-ins/s', 'p99 ms (saturated)', 'p99 ms (half rate)', 'answers'].join(' | '));
    for (const row of rows) console.log(row.join(' | '));
    console.log(`with / without: ${(withEndpoint.saturated.perSecond / without.saturated.perSecond).toFixed(2)}`);
    console.log(
      `\nDeliveries: ${deliveredDuringLoad} of ${sent} arrived while the load ran (${((deliveredDuringLoad / (loadEnded - loadStarted)) * 1000).toFixed(0)}/s); ` +
        (delivered >= sent
          ? `the last arrived ${Math.max(0, lastDeliveryAt - loadEnded).toFixed(0)} ms after the last check-in.`
          : `only ${delivered} after 120 s.`),
    );
  } finally {
    serve.process.kill('SIGTERM');
    await serve.exited;
    receiver.close();
    fs.rmSync(data.root, { recursive: true, force: true });
  }
}

await main();
