/**
 * One kiosk PROCESS for the LAN tests (lan-peers.test.ts): the real runtime
 * (main/host/kiosk-runtime.ts, built into dist/ by the tests' global setup)
 * with LAN warnings on loopback only: discovery off (no multicast, no
 * broadcast), bound to 127.0.0.1, the peers' loopback ports configured through
 * the same `peers` list discovery fills. Driven by its parent over the IPC
 * channel: { id, cmd: 'scan' | 'knows' | 'annul' | 'drain' | 'close', ... } → { id, result }; every
 * log line goes up as { log }.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { startKioskRuntime } = await import(pathToFileURL(path.join(repoRoot, 'dist/main/host/kiosk-runtime.js')).href);

const config = JSON.parse(process.argv[2]);
const send = (message) => process.send?.(message);

/**
 * Until the issuer of this branch certifies LAN keys itself (docs/protocol.md "LAN messages between kiosks"), the
 * test stands in for it: an enrollment answer without `lan_certificate` gets one, signed with the issuer's own
 * signing key (the one its discovery document publishes, which the kiosk trusts), for the key the kiosk sent.
 * An answer that has one is left as it is.
 */
async function certifyingFetch() {
  const { loadSigningKey } = await import(pathToFileURL(path.join(repoRoot, 'dist/issuer/signing.js')).href);
  const { encodeKioskCertificate } = await import(pathToFileURL(path.join(repoRoot, 'dist/protocol/kiosk-certificate.js')).href);
  const { sign } = await import('node:crypto');
  const issuerKey = loadSigningKey(config.certify.keysDir, config.certify.kid);
  return async (input, init) => {
    const response = await fetch(input, init);
    const request = typeof init?.body === 'string' && init.body.includes('lan_public_key') ? JSON.parse(init.body) : null;
    if (!request || !response.ok) return response;
    const answer = await response.json();
    if (answer.lan_certificate === undefined) {
      const payload = {
        v: 1,
        iss: answer.issuer.iss,
        kid: issuerKey.kid,
        scanner_id: request.scanner_id,
        eid: answer.scope.eid,
        gate: answer.scope.gate_id ?? null,
        pub: request.lan_public_key,
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.parse(answer.scope.expires_at) / 1000),
      };
      answer.lan_certificate = encodeKioskCertificate(payload, (message) => sign(null, message, issuerKey.privateKey));
    }
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(answer), { status: response.status, headers });
  };
}
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
    ...(config.certify ? { fetch: await certifyingFetch() } : {}),
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
