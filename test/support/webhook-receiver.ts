/**
 * A webhook receiver on loopback for the tests (docs/issuer.md "Webhooks"): it checks every request's signature
 * with the Standard Webhooks library (an implementation independent of the issuer's), keeps what arrived, and
 * answers with the status the test chooses per path.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  id: string;
  type: string;
  data: Record<string, unknown>;
  /** The Standard Webhooks library accepted the signature and timestamp with the path's secret. */
  verified: boolean;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The secret each path verifies with. */
  secrets: Map<string, string>;
  /** The status each path answers (default 200). */
  statuses: Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const statuses = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      const secret = secrets.get(path);
      let verified = false;
      try {
        if (secret !== undefined) {
          new Webhook(secret).verify(body, request.headers as Record<string, string>);
          verified = true;
        }
      } catch {
        verified = false;
      }
      const status = statuses.get(path) ?? 200;
      let parsed: { type?: string; data?: Record<string, unknown> } = {};
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        // Kept as received: the test sees type ''.
      }
      received.push({
        path,
        id: String(request.headers['webhook-id'] ?? ''),
        type: parsed.type ?? '',
        data: parsed.data ?? {},
        verified,
        status,
      });
      response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    secrets,
    statuses,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Resolves once `condition` holds (what arrived at a receiver), checking every 100 ms; throws, naming `what`,
 * after `timeoutMs`.
 */
export async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
