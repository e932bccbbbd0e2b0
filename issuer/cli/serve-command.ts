/**
 * `serve`: runs the HTTP API (issuer/server.ts) on this data dir until
 * SIGINT/SIGTERM. HTTPS by default with the self-signed certificate kept in
 * the data dir; `--plain-http` behind a TLS-terminating proxy or on loopback
 * (docs/protocol.md "The admin CLI"). Everything it prints is a log: stderr.
 */
import type { Command } from 'commander';
import { isLoopbackHost } from '../../protocol/base-url.js';
import { openIssuer } from '../admin/issuer-context.js';
import { parseInteger } from '../admin/validators.js';
import { trustedProxyProblem } from '../connection-limits.js';
import { AdminError } from '../error-catalogue.js';
import { DEFAULT_HOST, DEFAULT_PORT, defaultListen } from '../listen-defaults.js';
import type { RunningServer, StartServerOptions } from '../server.js';
import { readAdminTokenFile } from '../services/admin-credential.js';
import { findAdminToken } from '../store/admin-token.js';
import { describeDatabase } from '../store/open.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface ServeOptions extends CommonOptions {
  host?: string;
  port?: string;
  plainHttp?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  scannerRpm?: string;
  enrollRpm?: string;
  adminTokenFile?: string;
  trustProxy?: string;
  maxConnections?: string;
  dbPool?: string;
  webhookAuditMinutes?: string;
  webhookDelivery?: string;
}

export function serveOptions(options: ServeOptions, dataDir: string, baseUrl: string): StartServerOptions {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new AdminError('INVALID_ARGUMENT', '--tls-cert and --tls-key go together');
  }
  if (options.plainHttp && options.tlsCert !== undefined)
    throw new AdminError('INVALID_ARGUMENT', '--plain-http cannot be combined with --tls-cert/--tls-key');
  const defaults = defaultListen(baseUrl);
  const server: StartServerOptions = {
    dataDir,
    // This command owns SIGINT/SIGTERM, so it can say it is stopping and wait for close().
    handleSignals: false,
    host: options.host ?? defaults.host,
    port: options.port === undefined ? defaults.port : parseInteger(options.port, '--port', 0, 65535),
    plainHttp: options.plainHttp === true,
  };
  if (options.tlsCert !== undefined) server.tlsCert = options.tlsCert;
  if (options.tlsKey !== undefined) server.tlsKey = options.tlsKey;
  if (options.scannerRpm !== undefined) server.scannerRpm = parseInteger(options.scannerRpm, '--scanner-rpm', 1, 1_000_000);
  if (options.enrollRpm !== undefined) server.enrollRpm = parseInteger(options.enrollRpm, '--enroll-rpm', 1, 1_000_000);
  if (options.maxConnections !== undefined)
    server.maxConnections = parseInteger(options.maxConnections, '--max-connections', 16, 1_000_000);
  if (options.webhookAuditMinutes !== undefined)
    server.webhookAuditMinutes = parseInteger(options.webhookAuditMinutes, '--webhook-audit-minutes', 1, 24 * 60);
  if (options.webhookDelivery !== undefined) server.webhookDelivery = parseWebhookDelivery(options.webhookDelivery);
  if (options.dbPool !== undefined) server.databasePoolSize = parseInteger(options.dbPool, '--db-pool', 1, 1000);
  if (options.trustProxy !== undefined) server.trustProxy = parseTrustedProxies(options.trustProxy);
  return server;
}

/**
 * `--webhook-delivery on|off`: whether this process sends the webhook outbox (docs/issuer.md "Webhooks", "Which
 * process delivers"). Off, its changes still write their messages; another `serve` process sends them.
 */
export function parseWebhookDelivery(value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new AdminError(
    'INVALID_ARGUMENT',
    '--webhook-delivery takes on (this process sends the webhooks; the default) or off (another serve process sends them)',
  );
}

/** `--trust-proxy 10.0.0.0/8,192.168.1.5`: the reverse proxies whose X-Forwarded-For is believed. */
export function parseTrustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0)
    throw new AdminError('INVALID_ARGUMENT', '--trust-proxy needs at least one address or CIDR range, e.g. 10.0.0.0/8');
  for (const entry of entries) {
    const problem = trustedProxyProblem(entry);
    if (problem !== null) throw new AdminError('INVALID_ARGUMENT', `--trust-proxy: ${problem}`);
  }
  return entries;
}

async function startServer(options: StartServerOptions): Promise<RunningServer> {
  // Loaded only here so the other commands never pay for loading Fastify and pino.
  const [server, { createLogger }, { default: pino }] = await Promise.all([
    import('../server.js'),
    import('../logging.js'),
    import('pino'),
  ]);
  // Request logs are logs: stderr, never stdout (docs/protocol.md "The admin CLI").
  return server.startServer({ ...options, logger: createLogger({ stream: pino.destination(2) }) });
}

export function registerServeCommand(program: Command): void {
  withCommonOptions(
    program
      .command('serve')
      .description('run the HTTP API on this data dir (HTTPS with a self-signed certificate by default)')
      .option('--host <host>', 'interface to listen on (default: 127.0.0.1 for a loopback base URL, else 0.0.0.0)')
      .option('--port <port>', `port (default: the base URL's port, else ${DEFAULT_PORT})`)
      .option('--plain-http', 'plain HTTP, behind a TLS-terminating proxy or on loopback')
      .option('--tls-cert <file>', 'PEM certificate instead of the self-signed one')
      .option('--tls-key <file>', 'PEM private key of --tls-cert')
      .option('--scanner-rpm <n>', 'check-in + status requests per minute per scanner key (default 600)')
      .option('--enroll-rpm <n>', 'enrollment requests per minute per client IP (default 10)')
      .option('--admin-token-file <file>', 'admin dashboard token from this file, instead of the one made by init / admin-token reset')
      .option(
        '--trust-proxy <cidrs>',
        'reverse proxies (comma-separated addresses or CIDR ranges) whose X-Forwarded-For gives the client address',
      )
      .option('--max-connections <n>', 'open connections at most; more are refused at once (default 1000)')
      .option('--db-pool <n>', 'PostgreSQL connections this process keeps (default 10; ignored with SQLite)')
      .option('--webhook-audit-minutes <n>', 'minutes between audit.head webhook messages (default 15)')
      .option(
        '--webhook-delivery <on|off>',
        'on: this process sends the webhooks (default); off: it only records them, another serve process with on sends them',
      ),
  ).action(
    action<ServeOptions>(async (options, output) => {
      // Refuses an older or newer schema before anything listens (docs/issuer.md "Upgrading: migrate").
      const { dataDir, database, info } = await openIssuer(options.data, { schema: 'require-current', servingNode: 'allow' });
      const hasStoredAdminToken = (await findAdminToken(database.read)) !== undefined;
      await database.close();
      const serverOptions = serveOptions(options, dataDir.root, info.base_url);
      if (options.adminTokenFile !== undefined) {
        const { token, warning } = readAdminTokenFile(options.adminTokenFile);
        if (warning !== null) output.log(`warning: ${warning}`);
        serverOptions.adminToken = token;
      }
      if (serverOptions.plainHttp && !isLoopbackHost(serverOptions.host ?? DEFAULT_HOST)) {
        output.log(`warning: plain HTTP on ${serverOptions.host}: only behind a TLS-terminating proxy (scanners require HTTPS)`);
      }
      const server = await startServer(serverOptions);
      output.log(
        `ticket-issuer "${info.name}" serving ${info.base_url} on ${server.url} (data: ${dataDir.root}; database: ${describeDatabase(dataDir)})`,
      );
      if (server.fingerprint) output.log(`TLS certificate SHA-256 fingerprint: ${server.fingerprint}`);
      output.log(`Admin dashboard: ${server.url}/admin${serverOptions.adminToken !== undefined ? ' (token from --admin-token-file)' : ''}`);
      if (serverOptions.adminToken === undefined && !hasStoredAdminToken) {
        output.log('No admin dashboard token is set yet: make one with "ticket-issuer admin-token reset" (no restart needed).');
      }
      if (serverOptions.webhookDelivery === false)
        output.log('Webhook delivery is off in this process: another serve process with --webhook-delivery on sends the webhooks.');
      output.log('Press Ctrl+C to stop.');
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals): void => {
          output.log(`${signal}: stopping…`);
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          server.close().then(resolve, resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    }),
  );
}
