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
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP, type AddressInfo } from 'node:net';
import { extname, join, resolve } from 'node:path';
import type { KioskApi, KioskState } from '../kiosk/kiosk-api.js';
import { handleKioskCall, isKioskCallName, type AnswerErrorCode } from '../host/kiosk-calls.js';
import { CONTENT_SECURITY_POLICY } from '../host/content-security-policy.js';
import { contentTypeOf, resolvePageFile } from '../host/page-files.js';
import { hostScriptSource } from './host-script.js';
import { LAUNCH_TOKEN_TTL_MS, launchUrlFor, loadOrCreateSecret, SessionAuthority, writeLaunchFile, type RedeemResult } from './launch.js';

export type WebHostCore = Pick<KioskApi, 'scan' | 'confirmReEnroll' | 'cancelReEnroll' | 'lookupStatus' | 'getState' | 'setScannerName' | 'resetCalibration' | 'onStateChange'>;

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

export type HostErrorCode = AnswerErrorCode | 'unauthorized' | 'too_many_streams' | 'invalid_json' | 'payload_too_large' | 'unsupported_media_type' | 'not_found' | 'method_not_allowed';

export const MAX_BODY_BYTES = 64 * 1024;
/** Per session: another session (the real page) keeps its own. */
export const MAX_EVENT_STREAMS_PER_SESSION = 16;
const KEEPALIVE_MS = 25_000;
const API_PREFIX = '/api/kiosk/';
const NO_SESSION_MESSAGE =
  'No valid kiosk session. Open the launch URL that `ticket-kiosk web` printed, or run `ticket-kiosk web --print-url` (with the same --data) for a new one.';
const EVENTS_PATH = '/api/kiosk/events';
const HOST_SCRIPT_PATH = '/kiosk-host.js';
const HOST_SCRIPT_TAG = '<script src="./kiosk-host.js"></script>';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Null when the host may listen there; otherwise why not. */
export function listenProblem(host: string, allowRemote: boolean): string | null {
  if (isLoopbackAddress(host) || allowRemote) return null;
  return `refusing to listen on ${host}: anyone who can reach it could operate the door. Listen on 127.0.0.1, or pass --allow-remote if that is really intended.`;
}

export interface RequestFacts {
  hostHeader: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
}

/**
 * Null when the request may proceed; otherwise what to refuse with. Pure.
 * `configuredHost` is the --host value, `port` the port we listen on.
 */
export function requestProblem(facts: RequestFacts, configuredHost: string, port: number, isApi: boolean): string | null {
  const host = parseHostHeader(facts.hostHeader);
  if (!host) return 'the Host header is missing or malformed';
  if (host.port !== port) return 'the Host header names another port';
  const name = host.hostname.toLowerCase();
  const known = isIP(name.replace(/^\[|\]$/g, '')) !== 0 || name === 'localhost' || name === configuredHost.toLowerCase();
  if (!known) return 'the Host header names another server (DNS rebinding?)';
  if (!isApi) return null;
  if (facts.origin !== undefined && facts.origin !== `http://${facts.hostHeader}`) return 'cross-origin requests may not operate the kiosk';
  // Browsers send Sec-Fetch-Site; "none" is a typed URL or bookmark, never a page.
  if (facts.secFetchSite !== undefined && facts.secFetchSite !== 'same-origin' && facts.secFetchSite !== 'none') {
    return 'cross-site requests may not operate the kiosk';
  }
  return null;
}

function parseHostHeader(value: string | undefined): { hostname: string; port: number } | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== '/' || url.host !== value.toLowerCase()) return null;
  return { hostname: url.hostname, port: url.port === '' ? 80 : Number(url.port) };
}

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
  /** Open event streams by session id. */
  const streams = new Map<string, Set<ServerResponse>>();
  const hostScript = hostScriptSource();
  let port = 0;
  let cookieName = '';
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log(`request failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, failure('internal_error', 'The kiosk host failed to answer.'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setCommonHeaders(res);
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
    const isApi = path.startsWith('/api/');
    const refusal = requestProblem(
      { hostHeader: req.headers.host, origin: req.headers.origin, secFetchSite: header(req, 'sec-fetch-site') },
      host,
      port,
      isApi,
    );
    if (refusal) {
      req.resume();
      return sendJson(res, 403, failure('forbidden', `Refused: ${refusal}.`));
    }
    const session = sessionOf(req);
    const token = new URL(req.url ?? '/', 'http://placeholder').searchParams.get('token');
    // Only the page trades tokens, and the redirect goes to a fixed path (never to one built from the request).
    if (token !== null && req.method === 'GET' && (path === '/' || path === '/index.html')) return redeem(req, res, path === '/' ? '/' : '/index.html', token, session);
    if (isApi && session === null) {
      req.resume();
      return sendJson(res, 401, failure('unauthorized', NO_SESSION_MESSAGE));
    }
    if (path === EVENTS_PATH) return req.method === 'GET' ? openEventStream(res, session!) : notAllowed(req, res, 'GET');
    if (path.startsWith(API_PREFIX)) return req.method === 'POST' ? apiCall(req, res, path.slice(API_PREFIX.length)) : notAllowed(req, res, 'POST');
    if (isApi) return sendJson(res, 404, failure('not_found', 'There is no such kiosk API path.'));
    if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(req, res, 'GET, HEAD');
    return serveFile(req, res, path, session);
  }

  /** The session id from our cookie, or null. Never logged. */
  function sessionOf(req: IncomingMessage): string | null {
    for (const value of cookieValues(req.headers.cookie, cookieName)) {
      const id = authority.sessionOf(value);
      if (id) return id;
    }
    return null;
  }

  /** GET /?token=…: a session cookie and a redirect to the same page without the token. */
  function redeem(req: IncomingMessage, res: ServerResponse, path: string, token: string, session: string | null): void {
    req.resume();
    // A browser that already has a session keeps it; the token is not spent.
    if (session !== null) return redirect(res, path);
    const result = authority.redeem(token);
    if (result !== 'ok') {
      noteRefusal(result);
      return sendText(req, res, 401, REDEEM_REFUSALS[result]);
    }
    const { cookie } = authority.newSession();
    res.setHeader('set-cookie', `${cookieName}=${cookie}; HttpOnly; SameSite=Strict; Path=/`);
    options.log('a browser opened a session with a launch URL');
    redirect(res, path);
  }

  // Refused launch URLs are worth a log line (an "already used" one may mean someone else has a session),
  // but a client repeating one must not flood the log: at most one line per 10 s, with a count.
  let refusalsUnlogged = 0;
  let lastRefusalLog = -Infinity;
  function noteRefusal(result: Exclude<RedeemResult, 'ok'>): void {
    refusalsUnlogged += 1;
    if (Date.now() - lastRefusalLog < 10_000) return;
    const more = refusalsUnlogged > 1 ? ` (${refusalsUnlogged - 1} more refused since the last note)` : '';
    options.log(`a launch URL was refused (${result === 'used' ? 'already used' : result})${more}`);
    lastRefusalLog = Date.now();
    refusalsUnlogged = 0;
  }

  function redirect(res: ServerResponse, path: string): void {
    res.writeHead(303, { location: path, 'content-length': 0 });
    res.end();
  }

  async function apiCall(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      return sendJson(res, 415, failure('unsupported_media_type', 'Kiosk API requests must be sent as application/json.'));
    }
    if (!isKioskCallName(method)) {
      req.resume();
      return sendJson(res, 404, failure('unknown_method', 'There is no such kiosk call.'));
    }
    const body = await readBody(req);
    if (body === null) return sendJson(res, 413, failure('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`));
    let args: unknown = [];
    if (body.trim() !== '') {
      try {
        args = JSON.parse(body);
      } catch {
        return sendJson(res, 400, failure('invalid_json', 'The request body is not valid JSON: send the arguments as a JSON array, e.g. ["tkt1...."].'));
      }
    }
    const answer = await handleKioskCall(options.core, method, args, {
      onInternalError: (failed, error) => options.log(`${failed} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
    });
    sendJson(res, answer.ok ? 200 : statusFor(answer.error.code), answer);
  }

  async function openEventStream(res: ServerResponse, session: string): Promise<void> {
    let mine = streams.get(session);
    if (mine && mine.size >= MAX_EVENT_STREAMS_PER_SESSION) {
      return sendJson(res, 429, failure('too_many_streams', `This session already has ${MAX_EVENT_STREAMS_PER_SESSION} open event streams; close one (another tab) first.`));
    }
    if (!mine) streams.set(session, (mine = new Set()));
    const own = mine;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    own.add(res);
    const send = (state: KioskState): void => {
      res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`);
    };
    const unsubscribe = options.core.onStateChange(send);
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    // The response's 'close', not the request's: a GET request "closes" as soon as its empty body is read.
    res.on('close', () => {
      clearInterval(keepalive);
      unsubscribe();
      own.delete(res);
      if (own.size === 0 && streams.get(session) === own) streams.delete(session);
    });
    // The current state first, so a page that (re)connects is in step at once.
    res.write('retry: 2000\n\n');
    send(await options.core.getState());
  }

  async function serveFile(req: IncomingMessage, res: ServerResponse, path: string, session: string | null): Promise<void> {
    if (path === HOST_SCRIPT_PATH) return sendBody(req, res, 200, 'text/javascript; charset=utf-8', hostScript);
    // The same resolver as the Electron shell's kiosk:// scheme: only files inside the built renderer, however spelt.
    const file = resolvePageFile(path, options.rendererDir);
    if (file === null) {
      if (path === '/' || path === '/index.html') {
        return sendText(req, res, 503, `The kiosk screens are not built (${join(resolve(options.rendererDir), 'index.html')} is missing). Build them: npx vite build --config renderer/vite.config.ts`);
      }
      return sendText(req, res, 404, 'Not found.');
    }
    const type = contentTypeOf(file);
    if (extname(file).toLowerCase() === '.html') {
      // The page needs a session: without one it could do nothing but fail, so say how to get one instead.
      if (session === null) return sendText(req, res, 401, NO_SESSION_PAGE);
      return sendBody(req, res, 200, type, withHostScript(await readFile(file, 'utf8')));
    }
    return sendBody(req, res, 200, type, await readFile(file));
  }

  function notAllowed(req: IncomingMessage, res: ServerResponse, allow: string): void {
    req.resume();
    res.setHeader('allow', allow);
    sendJson(res, 405, failure('method_not_allowed', `Use ${allow}.`));
  }

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  port = (server.address() as AddressInfo).port;
  // Cookies are not kept apart by port: two hosts on one machine must not overwrite each other's.
  cookieName = `ticket-kiosk-session-${port}`;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}/`;
  const secret = authority.exportSecret();
  if (options.launchFile) {
    try {
      await writeLaunchFile(options.launchFile, { version: 1, secret, instance: authority.instance, url, pid: process.pid });
    } catch (error) {
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      throw new Error(`cannot write the launch file ${options.launchFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }

  return {
    url,
    launchUrl: () => launchUrlFor(url, authority.mintLaunchToken()),
    port,
    async close() {
      for (const mine of streams.values()) for (const stream of mine) stream.end();
      streams.clear();
      await new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeIdleConnections();
      });
      // The secret stays (sessions survive a restart); the address and instance go, so --print-url says no host runs.
      if (options.launchFile) await writeLaunchFile(options.launchFile, { version: 1, secret }).catch((error: unknown) => options.log(`cannot update the launch file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`));
    },
  };
}

const NO_SESSION_PAGE = `This kiosk page needs a session.

On the kiosk machine, run

    ticket-kiosk web --print-url

(with the same --data as the running host) and open the URL it prints. Each launch URL works once.
`;

const REDEEM_REFUSALS: Record<Exclude<RedeemResult, 'ok'>, string> = {
  invalid: `This launch URL is not valid: it is incomplete, or it belongs to an earlier run of the kiosk host.\n\n${NO_SESSION_PAGE}`,
  expired: `This launch URL has expired (they last ${LAUNCH_TOKEN_TTL_MS / 60_000} minutes).\n\n${NO_SESSION_PAGE}`,
  used: `This launch URL was already used: each one opens one browser session. If that was not you, someone else has a session: delete the launch file and restart the host (docs/kiosk.md, "The browser host").\n\n${NO_SESSION_PAGE}`,
};

/** The values of every cookie called `name` in a Cookie header (a browser may send several). */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (!header || !name) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/** index.html with the host script first in <head>: it defines window.kiosk before the renderer's module script runs. */
export function withHostScript(html: string): string {
  const head = /<head[^>]*>/i.exec(html);
  if (!head) return HOST_SCRIPT_TAG + html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + HOST_SCRIPT_TAG + html.slice(at);
}

function statusFor(code: HostErrorCode): number {
  switch (code) {
    case 'invalid_input':
    case 'invalid_json':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'unknown_method':
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'payload_too_large':
      return 413;
    case 'too_many_streams':
      return 429;
    case 'unsupported_media_type':
      return 415;
    case 'secret_store_unavailable':
      return 503;
    case 'internal_error':
      return 500;
  }
}

function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The body as text, or null when it is larger than MAX_BODY_BYTES. An
 * oversized body is still read to its end (and dropped), so the client gets
 * the 413 instead of a reset connection.
 */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolveBody(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', rejectBody);
  });
}

function failure(code: HostErrorCode, message: string): { ok: false; error: { code: HostErrorCode; message: string } } {
  return { ok: false, error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendBody(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  sendBody(req, res, status, 'text/plain; charset=utf-8', text);
}
