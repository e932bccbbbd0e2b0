/**
 * GET /api/kiosk/events: the kiosk's state changes as server-sent events, the
 * only push to the page (the web host's script turns them into
 * onStateChange). A few streams per session, so one session cannot hold the
 * host's connections.
 */
import type { ServerResponse } from 'node:http';
import type { KioskApi, KioskState } from '../kiosk/kiosk-api.js';
import { failure, sendJson } from './http-answers.js';

/** Per session: another session (the real page) keeps its own. */
export const MAX_EVENT_STREAMS_PER_SESSION = 16;
const KEEPALIVE_MS = 25_000;

export class EventStreams {
  /** Open event streams by session id. */
  private readonly bySession = new Map<string, Set<ServerResponse>>();

  constructor(private readonly core: Pick<KioskApi, 'getState' | 'onStateChange'>) {}

  async open(res: ServerResponse, session: string): Promise<void> {
    let mine = this.bySession.get(session);
    if (mine && mine.size >= MAX_EVENT_STREAMS_PER_SESSION) {
      return sendJson(
        res,
        429,
        failure(
          'too_many_streams',
          `This session already has ${MAX_EVENT_STREAMS_PER_SESSION} open event streams; close one (another tab) first.`,
        ),
      );
    }
    if (!mine) this.bySession.set(session, (mine = new Set()));
    const own = mine;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    own.add(res);
    const send = (state: KioskState): void => {
      res.write(`event: state\ndata: ${JSON.stringify(state)}\n\n`);
    };
    const unsubscribe = this.core.onStateChange(send);
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    // The response's 'close', not the request's: a GET request "closes" as soon as its empty body is read.
    res.on('close', () => {
      clearInterval(keepalive);
      unsubscribe();
      own.delete(res);
      if (own.size === 0 && this.bySession.get(session) === own) this.bySession.delete(session);
    });
    // The current state first, so a page that (re)connects is in step at once.
    res.write('retry: 2000\n\n');
    send(await this.core.getState());
  }

  endAll(): void {
    for (const mine of this.bySession.values()) for (const stream of mine) stream.end();
    this.bySession.clear();
  }
}
