/**
 * The kiosk page is served from its own scheme, kiosk://app/, instead of
 * file:// (docs/kiosk.md "Packaging"): a file:// page may read other local
 * files, a standard secure scheme is its own origin that can reach nothing
 * else. main.ts registers the scheme and `handleAppScheme` answers it; which
 * file a path names is main/host/page-files.ts (shared with the web host),
 * so it is tested without Electron: only files inside the built renderer
 * folder, by a path that stays inside it however it is spelt.
 */
import { readFileSync } from 'node:fs';
import type { Protocol } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../host/content-security-policy.js';
import { contentTypeOf, resolvePageFile } from '../host/page-files.js';

export { contentTypeOf };

export const APP_SCHEME = 'kiosk';
export const APP_HOST = 'app';
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Privileges for protocol.registerSchemesAsPrivileged: an origin of its own, treated as secure, fetch allowed. */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true } as const;

/**
 * The file inside `rootDir` that `url` names, or null. Refused: another
 * scheme or host, user or port, and every path page-files.ts refuses. The
 * query and hash are ignored.
 */
export function resolveAppFile(url: string, rootDir: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (
    parsed.protocol !== `${APP_SCHEME}:` ||
    parsed.host !== APP_HOST ||
    parsed.username !== '' ||
    parsed.password !== '' ||
    parsed.port !== ''
  )
    return null;
  return resolvePageFile(parsed.pathname, rootDir);
}

/** The answer to one kiosk:// request: the file with its type and the CSP, or 404. */
export function serveAppFile(url: string, rootDir: string): Response {
  const file = resolveAppFile(url, rootDir);
  if (file === null) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  return new Response(readFileSync(file), {
    status: 200,
    headers: {
      'content-type': contentTypeOf(file),
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    },
  });
}

/** Answers kiosk:// from the built renderer in `rootDir` (call once the app is ready). */
export function handleAppScheme(protocol: Pick<Protocol, 'handle'>, rootDir: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppFile(request.url, rootDir));
}
