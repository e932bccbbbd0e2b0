/**
 * The admin dashboard page: GET /admin (and /admin/) and its built assets
 * under /admin/assets/, from dist/dashboard (`npm run build:dashboard`, part
 * of `npm run build`). Static and public: no data and no secret is in it; the
 * page asks the admin API (Bearer admin token) for everything.
 *
 * Served with a strict Content-Security-Policy: scripts and styles from the
 * issuer only (no inline script, no eval), images from the issuer or data:
 * (the setup QR), requests to the issuer only, never framed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors, sendApiError } from '../../error-catalogue.js';
import { errorResponses } from '../schemas.js';

export const ADMIN_PAGE_PATH = '/admin';

export const ADMIN_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Vite's hashed asset names: letters, digits, `-`, `_` and dots, never a leading dot or a path. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** dist/dashboard of this package, found from this module's location (source or dist), never the working directory. */
export function dashboardDistDir(from: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(from));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'dashboard');
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', ADMIN_PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin');
}

export default async function adminPageRoutes(app: FastifyInstance, options: { distDir?: string }): Promise<void> {
  const root = options.distDir ?? dashboardDistDir();
  const assetsDir = path.join(root, 'assets');
  const pageSchema = { response: { 200: { description: 'the dashboard page (HTML)', type: 'string' }, ...errorResponses(500) } };

  const sendPage = async (_request: unknown, reply: FastifyReply) => {
    let html: string;
    try {
      html = await fs.promises.readFile(path.join(root, 'index.html'), 'utf8');
    } catch {
      reply.log.error({ root }, 'the admin dashboard is not built');
      return sendApiError(reply, errors.internal());
    }
    // Revalidated every time: it names the hashed assets of the current build.
    return securityHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
  };
  app.get(ADMIN_PAGE_PATH, { schema: pageSchema }, sendPage);
  app.get(`${ADMIN_PAGE_PATH}/`, { schema: pageSchema }, sendPage);

  app.get<{ Params: { file: string } }>(
    `${ADMIN_PAGE_PATH}/assets/:file`,
    {
      schema: {
        params: { type: 'object', required: ['file'], properties: { file: { type: 'string', maxLength: 200 } } },
        response: { 200: { description: 'a built asset', type: 'string' }, ...errorResponses(400, 404, 500) },
      },
    },
    async (request, reply) => {
      const { file } = request.params;
      const type = CONTENT_TYPES[path.extname(file).toLowerCase()];
      if (!ASSET_NAME.test(file) || type === undefined) return sendApiError(reply, errors.routeNotFound('GET', request.url));
      const content = await fs.promises.readFile(path.join(assetsDir, file)).catch(() => null);
      if (content === null) return sendApiError(reply, errors.routeNotFound('GET', request.url));
      // Content-hashed names: a new build has new names, so the old ones can be cached for good.
      return securityHeaders(reply).header('cache-control', 'public, max-age=31536000, immutable').type(type).send(content);
    },
  );
}
