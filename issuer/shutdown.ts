/**
 * Graceful shutdown that really ends (SIGTERM/SIGINT, or the kiosk stopping
 * its on-site issuer): requests in flight are answered and committed, and no
 * keep-alive connection can hold the process open.
 *
 * Node's `server.close()` closes the connections that are idle at that moment
 * only. A connection whose answer was still being made becomes idle a moment
 * later and would then stay open for the whole keep-alive timeout (72 s with
 * Fastify), and a kiosk scanning on it keeps it busy for ever. So, from the
 * moment shutdown begins: every answer says `Connection: close`, idle
 * connections are closed again every SWEEP_EVERY_MS, and whatever is still
 * open after the grace period is cut (its check-in, if any, is committed all
 * the same; the kiosk retries it with the same idempotency key and gets the
 * stored answer, docs/protocol.md "Precedence").
 */
import type { FastifyInstance } from 'fastify';

export const SHUTDOWN_GRACE_MS = 10_000;
const SWEEP_EVERY_MS = 50;

export interface ShutdownState {
  /** True from the moment close() begins: /readyz then answers 503 (docs/protocol.md "Health and readiness"). */
  isShuttingDown(): boolean;
}

export function closeConnectionsOnShutdown(app: FastifyInstance, graceMs: number = SHUTDOWN_GRACE_MS): ShutdownState {
  let shuttingDown = false;
  let sweep: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;

  app.addHook('onSend', async (_request, reply) => {
    if (shuttingDown) reply.header('connection', 'close');
  });
  app.addHook('preClose', async () => {
    shuttingDown = true;
    const server = app.server;
    sweep = setInterval(() => server.closeIdleConnections(), SWEEP_EVERY_MS).unref();
    deadline = setTimeout(() => {
      app.log.warn({ graceMs }, 'connections still open after the shutdown grace period: closing them');
      server.closeAllConnections();
    }, graceMs).unref();
  });
  // onClose runs once the server has stopped: every connection is gone by then.
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    clearTimeout(deadline);
  });
  return { isShuttingDown: () => shuttingDown };
}
