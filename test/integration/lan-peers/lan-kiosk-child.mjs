/**
 * One kiosk PROCESS for the LAN tests (lan-peers.test.ts): the real runtime
 * (main/host/kiosk-runtime.ts, built into dist/ by the tests' global setup)
 * with LAN warnings on loopback only: discovery off (no multicast, no
 * broadcast), bound to 127.0.0.1, the peers' loopback ports configured through
 * the same `peers` list discovery fills. Driven by its parent over the IPC
 * channel: { id, cmd: 'scan' | 'knows' | 'annul' | 'drain' | 'sync' | 'close', ... } → { id, result }; every
 * log line goes up as { log }.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { startKioskRuntime } = await import(pathToFileURL(path.join(repoRoot, 'dist/main/host/kiosk-runtime.js')).href);

const config = JSON.parse(process.argv[2]);
const send = (message) => process.send?.(message);

const runtime = await startKioskRuntime({
  dataDir: config.dataDir,
  keyringService: config.keyringService,
  hidScanners: false,
  lan: { port: config.port, bindAddress: '127.0.0.1', discovery: false, peers: config.peers },
  // Scans are driven by the test; no timers that would talk to the issuer on their own.
  core: {
    autoDrain: false,
    heartbeatIntervalMs: 0,
    onlineBudgetMs: 3000,
    repeatReadWindowMs: 0,
    // The revocation list syncs at enrollment, after an answer when it is behind, and when the test says (`sync`).
    revocationSyncIntervalMs: 0,
    // A kiosk whose own clock is off (docs/kiosk.md "The kiosk's clock"): it learns the issuer's time from its answers.
    ...(config.clockOffsetMs ? { now: () => Date.now() + config.clockOffsetMs } : {}),
  },
  log: (line) => send({ log: line }),
});

process.on('message', async (message) => {
  const { id, cmd } = message;
  try {
    if (cmd === 'scan') send({ id, result: await runtime.core.scan(message.code) });
    else if (cmd === 'knows') send({ id, result: runtime.lan?.admissionOf(message.tid) ?? null });
    else if (cmd === 'annul') send({ id, result: await runtime.core.annul(message.tid, message.reason) });
    else if (cmd === 'drain') send({ id, result: (await runtime.core.drain())?.stop ?? null });
    else if (cmd === 'sync') send({ id, result: (await runtime.core.syncRevocations()) ?? null });
    else if (cmd === 'close') {
      await runtime.close();
      send({ id, result: 'closed' });
      process.disconnect();
    }
  } catch (error) {
    send({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
send({ ready: true, port: runtime.lan?.port ?? null });
