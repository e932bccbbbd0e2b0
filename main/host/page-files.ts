/**
 * Which file of the built kiosk page a request path names, for both hosts:
 * the Electron shell's kiosk:// scheme (main/electron/app-scheme.ts) and the
 * web host's static files (main/web-host/server.ts). One resolver, so both
 * refuse the same spellings (docs/kiosk.md "Packaging": only the built
 * screens are reachable). Pure apart from a stat of the file.
 */
import { statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The file inside `rootDir` that the URL path `pathname` (still
 * percent-encoded, without query or hash) names, or null. Refused: `..` in
 * any spelling (`%2e%2e`, encoded slashes or backslashes); NUL; absolute or
 * drive paths; anything that resolves outside the folder; folders; missing
 * files. `/` is index.html.
 */
export function resolvePageFile(pathname: string, rootDir: string): string | null {
  // Encoded separators and dots are never needed by our own page: refuse them rather than decode them.
  if (/%(2f|5c|2e|00)/i.test(pathname)) return null;
  let path: string;
  try {
    path = decodeURIComponent(pathname);
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
