/**
 * The kiosk page is served from its own scheme, kiosk://app/, instead of
 * file:// (docs/kiosk.md "Packaging"): a file:// page may read other local
 * files, a standard secure scheme is its own origin that can reach nothing
 * else. main.ts registers the scheme and answers it with `serveAppFile`;
 * this module holds the decision, pure apart from reading the file, so it is
 * tested without Electron: only files inside the built renderer folder, by
 * a path that stays inside it however it is spelt.
 */
import { readFileSync, statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { CONTENT_SECURITY_POLICY } from './security.js';

export const APP_SCHEME = 'kiosk';
export const APP_HOST = 'app';
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Privileges for protocol.registerSchemesAsPrivileged: an origin of its own, treated as secure, fetch allowed. */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true } as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ico': 'image/x-icon',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file inside `rootDir` that `url` names, or null. Refused: another
 * scheme or host; `..` in any spelling (`%2e%2e`, encoded slashes or
 * backslashes); NUL; absolute or drive paths; anything that resolves outside
 * the folder; folders. `/` is index.html; the query and hash are ignored.
 */
export function resolveAppFile(url: string, rootDir: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST || parsed.username !== '' || parsed.password !== '' || parsed.port !== '') return null;
  // Encoded separators and dots are never needed by our own page: refuse them rather than decode them.
  if (/%(2f|5c|2e|00)/i.test(parsed.pathname)) return null;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.includes('\\') || path.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const relativePath = path === '/' ? 'index.html' : path.replace(/^\/+/, '');
  if (relativePath === '' || isAbsolute(relativePath) || /^[a-zA-Z]:/.test(relativePath)) return null;
  const root = resolve(rootDir);
  const file = resolve(root, relativePath);
  const inside = relative(root, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || inside.split(sep).includes('..')) return null;
  try {
    if (!statSync(file).isFile()) return null;
  } catch {
    return null;
  }
  return file;
}

/** The answer to one kiosk:// request: the file with its type and the CSP, or 404. */
export function serveAppFile(url: string, rootDir: string): Response {
  const file = resolveAppFile(url, rootDir);
  if (file === null) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  return new Response(readFileSync(file), {
    status: 200,
    headers: { 'content-type': contentTypeOf(file), 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' },
  });
}
