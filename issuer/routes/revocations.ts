/**
 * GET /api/v1/scanners/revocations?since=CURSOR[&limit=N] (docs/protocol.md "Revocation list", a project
 * extension): the scanner key's event's revoked tickets after its cursor, a page at a time, so kiosks refuse
 * them offline. Same Bearer and rate limit as check-in; never changes state.
 */
import type { FastifyInstance } from 'fastify';
import { REVOCATION_PAGE_MAX, revocationPageSchema, revocationQuerySchema } from '../../protocol/revocations.js';
import { requireScanner } from '../auth.js';
import { errors, validationField } from '../error-catalogue.js';
import { PATHS } from '../services/discovery.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import { revocationPage } from '../services/revocations.js';
import type { SqlDatabase } from '../store/sql.js';
import { errorResponses } from './schemas.js';

const { $id: _id, ...pageSchema } = revocationPageSchema;

export default async function revocationsRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook },
): Promise<void> {
  app.get<{ Querystring: { since?: string; limit?: string } }>(
    PATHS.revocations,
    {
      schema: {
        querystring: revocationQuerySchema,
        response: { 200: pageSchema, ...errorResponses(400, 401, 429, 500, 503) },
      },
      attachValidation: true,
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request, reply) => {
      if (request.validationError) throw errors.invalidField(validationField(request.validationError));
      const { since, limit } = request.query;
      if (limit !== undefined && Number(limit) > REVOCATION_PAGE_MAX)
        throw errors.invalidField('limit', `is more than ${REVOCATION_PAGE_MAX}`);
      void reply.header('cache-control', 'no-store');
      return revocationPage(
        options.database.read,
        request.credential!,
        { ...(since === undefined ? {} : { since }), ...(limit === undefined ? {} : { limit: Number(limit) }) },
        new Date(),
      );
    },
  );
}
