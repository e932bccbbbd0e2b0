/**
 * Runs the issuer: listen, TLS, graceful shutdown (the CLI's `serve`,
 * docs/protocol.md "The admin CLI").
 *
 * HTTPS by default with a self-signed certificate generated once and kept in
 * `<data>/tls/` (key 0600; issuer/tls-certificate.ts); scanners pin its
 * SHA-256 fingerprint, which is returned and logged. `tlsCert`/`tlsKey` serve
 * a real certificate; `plainHttp` is for a TLS-terminating proxy or loopback.
 */
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { build } from './app.js';
import { resolveDataDir, requireInitialised, tightenDataDir } from './data-dir.js';
import { createLogger } from './logging.js';
import { DEFAULT_HOST, DEFAULT_PORT } from './listen-defaults.js';
import { openIssuerDatabase } from './store/open.js';
import { getIssuerInfo } from './store/issuer-info.js';
import {
  certificateFingerprint,
  certificateHostnames,
  ensureSelfSignedCertificate,
  recordServingMode,
  type TlsMaterial,
} from './tls-certificate.js';

export interface StartServerOptions {
  dataDir: string;
  /** Default 127.0.0.1; use 0.0.0.0 to serve scanners on the venue network. */
  host?: string;
  /** Default 8443; 0 picks a free port (see the returned url). */
  port?: number;
  plainHttp?: boolean;
  /** PEM files of a real certificate and its key; both or neither. */
  tlsCert?: string;
  tlsKey?: string;
  scannerRpm?: number;
  enrollRpm?: number;
  /** Reverse proxies (addresses or CIDR ranges) whose X-Forwarded-For gives the client address for the per-address limits. */
  trustProxy?: readonly string[];
  /** Open connections at most (default 1,000). */
  maxConnections?: number;
  /** PostgreSQL connections this process keeps (serve --db-pool); unused with SQLite. */
  databasePoolSize?: number;
  /** SQLite: write on a database thread (default); false only for the benchmark's comparison (bench:issuer --sqlite-thread off). */
  sqliteThread?: boolean;
  /** Minutes between audit.head webhook messages (default 15; docs/issuer.md "Webhooks"). */
  webhookAuditMinutes?: number;
  /** Send the webhook outbox from this process (serve --webhook-delivery, default on; docs/issuer.md "Webhooks"). */
  webhookDelivery?: boolean;
  logger?: Logger;
  /** Close gracefully on SIGTERM/SIGINT (default true). */
  handleSignals?: boolean;
  /** The admin dashboard accepts this token instead of the one stored in the data dir (serve --admin-token-file). */
  adminToken?: string;
}

export interface RunningServer {
  /** Where the server listens, e.g. https://127.0.0.1:8443. */
  url: string;
  /** SHA-256 fingerprint of the served certificate (colon-separated hex), null with plainHttp. */
  fingerprint: string | null;
  /** Stops accepting, finishes in-flight requests and the pending group commit, closes the database. */
  close(): Promise<void>;
}

async function tlsFor(options: StartServerOptions, tlsDir: string, baseUrl: string, host: string): Promise<TlsMaterial | null> {
  if (options.plainHttp) return null;
  if (options.tlsCert !== undefined || options.tlsKey !== undefined) {
    if (options.tlsCert === undefined || options.tlsKey === undefined) throw new Error('--tls-cert and --tls-key go together');
    const cert = fs.readFileSync(options.tlsCert, 'utf8');
    return { cert, key: fs.readFileSync(options.tlsKey, 'utf8'), fingerprint: certificateFingerprint(cert) };
  }
  return ensureSelfSignedCertificate(tlsDir, certificateHostnames(baseUrl, host));
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const dataDir = resolveDataDir(options.dataDir);
  requireInitialised(dataDir);
  const host = options.host ?? DEFAULT_HOST;
  const { database: probe } = await openIssuerDatabase(dataDir, { schema: 'as-is' });
  let baseUrl: string;
  try {
    baseUrl = (await getIssuerInfo(probe.read)).base_url;
  } finally {
    await probe.close();
  }
  const logger = options.logger ?? createLogger();
  for (const change of tightenDataDir(dataDir)) logger.warn({ change }, 'data directory permissions were too open; tightened');
  const tls = await tlsFor(options, dataDir.tlsDir, baseUrl, host);
  const app = await build({
    dataDir: dataDir.root,
    https: tls && { key: tls.key, cert: tls.cert },
    scannerRpm: options.scannerRpm,
    enrollRpm: options.enrollRpm,
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    ...(options.databasePoolSize === undefined ? {} : { databasePoolSize: options.databasePoolSize }),
    ...(options.sqliteThread === undefined ? {} : { sqliteThread: options.sqliteThread }),
    ...(options.webhookAuditMinutes === undefined ? {} : { webhookAuditMinutes: options.webhookAuditMinutes }),
    ...(options.webhookDelivery === undefined ? {} : { webhooks: options.webhookDelivery }),
    logger,
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
    // Setup codes made on the dashboard pin the certificate only when it is our self-signed one (as scanner setup does).
    setupCertPin: tls !== null && options.tlsCert === undefined ? tls.fingerprint : null,
  });
  try {
    await app.listen({ host, port: options.port ?? DEFAULT_PORT });
  } catch (error) {
    await app.close();
    throw error;
  }
  recordServingMode(dataDir.tlsDir, tls === null ? 'plain-http' : options.tlsCert === undefined ? 'self-signed' : 'certificate');
  const { port } = app.server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? 'localhost' : net.isIPv6(host) ? `[${host}]` : host;
  const url = `${tls ? 'https' : 'http'}://${urlHost}:${port}`;
  if (tls) logger.info({ url, fingerprint: tls.fingerprint }, 'TLS certificate SHA-256 fingerprint');
  if (baseUrl.startsWith('https:') && !tls) logger.info({ baseUrl }, 'serving plain HTTP: a TLS-terminating proxy must serve the base URL');

  let closing: Promise<void> | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    void close();
  };
  const close = (): Promise<void> => {
    if (closing === null) {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      closing = app.close();
    }
    return closing;
  };
  if (options.handleSignals ?? true) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { url, fingerprint: tls?.fingerprint ?? null, close };
}
