/**
 * The web host's browser sessions (docs/kiosk.md "The browser host"): the
 * URL the host prints carries a one-time launch token, which GET /?token=
 * trades for an HttpOnly, SameSite=Strict session cookie and a redirect to
 * the URL without the token. The tokens and sessions themselves are
 * launch.ts (SessionAuthority); this is their HTTP side.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendText } from './http-answers.js';
import { LAUNCH_TOKEN_TTL_MS, type RedeemResult, type SessionAuthority } from './launch.js';

export const NO_SESSION_MESSAGE =
  'No valid kiosk session. Open the launch URL that `ticket-kiosk web` printed, or run `ticket-kiosk web --print-url` (with the same --data) for a new one.';

export const NO_SESSION_PAGE = `This kiosk page needs a session.

On the kiosk machine, run

    ticket-kiosk web --print-url

(with the same --data as the running host) and open the URL it prints. Each launch URL works once.
`;

const REDEEM_REFUSALS: Record<Exclude<RedeemResult, 'ok'>, string> = {
  invalid: `This launch URL is not valid: it is incomplete, or it belongs to an earlier run of the kiosk host.\n\n${NO_SESSION_PAGE}`,
  expired: `This launch URL has expired (they last ${LAUNCH_TOKEN_TTL_MS / 60_000} minutes).\n\n${NO_SESSION_PAGE}`,
  used: `This launch URL was already used: each one opens one browser session. If that was not you, someone else has a session: delete the launch file and restart the host (docs/kiosk.md, "The browser host").\n\n${NO_SESSION_PAGE}`,
};

export class BrowserSessions {
  /** Set once the port is known: cookies are not kept apart by port, so two hosts on one machine must not overwrite each other's. */
  private cookieName = '';
  // Refused launch URLs are worth a log line (an "already used" one may mean someone else has a session),
  // but a client repeating one must not flood the log: at most one line per 10 s, with a count.
  private refusalsUnlogged = 0;
  private lastRefusalLog = -Infinity;

  constructor(
    private readonly authority: SessionAuthority,
    private readonly log: (line: string) => void,
  ) {}

  listeningOn(port: number): void {
    this.cookieName = `ticket-kiosk-session-${port}`;
  }

  /** The session id from our cookie, or null. Never logged. */
  sessionOf(req: IncomingMessage): string | null {
    for (const value of cookieValues(req.headers.cookie, this.cookieName)) {
      const id = this.authority.sessionOf(value);
      if (id) return id;
    }
    return null;
  }

  /** GET /?token=…: a session cookie and a redirect to the same page without the token. */
  redeem(req: IncomingMessage, res: ServerResponse, path: string, token: string, session: string | null): void {
    req.resume();
    // A browser that already has a session keeps it; the token is not spent.
    if (session !== null) return redirect(res, path);
    const result = this.authority.redeem(token);
    if (result !== 'ok') {
      this.noteRefusal(result);
      return sendText(req, res, 401, REDEEM_REFUSALS[result]);
    }
    const { cookie } = this.authority.newSession();
    res.setHeader('set-cookie', `${this.cookieName}=${cookie}; HttpOnly; SameSite=Strict; Path=/`);
    this.log('a browser opened a session with a launch URL');
    redirect(res, path);
  }

  private noteRefusal(result: Exclude<RedeemResult, 'ok'>): void {
    this.refusalsUnlogged += 1;
    if (Date.now() - this.lastRefusalLog < 10_000) return;
    const more = this.refusalsUnlogged > 1 ? ` (${this.refusalsUnlogged - 1} more refused since the last note)` : '';
    this.log(`a launch URL was refused (${result === 'used' ? 'already used' : result})${more}`);
    this.lastRefusalLog = Date.now();
    this.refusalsUnlogged = 0;
  }
}

function redirect(res: ServerResponse, path: string): void {
  res.writeHead(303, { location: path, 'content-length': 0 });
  res.end();
}

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
