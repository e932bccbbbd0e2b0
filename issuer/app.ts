/**
 * The issuer's HTTP application: `build()` assembles the Fastify instance
 * without listening (server.ts listens), like Fastify's demo app. The
 * instance owns its database connection and closes it last, after in-flight
 * requests and the pending group commit are done.
 *
 * The server publishes public keys; it reads the active private signing key only to sign a kiosk's LAN
 * certificate at enrollment (services/kiosk-certificates.ts), an annulment receipt, and a staff badge issued on
 * the dashboard (admin/staff-badges.ts); never on a serving node, which has none.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_TIMEOUTS, serverTimeoutOptions, type ConnectionTimeouts } from './connection-limits.js';
import { resolveDataDir, requireInitialised } from './data-dir.js';
import { clientErrorHandler, errors, frameworkErrorHandler, installErrorHandlers } from './error-catalogue.js';
import { createLogger } from './logging.js';
import adminRoutes from './routes/admin/index.js';
import checkInRoute from './routes/check-in.js';
import discoveryRoute from './routes/discovery.js';
import enrollRoute from './routes/enroll.js';
import healthRoutes from './routes/health.js';
import heartbeatRoute from './routes/heartbeat.js';
import revocationsRoute from './routes/revocations.js';
import scannerNotesRoute from './routes/scanner-notes.js';
import handoutsRoute from './routes/handouts.js';
import { addProtocolSchemas } from './routes/schemas.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './request-body.js';
import { closeConnectionsOnShutdown } from './shutdown.js';
import ticketStatusRoute from './routes/ticket-status.js';
import ticketSearchRoute from './routes/ticket-search.js';
import { IDEMPOTENCY_RETENTION_MS, pruneStoredAnswersWrite } from './services/check-in.js';
import { settleAllExitAll } from './services/exit-all.js';
import { enrollRateLimit, scannerRateLimit } from './services/rate-limits.js';
import { startScanLogSealer } from './store/audit-log.js';
import { startDeliverer } from './services/webhook-delivery.js';
import { auditHeadWrite } from './services/webhooks.js';
import { openIssuerDatabase } from './store/open.js';
import { ensureRateLimitTable, postgresRateLimitStore } from './store/postgres-rate-limit.js';
import type { SqlDatabase } from './store/sql.js';
import { SqliteThreadDatabase } from './store/sqlite-thread.js';
import { getIssuerInfo, type IssuerInfo } from './store/issuer-info.js';

export interface BuildOptions {
  /** The issuer data directory (created by `ticket-issuer init`). */
  dataDir: string;
  /** Check-in + status requests per minute per scanner credential (default 600). */
  scannerRpm?: number;
  /** Enrollment requests per minute per client IP (default 10). */
  enrollRpm?: number;
  /** TLS key and certificate (PEM); plain HTTP without. */
  https?: { key: string | Buffer; cert: string | Buffer } | null;
  /** A pino logger; by default JSON lines on stdout at `info`, with secrets redacted (logging.ts). */
  logger?: Logger;
  /**
   * Reverse proxies whose X-Forwarded-For is believed, as addresses or CIDR
   * ranges (serve --trust-proxy): the per-address limits then count the real
   * client. Empty or absent: forwarded headers are ignored.
   */
  trustProxy?: readonly string[];
  /** Open connections at most (serve --max-connections, default DEFAULT_MAX_CONNECTIONS). */
  maxConnections?: number;
  /** The documented defaults (connection-limits.ts); tests shorten them to watch a slow client being cut. */
  timeouts?: Partial<ConnectionTimeouts>;
  /** The admin dashboard accepts this token instead of the one stored in the data dir (serve --admin-token-file). */
  adminToken?: string;
  /** Setup codes made on the dashboard pin this certificate fingerprint (the self-signed one being served), else none. */
  setupCertPin?: string | null;
  /** The built dashboard page; default dist/dashboard of this package. */
  dashboardDir?: string;
  /** PostgreSQL connections this process keeps (serve --db-pool, default 10); unused with SQLite. */
  databasePoolSize?: number;
  /** SQLite: write on a database thread (default true); false writes on this thread, for the benchmark's comparison. */
  sqliteThread?: boolean;
  /** How long close() lets open connections finish before cutting them (default SHUTDOWN_GRACE_MS, 10 s). */
  shutdownGraceMs?: number;
  /**
   * Deliver webhooks from this process, and offer audit.head (default true; serve --webhook-delivery; docs/issuer.md
   * "Webhooks"). False: its changes still write the outbox, another process sends it.
   */
  webhooks?: boolean;
  /** Minutes between audit.head messages (serve --webhook-audit-minutes, default 15). */
  webhookAuditMinutes?: number;
}

export const DEFAULT_AUDIT_HEAD_MINUTES = 15;

/**
 * The SQLite database thread's script (issuer/database-thread.ts, compiled). Run from the TypeScript sources
 * (the tests), this module is app.ts and the thread starts from the build beside them (npm run build), since
 * a worker thread runs JavaScript only.
 */
const DATABASE_THREAD_SCRIPT = import.meta.url.endsWith('.ts')
  ? new URL('../dist/issuer/database-thread.js', import.meta.url)
  : new URL('./database-thread.js', import.meta.url);

/** Requests are small JSON documents; anything larger is refused with 400 INVALID_REQUEST. */
export const BODY_LIMIT_BYTES = 16 * 1024;
const PRUNE_EVERY_MS = 3600_000;
/** How often serve looks for a check-out moment passed (docs/protocol.md "Check-out at a set time"). */
const EXIT_ALL_EVERY_MS = 10_000;

export async function build(options: BuildOptions): Promise<FastifyInstance> {
  const dataDir = resolveDataDir(options.dataDir);
  requireInitialised(dataDir);
  const { database, schemaVersion } = await openIssuerDatabase(dataDir, {
    ...(options.databasePoolSize === undefined ? {} : { poolSize: options.databasePoolSize }),
    ...(options.sqliteThread === false ? {} : { sqliteThread: DATABASE_THREAD_SCRIPT }),
  });
  try {
    return await assemble(options, database, schemaVersion, await getIssuerInfo(database.read));
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function assemble(options: BuildOptions, database: SqlDatabase, schemaVersion: number, issuer: IssuerInfo): Promise<FastifyInstance> {
  const timeouts: ConnectionTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const common = {
    loggerInstance: options.logger ?? createLogger(),
    bodyLimit: BODY_LIMIT_BYTES,
    // Only the listed proxies' forwarded addresses count; everyone else's X-Forwarded-For is ignored.
    trustProxy: options.trustProxy && options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    // Slow clients are cut (connection-limits.ts): idle sockets here, headers and bodies by Node below.
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: serverTimeoutOptions(timeouts),
    // Finish requests on open connections during shutdown instead of a bare 503 without our envelope.
    return503OnClosing: false,
    // Ill-typed fields must fail (precedence 2), not be coerced: 123 is not a tid.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  };
  const app = (options.https
    ? Fastify({ ...common, https: { ...serverTimeoutOptions(timeouts), handshakeTimeout: timeouts.tlsHandshakeMs, ...options.https } })
    : Fastify(common)) as unknown as FastifyInstance;
  app.server.headersTimeout = timeouts.headersMs;
  app.server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  app.log.info({ issuer: issuer.base_url, name: issuer.name }, 'issuer loaded');
  if (database instanceof SqliteThreadDatabase) {
    // The thread restarts itself (store/sqlite-thread.ts); the operator should still hear of it.
    database.notify = (event) =>
      event.kind === 'stopped'
        ? app.log.error(
            { err: event.error },
            `the database thread stopped: writes answer 503 until a new one starts (in ${event.retryInMs} ms)`,
          )
        : app.log.warn({ restarts: event.restarts }, 'a new database thread took over: writes work again');
  }

  app.decorateRequest('credential', null);
  // Only JSON bodies are accepted (docs/protocol.md "Endpoints"); a text/plain body is a wrong content type, hence 400.
  app.removeContentTypeParser('text/plain');
  installErrorHandlers(app);
  // Before validation and before any route walks the body (request-body.ts).
  app.addHook('preValidation', async (request) => {
    if (nestsDeeperThan(request.body, MAX_JSON_DEPTH))
      throw errors.invalidBody(`the body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  });
  const shutdown = closeConnectionsOnShutdown(app, options.shutdownGraceMs);
  addProtocolSchemas(app);
  // One process: the plugin's memory. Several serving processes share PostgreSQL, and so their windows
  // (docs/issuer.md "Serving nodes": 600 a minute per scanner means 600 in total, whichever process answers).
  if (database.dialect === 'postgres') await ensureRateLimitTable(database);
  await app.register(
    rateLimit,
    database.dialect === 'postgres' ? { global: false, store: postgresRateLimitStore(database) } : { global: false },
  );

  const scannerLimit = scannerRateLimit(app, options.scannerRpm);
  await app.register(healthRoutes, { database, schemaVersion, shutdown });
  await app.register(discoveryRoute, { database });
  await app.register(enrollRoute, {
    database,
    ipRateLimit: enrollRateLimit(app, options.enrollRpm),
    keysDir: resolveDataDir(options.dataDir).keysDir,
  });
  await app.register(checkInRoute, { database, scannerRateLimit: scannerLimit, keysDir: resolveDataDir(options.dataDir).keysDir });
  await app.register(ticketStatusRoute, { database, scannerRateLimit: scannerLimit });
  await app.register(ticketSearchRoute, { database, scannerRateLimit: scannerLimit });
  await app.register(heartbeatRoute, { database, scannerRateLimit: scannerLimit });
  await app.register(revocationsRoute, { database, scannerRateLimit: scannerLimit });
  await app.register(scannerNotesRoute, { database, scannerRateLimit: scannerLimit });
  await app.register(handoutsRoute, { database, scannerRateLimit: scannerLimit });
  await app.register(adminRoutes, {
    database,
    adminToken: options.adminToken,
    setupCertPin: options.setupCertPin ?? null,
    distDir: options.dashboardDir,
    keysDir: resolveDataDir(options.dataDir).keysDir,
  });

  // Stored answers are kept at least 7 days; older ones are dropped at start and hourly, through the write path.
  const pruneIdempotency = () =>
    database
      .write(pruneStoredAnswersWrite(new Date(Date.now() - IDEMPOTENCY_RETENTION_MS).toISOString()))
      .catch((error: unknown) => app.log.warn({ err: error }, 'pruning stored idempotent answers failed'));
  const pruneTimer = setInterval(pruneIdempotency, PRUNE_EVERY_MS).unref();
  void pruneIdempotency();
  // docs/protocol.md "Check-out at a set time": a moment passed is recorded within seconds even when no kiosk scans.
  const exitAllTimer = setInterval(
    () => void settleAllExitAll(database).catch((error: unknown) => app.log.warn({ err: error }, 'check-out at a set time failed')),
    EXIT_ALL_EVERY_MS,
  ).unref();
  // PostgreSQL: check-ins go into scan_log unsealed; this process chains what is committed (store/audit-log.ts).
  const sealer =
    database.dialect === 'postgres'
      ? startScanLogSealer(database, (error) => app.log.warn({ err: error }, 'sealing the scan log failed; trying again'))
      : null;
  // docs/issuer.md "Webhooks": every serving process delivers unless told not to (serve --webhook-delivery off;
  // claims keep two from sending one delivery at once), and now and then offers the scan log's head as audit.head.
  const deliverer =
    options.webhooks === false
      ? null
      : startDeliverer(database, (error) => app.log.warn({ err: error }, 'delivering webhooks failed; trying again'));
  const auditEveryMs = (options.webhookAuditMinutes ?? DEFAULT_AUDIT_HEAD_MINUTES) * 60_000;
  const offerAuditHead = () =>
    database
      .write(auditHeadWrite({ now: new Date().toISOString(), everyMs: auditEveryMs }))
      .catch((error: unknown) => app.log.warn({ err: error }, 'offering the audit head to webhooks failed'));
  const auditTimer = options.webhooks === false ? null : setInterval(offerAuditHead, Math.min(auditEveryMs, 60_000)).unref();
  // Runs after the server has stopped and in-flight requests are answered (Fastify closes the server first).
  app.addHook('onClose', async () => {
    clearInterval(pruneTimer);
    if (auditTimer !== null) clearInterval(auditTimer);
    await deliverer?.stop();
    clearInterval(exitAllTimer);
    await sealer?.stop();
    await database.close();
  });
  return app;
}
