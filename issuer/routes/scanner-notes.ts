/**
 * GET /api/v1/scanners/notes?since=CURSOR[&limit=N] (docs/protocol.md "Attention notes (project extension)"): the
 * scanner key's event's attention flags and check-in notes changed after its cursor, a page at a time, and every
 * type rule, so a kiosk answers offline as the issuer does online. Same Bearer and rate limit as the revocation
 * list; never changes state.
 */
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { NOTES_PAGE_MAX, notesPageSchema, notesQuerySchema } from '../../protocol/attention.js';
import { requireScanner } from '../auth.js';
import { errors, validationField } from '../error-catalogue.js';
import { notesPage } from '../services/attention-notes.js';
import { PATHS } from '../services/discovery.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import type { SqlDatabase } from '../store/sql.js';
import { errorResponses } from './schemas.js';

const { $id: _id, ...pageSchema } = notesPageSchema;

export default async function scannerNotesRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook },
): Promise<void> {
  app.get<{ Querystring: { since?: string; limit?: string } }>(
    PATHS.notes,
    {
      schema: {
        querystring: notesQuerySchema,
        response: { 200: pageSchema, ...errorResponses(400, 401, 429, 500, 503) },
      },
      attachValidation: true,
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request, reply) => {
      if (request.validationError) throw errors.invalidField(validationField(request.validationError));
      const { since, limit } = request.query;
      if (limit !== undefined && Number(limit) > NOTES_PAGE_MAX) throw errors.invalidField('limit', `is more than ${NOTES_PAGE_MAX}`);
      void reply.header('cache-control', 'no-store');
      const page = await notesPage(
        options.database.read,
        request.credential!,
        { ...(since === undefined ? {} : { since }), ...(limit === undefined ? {} : { limit: Number(limit) }) },
        new Date(),
      );
      // Serialised here: 10,000 rows of [tid, 0|1, note] go through JSON.stringify several times faster than through
      // the schema's serialiser, whose rows have no fixed item types (docs/benchmarks.md "Attention notes sync").
      const body = JSON.stringify(page);
      void reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
      // Notes are text that compresses well: gzip (Node's own zlib, no plugin) when the kiosk accepts it, so
      // 100,000 notes stay far under 5 MB on the wire (docs/benchmarks.md "Attention notes sync").
      if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(gzipSync(body));
      return reply.send(body);
    },
  );
}
