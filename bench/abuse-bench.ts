/**
 * `npm run bench:abuse`: the issuer while someone on the venue LAN piles up
 * slow connections (docs/benchmarks.md "Faults and bad input").
 *
 * The real `ticket-issuer serve` (the built CLI, a child process, plain HTTP
 * on loopback, its documented limits: issuer/connection-limits.ts). First 10
 * kiosks check in alone; then again while 500 connections send enrollment
 * requests a byte per second. Reported: how long each slow connection lived
 * (goal: cut within the request timeout), and the kiosks' check-in p50/p99
 * with and without them (goal: p99 < 50 ms under attack).
 *
 * Options: --slow N (500) --kiosks K (10) --rate R check-ins/s for all kiosks together (40) --seconds S of attack (22)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { DEFAULT_TIMEOUTS } from '../issuer/connection-limits.js';
import { numberOption, percentiles } from './bench-kit.js';
import { runLoad, type LoadResult } from './http-load.js';
import { createLoopbackIssuerData, startServeProcess } from './serve-process.js';

const CHECK_IN_PATH = '/api/v1/tickets/check-in';
const P99_GOAL_MS = 50;
/** A connection is "cut within the timeout" if it closed by the request timeout plus Node's check interval and a second of slack. */
const CUT_GOAL_MS = DEFAULT_TIMEOUTS.requestMs + DEFAULT_TIMEOUTS.checkIntervalMs + 1000;

const option = (flag: string, fallback: number): number => numberOption(process.argv, flag, fallback);

/** One attacker connection: enrollment headers at once, then its body a byte per second. Resolves with its lifetime. */
function slowConnection(port: number): Promise<number> {
  return new Promise((resolve) => {
    const opened = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(
        'POST /api/v1/scanners/enroll HTTP/1.1\r\nHost: issuer\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n{',
      );
      timer = setInterval(() => socket.write('x'), 1000);
    });
    socket.on('error', () => undefined); // a cut connection may also reset
    socket.resume(); // read (and drop) the server's answer, so its close reaches us
    socket.on('close', () => {
      clearInterval(timer);
      resolve(performance.now() - opened);
    });
  });
}

async function main(): Promise<void> {
  const settings = {
    slow: option('--slow', 500),
    kiosks: option('--kiosks', 10),
    rate: option('--rate', 40),
    seconds: option('--seconds', 22),
  };
  const issuerData = await createLoopbackIssuerData({
    name: 'Abuse Benchmark',
    tickets: settings.rate * (settings.seconds + 12),
    scanners: settings.kiosks,
  });
  const { root, dataDir, port, baseUrl, eid, tids, scanners: kiosks } = issuerData;
  const issuer = (await startServeProcess(dataDir.root, port)).process;
  let next = 0;
  const checkIns = (seconds: number): Promise<LoadResult> =>
    runLoad({
      url: baseUrl,
      concurrency: settings.kiosks,
      ratePerSecond: settings.rate,
      maxRequests: tids.length,
      maxMs: seconds * 1000,
      request: (_i, client) => {
        const kiosk = kiosks[client]!;
        return {
          path: CHECK_IN_PATH,
          headers: { authorization: `Bearer ${kiosk.apiKey}` },
          body: JSON.stringify({
            tid: tids[next++],
            eid,
            scanned_at: new Date().toISOString(),
            scanner_id: kiosk.scannerId,
            idempotency_key: crypto.randomUUID(),
          }),
        };
      },
      outcome: (status, body) => `${status} ${(JSON.parse(body) as { status?: string }).status ?? 'error'}`,
    });
  try {
    console.log(
      `abuse benchmark — ${new Date().toISOString()} — node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'CPU'}), load average ${os.loadavg()[0]!.toFixed(2)}`,
    );
    console.log(
      `issuer: ticket-issuer serve (child process), plain HTTP on ${baseUrl}; limits: headers ${DEFAULT_TIMEOUTS.headersMs} ms, request ${DEFAULT_TIMEOUTS.requestMs} ms, idle ${DEFAULT_TIMEOUTS.idleMs} ms`,
    );
    await checkIns(3); // warm-up
    const calm = await checkIns(8);
    console.log(
      `without attack: ${settings.kiosks} kiosks, ${settings.rate} check-ins/s: p50 ${calm.p50Ms.toFixed(2)} ms, p99 ${calm.p99Ms.toFixed(2)} ms  [${tally(calm)}]`,
    );

    const lifetimes = Array.from({ length: settings.slow }, () => slowConnection(port));
    await new Promise((resolve) => setTimeout(resolve, 500)); // all connected and waiting
    const underAttack = await checkIns(settings.seconds);
    const lived = await Promise.all(lifetimes);
    const life = percentiles(lived);
    const cut = lived.filter((ms) => ms <= CUT_GOAL_MS).length;
    console.log(
      `under attack: ${settings.slow} slow connections (a byte per second), same kiosks: p50 ${underAttack.p50Ms.toFixed(2)} ms, p99 ${underAttack.p99Ms.toFixed(2)} ms  [${tally(underAttack)}]`,
    );
    console.log(
      `slow connections cut: ${cut} of ${settings.slow} within ${CUT_GOAL_MS} ms; lifetime p50 ${life.p50.toFixed(0)} ms, max ${life.max.toFixed(0)} ms`,
    );
    console.log('');
    const ok = (label: string, pass: boolean, figure: string) => console.log(`${pass ? 'PASS' : 'FAIL'}  ${label}: ${figure}`);
    ok(
      `every slow connection cut within ${CUT_GOAL_MS} ms`,
      cut === settings.slow,
      `${cut}/${settings.slow}, longest ${life.max.toFixed(0)} ms`,
    );
    ok(`check-in p99 under attack < ${P99_GOAL_MS} ms`, underAttack.p99Ms < P99_GOAL_MS, `${underAttack.p99Ms.toFixed(2)} ms`);
    const allValid = [...underAttack.outcomes.keys()].every((label) => label === '200 valid');
    ok('every kiosk check-in answered "valid"', allValid, tally(underAttack));
  } finally {
    issuer.kill('SIGTERM');
    await new Promise((resolve) => issuer.once('exit', resolve));
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const tally = (result: LoadResult): string => [...result.outcomes].map(([label, count]) => `${count}× ${label}`).join(', ');

await main();
