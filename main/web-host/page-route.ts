/**
 * The kiosk page and its files (GET, HEAD): the built renderer, with
 * /kiosk-host.js (host-script.ts) put first into index.html so it defines
 * window.kiosk before the page's own script runs. The page needs a session
 * (browser-sessions.ts); its scripts and styles are public: they are the
 * same for every kiosk and hold no secret.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { contentTypeOf, resolvePageFile } from '../host/page-files.js';
import { NO_SESSION_PAGE } from './browser-sessions.js';
import { hostScriptSource } from './host-script.js';
import { sendBody, sendText } from './http-answers.js';

const HOST_SCRIPT_PATH = '/kiosk-host.js';
const HOST_SCRIPT_TAG = '<script src="./kiosk-host.js"></script>';

export class PageRoute {
  private readonly hostScript = hostScriptSource();

  constructor(private readonly rendererDir: string) {}

  async serve(req: IncomingMessage, res: ServerResponse, path: string, session: string | null): Promise<void> {
    if (path === HOST_SCRIPT_PATH) return sendBody(req, res, 200, 'text/javascript; charset=utf-8', this.hostScript);
    // The same resolver as the Electron shell's kiosk:// scheme: only files inside the built renderer, however spelt.
    const file = resolvePageFile(path, this.rendererDir);
    if (file === null) {
      if (path === '/' || path === '/index.html') {
        return sendText(
          req,
          res,
          503,
          `The kiosk screens are not built (${join(resolve(this.rendererDir), 'index.html')} is missing). Build them: npx vite build --config renderer/vite.config.ts`,
        );
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
}

/** index.html with the host script first in <head>: it defines window.kiosk before the renderer's module script runs. */
export function withHostScript(html: string): string {
  const head = /<head[^>]*>/i.exec(html);
  if (!head) return HOST_SCRIPT_TAG + html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + HOST_SCRIPT_TAG + html.slice(at);
}
