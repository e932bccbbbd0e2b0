/**
 * The web host's HTTP server (node:http): the built renderer, /kiosk-host.js,
 * the KioskApi as POST /api/kiosk/<method>, and state changes as server-sent
 * events at GET /api/kiosk/events. No Electron.
 *
 * Whoever can call this API operates the door, so:
 * - it listens on loopback unless told otherwise (listenProblem);
 * - the API, the event stream and the page need a session (launch.ts): the
 *   URL the host prints carries a one-time launch token, which GET /?token=
 *   trades for an HttpOnly, SameSite=Strict session cookie and a redirect to
 *   the URL without the token. Anything else gets 401. The other static
 *   files (the built renderer's scripts and styles, /kiosk-host.js) are
 *   public: they are the same for every kiosk and hold no secret;
 * - every request's Host must name this server (an IP literal, localhost or
 *   the configured host, with our port): a DNS-rebinding page arrives with
 *   its own domain in Host and is refused;
 * - API requests from a browser must be same-origin (Origin, Sec-Fetch-Site),
 *   and POSTs must be application/json, which no cross-site form can send
 *   without a CORS preflight (never granted: there are no CORS headers here);
 * - every argument goes through the same validation as the Electron IPC
 *   (main/host/kiosk-calls.ts), and answers are the same envelopes.
 *
 * This file listens and routes; each concern has its own module: where it
 * may listen and which requests it refuses (request-checks.ts), sessions
 * (browser-sessions.ts), the API calls (kiosk-api-route.ts), the event
 * stream (event-streams.ts), the page (page-route.ts), the answers
 * (http-answers.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { KioskApi } from '../kiosk/kiosk-api.js';
import { BrowserSessions, NO_SESSION_MESSAGE } from './browser-sessions.js';
import { EventStreams } from './event-streams.js';
import { failure, header, notAllowed, sendJson, setCommonHeaders } from './http-answers.js';
import { answerKioskCall } from './kiosk-api-route.js';
import { launchUrlFor, loadOrCreateSecret, SessionAuthority, writeLaunchFile } from './launch.js';
import { PageRoute } from './page-route.js';
import { isLoopbackAddress, listenProblem, requestProblem } from './request-checks.js';

export type WebHostCore = KioskApi;

export interface WebHostOptions {
  core: WebHostCore;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port); the CLI defaults to 8787. */
  port?: number;
  /** Listen beyond loopback. Anyone on that network can then operate the door. */
  allowRemote?: boolean;
  /** The built kiosk page (dist/kiosk-page, app-paths.ts). */
  rendererDir: string;
  /**
   * The launch file (launch.ts, `<data>/web-host.json`): the secret is read
   * from it (or made), and while the host runs it also says where the host
   * listens, so `ticket-kiosk web --print-url` can mint launch URLs. Without
   * it the secret lives in memory only and launchUrl() is the only way in.
   */
  launchFile?: string;
  log: (line: string) => void;
}

export interface WebHost {
  /** e.g. http://127.0.0.1:8787/ (no token: without a session cookie it answers 401). */
  url: string;
  /** A new one-time launch URL, e.g. http://127.0.0.1:8787/?token=… */
  launchUrl(): string;
  port: number;
  /** Ends the event streams and stops listening. Does not close the core. */
  close(): Promise<void>;
}

const API_PREFIX = '/api/kiosk/';
const EVENTS_PATH = '/api/kiosk/events';

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? '127.0.0.1';
  const problem = listenProblem(host, options.allowRemote ?? false);
  if (problem) throw new Error(problem);
  if (!isLoopbackAddress(host)) {
    options.log(`WARNING: listening on ${host} beyond loopback: anyone on that network can operate the door.`);
  }

  const authority = new SessionAuthority(
    options.launchFile ? await loadOrCreateSecret(options.launchFile, options.log) : randomBytes(32),
    randomBytes(9).toString('base64url'),
  );
  const routes: Routes = {
    host,
    port: 0,
    sessions: new BrowserSessions(authority, options.log),
    events: new EventStreams(options.core),
    page: new PageRoute(options.rendererDir),
    core: options.core,
    log: options.log,
  };
  const server = createServer((req, res) => {
    route(routes, req, res).catch((error: unknown) => {
      options.log(`request failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, failure('internal_error', 'The kiosk host failed to answer.'));
      else res.destroy();
    });
  });

  const port = await listen(server, options.port ?? 0, host);
  routes.port = port;
  routes.sessions.listeningOn(port);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  const secret = authority.exportSecret();
  if (options.launchFile)
    await publishLaunchFile(server, options.launchFile, { version: 1, secret, instance: authority.instance, url, pid: process.pid });

  return {
    url,
    launchUrl: () => launchUrlFor(url, authority.mintLaunchToken()),
    port,
    async close() {
      routes.events.endAll();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeIdleConnections();
      });
      // The secret stays (sessions survive a restart); the address and instance go, so --print-url says no host runs.
      if (options.launchFile)
        await writeLaunchFile(options.launchFile, { version: 1, secret }).catch((error: unknown) =>
          options.log(`cannot update the launch file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`),
        );
    },
  };
}

interface Routes {
  /** The configured host, and the port once listening: requests must name them (request-checks.ts). */
  host: string;
  port: number;
  sessions: BrowserSessions;
  events: EventStreams;
  page: PageRoute;
  core: WebHostCore;
  log: (line: string) => void;
}

/** One request: the checks every request passes, then the session, then the route. */
async function route(routes: Routes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  setCommonHeaders(res);
  const requestUrl = new URL(req.url ?? '/', 'http://placeholder');
  const path = requestUrl.pathname;
  const isApi = path.startsWith('/api/');
  const refusal = requestProblem(
    { hostHeader: req.headers.host, origin: req.headers.origin, secFetchSite: header(req, 'sec-fetch-site') },
    routes.host,
    routes.port,
    isApi,
  );
  if (refusal) {
    req.resume();
    return sendJson(res, 403, failure('forbidden', `Refused: ${refusal}.`));
  }
  const session = routes.sessions.sessionOf(req);
  const token = requestUrl.searchParams.get('token');
  // Only the page trades tokens, and the redirect goes to a fixed path (never to one built from the request).
  if (token !== null && req.method === 'GET' && (path === '/' || path === '/index.html'))
    return routes.sessions.redeem(req, res, path === '/' ? '/' : '/index.html', token, session);
  if (isApi && session === null) {
    req.resume();
    return sendJson(res, 401, failure('unauthorized', NO_SESSION_MESSAGE));
  }
  if (path === EVENTS_PATH) return req.method === 'GET' ? routes.events.open(res, session!) : notAllowed(req, res, 'GET');
  if (path.startsWith(API_PREFIX))
    return req.method === 'POST'
      ? answerKioskCall(req, res, path.slice(API_PREFIX.length), routes.core, routes.log)
      : notAllowed(req, res, 'POST');
  if (isApi) return sendJson(res, 404, failure('not_found', 'There is no such kiosk API path.'));
  if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(req, res, 'GET, HEAD');
  return routes.page.serve(req, res, path, session);
}

/** Listens on host:port (0: any free port); the port it got. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Says in the launch file where this host listens (for --print-url); a host that cannot stops listening. */
async function publishLaunchFile(server: Server, launchFile: string, content: Parameters<typeof writeLaunchFile>[1]): Promise<void> {
  try {
    await writeLaunchFile(launchFile, content);
  } catch (error) {
    await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    throw new Error(`cannot write the launch file ${launchFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      cause: error,
    });
  }
}
