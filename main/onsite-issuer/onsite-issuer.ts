/**
 * The bundled issuer, run by the kiosk app on the same machine (docs/kiosk.md
 * "Running the issuer on-site from the app"). Electron-free: the Electron shell drives it over
 * IPC (main/electron/onsite-issuer-calls.ts); on the command line and with the
 * browser host the same is `ticket-issuer serve`.
 *
 * It runs in the calling process (the Electron main process): the issuer is
 * issuer/server.ts's startServer, unchanged, on a data directory the app owns
 * (`<userData>/issuer-data`), reached only through the issuer's entry point
 * for the on-site issuer (issuer/onsite.ts). What this adds is only what an app
 * needs:
 *
 * - an explicit `init` step (name and base URL from the operator; the app
 *   never invents an issuer identity), the code `ticket-issuer init` runs;
 * - listening where `ticket-issuer serve` would (defaultListen: every
 *   interface unless the base URL is loopback, on the base URL's port), HTTPS
 *   with the self-signed certificate of the data dir, made the first time
 *   with every LAN address of this machine in its names;
 * - a status to show: running, one URL per LAN address, the certificate
 *   fingerprint kiosks pin, the data dir;
 * - clear refusals (not initialised, already running, port in use) as
 *   OnsiteIssuerError codes, and a graceful stop (requests in flight finish,
 *   the pending group commit is written, the database is closed).
 */
import os from 'node:os';
import type { Logger } from 'pino';
import {
  AdminError,
  createLogger,
  DEFAULT_PORT,
  defaultListen,
  EmbeddedIssuer,
  parseBaseUrl,
  parseInteger,
  parseLabel,
  type IssuerIdentity,
  type RunningServer,
} from '../../issuer/onsite.js';
import { lanAddresses, localAddress, reachableUrls, suggestedBaseUrl, type InterfaceTable } from './lan.js';

// For the hosts: the request log to a file, the certificate's names, and the label limit the page's calls are checked against (main/electron/onsite-issuer-calls.ts).
export { certificateNames, issuerFileLogger, MAX_LABEL_LENGTH } from '../../issuer/onsite.js';
export { DEFAULT_PORT as DEFAULT_ONSITE_PORT };

/**
 * Check-in + status requests per minute per scanner key on the on-site issuer:
 * ten times the protocol default (600, what `ticket-issuer serve` uses). The
 * limit is a fixed one-minute window, so a kiosk back from being offline sends
 * its queue at full speed until the window's budget is spent, then waits out
 * Retry-After, and meanwhile its own door's online check-ins get 429 too and
 * fall back to offline admits. Measured (docs/benchmarks.md "Soak"): 10 kiosks
 * with 1,500 queued scans each at 600/minute took 137 s to drain and 38% of
 * their live door scans went offline; at 6,000/minute a queue of up to about
 * 5,900 scans drains in one window and the door stays online. On a venue LAN
 * with enrolled kiosks the limit only has to stop a runaway client.
 */
export const ONSITE_SCANNER_RPM = 6000;

/** Where the dashboard another part of the issuer serves lives, on the issuer's own origin. */
export const ADMIN_PATH = '/admin';

export type OnsiteIssuerErrorCode =
  /** A request value is malformed (base URL, name, port); the message says which and how. */
  | 'invalid_input'
  /** start/status need an issuer identity first: call init. */
  | 'not_initialised'
  /** init on a data dir that already holds an issuer (it would orphan every ticket it signed). */
  | 'already_initialised'
  /** start while it runs (or is starting). */
  | 'already_running'
  /** Another program (or another issuer) listens on the port. */
  | 'port_in_use'
  /** Any other reason the socket cannot be opened (address not on this machine, privileged port). */
  | 'cannot_listen';

export class OnsiteIssuerError extends Error {
  override readonly name = 'OnsiteIssuerError';
  constructor(
    readonly code: OnsiteIssuerErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface OnsiteIssuerOptions {
  /** The issuer's data directory, owned by the app: `<userData>/issuer-data`. */
  dataDir: string;
  /** Interface to listen on; default as `ticket-issuer serve`: 0.0.0.0, or 127.0.0.1 for a loopback base URL. */
  host?: string;
  /** Port; default the base URL's (which kiosks use), else 8443. */
  port?: number;
  /** Check-in + status requests per minute per scanner key; default ONSITE_SCANNER_RPM. */
  scannerRpm?: number;
  /** Enrollment requests per minute per client IP (issuer default 10). */
  enrollRpm?: number;
  /** The issuer's request log; default JSON lines on stdout at `info`. */
  logger?: Logger;
  /** For tests: the network interfaces (default os.networkInterfaces). */
  networkInterfaces?: () => InterfaceTable;
  now?: () => Date;
}

export interface InitRequest {
  /** The issuer name kiosks show, e.g. "Harbour Festival". */
  name: string;
  /** What scanners reach, e.g. https://192.168.1.20:8443. Default: https://<first LAN address>:<port>. */
  baseUrl?: string;
  /** The port of the default base URL (default 8443). Ignored when baseUrl is given. */
  port?: number;
}

export interface OnsiteIssuerStatus {
  /** The data dir holds an issuer (init was done, here or by `ticket-issuer init`). */
  initialised: boolean;
  running: boolean;
  dataDir: string;
  /** The issuer's identity, once initialised. */
  issuer: { name: string; baseUrl: string } | null;
  /** Where it listens (running only). */
  listen: { host: string; port: number } | null;
  /** Where scanners reach it: one HTTPS URL per LAN IPv4 address (running only). */
  urls: string[];
  /** The admin dashboard on this machine, https://127.0.0.1:<port>/admin (running only). */
  adminUrl: string | null;
  /** SHA-256 fingerprint of the TLS certificate kiosks pin, once the certificate exists. */
  fingerprint: string | null;
  /** The names (DNS and IP) the certificate is made out to. */
  certificateNames: string[];
  /** This machine's LAN IPv4 addresses now. */
  lanAddresses: string[];
  /** What init would use without a base URL (not initialised only). */
  suggestedBaseUrl: string | null;
  /** The admin dashboard has a sign-in token (made by resetAdminToken or `ticket-issuer admin-token reset`). */
  adminTokenSet: boolean;
  /** Check-in + status requests per minute each scanner key may make. */
  scannerRpm: number;
  /** Things an operator should know, e.g. the base URL names an address this machine no longer has. */
  warnings: string[];
}

type State =
  | { kind: 'stopped' }
  | { kind: 'starting'; done: Promise<unknown> }
  | { kind: 'running'; server: RunningServer; host: string; port: number }
  | { kind: 'stopping'; done: Promise<void> };

export class OnsiteIssuer {
  private readonly issuer: EmbeddedIssuer;
  private readonly interfaces: () => InterfaceTable;
  private readonly now: () => Date;
  private state: State = { kind: 'stopped' };
  private info: IssuerIdentity | null = null;
  private logger: Logger | null;

  constructor(private readonly options: OnsiteIssuerOptions) {
    this.issuer = new EmbeddedIssuer(options.dataDir);
    this.interfaces = options.networkInterfaces ?? os.networkInterfaces;
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? null;
  }

  get dataDirectory(): string {
    return this.issuer.root;
  }

  get running(): boolean {
    return this.state.kind === 'running';
  }

  async status(): Promise<OnsiteIssuerStatus> {
    const addresses = lanAddresses(this.interfaces());
    const info = await this.identity();
    const certificate = this.issuer.certificate();
    const status: OnsiteIssuerStatus = {
      initialised: info !== null,
      running: false,
      dataDir: this.issuer.root,
      issuer: info && { name: info.name, baseUrl: info.baseUrl },
      listen: null,
      urls: [],
      adminUrl: null,
      fingerprint: certificate?.fingerprint ?? null,
      certificateNames: certificate?.names ?? [],
      lanAddresses: addresses,
      suggestedBaseUrl: info ? null : suggestedBaseUrl(addresses, this.options.port ?? DEFAULT_PORT),
      adminTokenSet: info !== null && (await this.issuer.hasAdminToken()),
      scannerRpm: this.options.scannerRpm ?? ONSITE_SCANNER_RPM,
      warnings: info ? baseUrlWarnings(info.baseUrl, addresses) : [],
    };
    if (this.state.kind === 'running') {
      const { host, port } = this.state;
      status.running = true;
      status.listen = { host, port };
      status.urls = reachableUrls(host, port, addresses);
      status.adminUrl = `https://${localAddress(host)}:${port}${ADMIN_PATH}`;
    }
    return status;
  }

  /**
   * Gives the data dir its issuer identity and first signing key, exactly as
   * `ticket-issuer init` does. Refuses a data dir that already holds one.
   */
  async init(request: InitRequest): Promise<OnsiteIssuerStatus> {
    if ((await this.identity()) !== null) {
      throw new OnsiteIssuerError(
        'already_initialised',
        `${this.issuer.root} already holds an issuer; it is kept (a new identity would orphan every ticket it signed)`,
      );
    }
    const name = adminCall(() => parseLabel(request.name, 'the issuer name'));
    const port = request.port ?? this.options.port ?? DEFAULT_PORT;
    adminCall(() => parseInteger(String(port), 'the port', 1, 65535));
    const baseUrl = adminCall(() => parseBaseUrl(request.baseUrl ?? suggestedBaseUrl(lanAddresses(this.interfaces()), port)));
    await adminCallAsync(() => this.issuer.init(baseUrl, name, this.now()));
    this.logFor().info({ issuer: baseUrl, name, dataDir: this.issuer.root }, 'on-site issuer initialised');
    return this.status();
  }

  /**
   * A new sign-in token for the admin dashboard, replacing any earlier one (which
   * stops working at once, also while serving): the code `ticket-issuer
   * admin-token reset` runs. Only its hash is stored; show it to the operator
   * once. Never logged.
   */
  async resetAdminToken(): Promise<{ adminToken: string; createdAt: string }> {
    if ((await this.identity()) === null) {
      throw new OnsiteIssuerError(
        'not_initialised',
        `no issuer in ${this.issuer.root} yet: initialise it first with its name and base URL`,
      );
    }
    const { token, createdAt } = await this.issuer.resetAdminToken(this.now());
    this.logFor().info('admin dashboard token replaced');
    return { adminToken: token, createdAt };
  }

  /** Starts serving; refuses when not initialised, already running, or the port is taken. */
  async start(): Promise<OnsiteIssuerStatus> {
    if (this.state.kind === 'starting' || this.state.kind === 'running') {
      const where = this.state.kind === 'running' ? ` on port ${this.state.port}` : '';
      throw new OnsiteIssuerError('already_running', `the on-site issuer is already running${where}; stop it first to restart it`);
    }
    if (this.state.kind === 'stopping') {
      await this.state.done.catch(() => undefined);
      return this.start(); // whatever happened meanwhile, decide again
    }
    // The state says "starting" before anything is awaited, so a second start() meanwhile is refused, not run twice.
    const starting = this.identityThenListen();
    const done = starting.then(({ server }) => server);
    done.catch(() => undefined); // the failure is thrown below; waiters on `done` handle it themselves
    this.state = { kind: 'starting', done };
    try {
      const { server, host, port } = await starting;
      this.state = { kind: 'running', server, host, port };
    } catch (error) {
      this.state = { kind: 'stopped' };
      throw error;
    }
    const status = await this.status();
    this.logFor().info({ urls: status.urls, fingerprint: status.fingerprint }, 'on-site issuer running');
    return status;
  }

  /** Stops accepting, lets requests in flight finish, writes the pending check-ins, closes the database. Idempotent. */
  async stop(): Promise<OnsiteIssuerStatus> {
    const state = this.state;
    if (state.kind === 'starting') {
      await state.done.catch(() => undefined);
      return this.stop();
    }
    if (state.kind === 'stopping') {
      await state.done;
      return this.status();
    }
    if (state.kind === 'running') {
      const done = state.server.close();
      this.state = { kind: 'stopping', done };
      try {
        await done;
      } finally {
        this.state = { kind: 'stopped' };
      }
      this.logFor().info('on-site issuer stopped');
    }
    return this.status();
  }

  private async identityThenListen(): Promise<{ server: RunningServer; host: string; port: number }> {
    const info = await this.identity();
    if (info === null) {
      throw new OnsiteIssuerError(
        'not_initialised',
        `no issuer in ${this.issuer.root} yet: initialise it first with its name and base URL`,
      );
    }
    const defaults = defaultListen(info.baseUrl);
    const host = this.options.host ?? defaults.host;
    const port = this.options.port ?? defaults.port;
    return { server: await this.listen(info, host, port), host, port };
  }

  private async listen(info: IssuerIdentity, host: string, port: number): Promise<RunningServer> {
    // The first time, the certificate names every LAN address, so a browser on the venue network sees its own address in it.
    await this.issuer.ensureCertificate(info, host, lanAddresses(this.interfaces()));
    try {
      // The app owns the process's signals: it stops the issuer on quit.
      return await this.issuer.serve({
        host,
        port,
        logger: this.logFor(),
        scannerRpm: this.options.scannerRpm ?? ONSITE_SCANNER_RPM,
        ...(this.options.enrollRpm === undefined ? {} : { enrollRpm: this.options.enrollRpm }),
      });
    } catch (error) {
      throw listenError(error, host, port);
    }
  }

  /** The issuer identity, read once from the database (it never changes after init). */
  private async identity(): Promise<IssuerIdentity | null> {
    this.info ??= await this.issuer.identity();
    return this.info;
  }

  private logFor(): Logger {
    this.logger ??= createLogger();
    return this.logger;
  }
}

/** A kiosk reaches the issuer at its base URL: say so when that address is not this machine's any more. */
function baseUrlWarnings(baseUrl: string, addresses: readonly string[]): string[] {
  const host = new URL(baseUrl).hostname;
  const isIpv4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
  if (!isIpv4 || host.startsWith('127.') || addresses.includes(host)) return [];
  return [
    `The base URL names ${host}, which is not an address of this machine now (${addresses.join(', ') || 'no LAN address'}): kiosks enrolled with it cannot reach this issuer. Give this machine that address again (e.g. a DHCP reservation).`,
  ];
}

/** Validation through the admin CLI's own checks, reported as invalid_input / already_initialised. */
function adminCall<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asOnsiteError(error);
  }
}

async function adminCallAsync<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asOnsiteError(error);
  }
}

/** An admin operation's AdminError as the panel's error; anything else unchanged. */
function asOnsiteError(error: unknown): unknown {
  if (!(error instanceof AdminError)) return error;
  return new OnsiteIssuerError(
    error.code === 'ALREADY_INITIALISED' ? 'already_initialised' : 'invalid_input',
    error.message.replace(/^--base-url /, 'the base URL '),
  );
}

function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') {
    return new OnsiteIssuerError(
      'port_in_use',
      `port ${port} is already in use on ${host}: another program (perhaps "ticket-issuer serve" or a second copy of this app) listens there. Stop it, then start the issuer again.`,
    );
  }
  if (code === 'EADDRNOTAVAIL')
    return new OnsiteIssuerError('cannot_listen', `cannot listen on ${host}: it is not an address of this machine`);
  if (code === 'EACCES')
    return new OnsiteIssuerError('cannot_listen', `not allowed to listen on port ${port} (ports below 1024 need administrator rights)`);
  return error;
}
