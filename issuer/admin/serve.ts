/**
 * `serve`: runs the HTTP API (issuer/server.ts) on this data dir until
 * SIGINT/SIGTERM. HTTPS by default with the self-signed certificate kept in
 * the data dir; `--plain-http` behind a TLS-terminating proxy or on loopback
 * (protocol-decisions.md "admin CLI"). Everything it prints is a log: stderr.
 */
import type { Command } from 'commander';
import { isLoopbackHost } from '../../protocol/base-url.js';
import { parseInteger } from './arguments.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { AdminError } from './errors.js';
import { openIssuer } from './issuer-context.js';

/** The contract of issuer/server.ts startServer. */
export interface ServerOptions {
  dataDir: string;
  host: string;
  port: number;
  plainHttp: boolean;
  tlsCert?: string;
  tlsKey?: string;
  scannerRpm?: number;
  enrollRpm?: number;
}

export interface RunningServer {
  url: string;
  fingerprint?: string | null;
  close(): Promise<void>;
}

export const DEFAULT_PORT = 8443;

/**
 * Where to listen unless told: scanners reach the issuer at its base URL, so a
 * loopback base URL means loopback only, and any other means every interface
 * (a venue laptop's scanners come over the LAN).
 */
export function defaultListen(baseUrl: string): { host: string; port: number } {
  const url = new URL(baseUrl);
  return { host: isLoopbackHost(url.hostname) ? '127.0.0.1' : '0.0.0.0', port: url.port === '' ? DEFAULT_PORT : Number(url.port) };
}

interface ServeOptions extends CommonOptions {
  host?: string;
  port?: string;
  plainHttp?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  scannerRpm?: string;
  enrollRpm?: string;
}

export function serveOptions(options: ServeOptions, dataDir: string, baseUrl: string): ServerOptions {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new AdminError('INVALID_ARGUMENT', '--tls-cert and --tls-key go together');
  }
  if (options.plainHttp && options.tlsCert !== undefined) throw new AdminError('INVALID_ARGUMENT', '--plain-http cannot be combined with --tls-cert/--tls-key');
  const defaults = defaultListen(baseUrl);
  const server: ServerOptions = {
    dataDir,
    host: options.host ?? defaults.host,
    port: options.port === undefined ? defaults.port : parseInteger(options.port, '--port', 0, 65535),
    plainHttp: options.plainHttp === true,
  };
  if (options.tlsCert !== undefined) server.tlsCert = options.tlsCert;
  if (options.tlsKey !== undefined) server.tlsKey = options.tlsKey;
  if (options.scannerRpm !== undefined) server.scannerRpm = parseInteger(options.scannerRpm, '--scanner-rpm', 1, 1_000_000);
  if (options.enrollRpm !== undefined) server.enrollRpm = parseInteger(options.enrollRpm, '--enroll-rpm', 1, 1_000_000);
  return server;
}

type StartServer = (options: ServerOptions) => Promise<RunningServer>;

async function loadStartServer(): Promise<StartServer> {
  // Loaded at run time so the other commands never pay for Fastify's start-up.
  // TODO: a static import once issuer/server.ts has landed; a variable specifier keeps the build green until then.
  const specifier = '../server.js';
  const module = (await import(specifier)) as { startServer: StartServer };
  return module.startServer;
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
      .option('--enroll-rpm <n>', 'enrollment requests per minute per client IP (default 10)'),
  ).action(
    action<ServeOptions>(async (options, output) => {
      const { dataDir, db, info } = openIssuer(options.data);
      db.close();
      const serverOptions = serveOptions(options, dataDir.root, info.base_url);
      if (serverOptions.plainHttp && !isLoopbackHost(serverOptions.host)) {
        output.log(`warning: plain HTTP on ${serverOptions.host}: only behind a TLS-terminating proxy (scanners require HTTPS)`);
      }
      const startServer = await loadStartServer();
      const server = await startServer(serverOptions);
      output.log(`ticket-issuer "${info.name}" serving ${info.base_url} on ${server.url} (data: ${dataDir.root})`);
      if (server.fingerprint) output.log(`TLS certificate SHA-256 fingerprint: ${server.fingerprint}`);
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
