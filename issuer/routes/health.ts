/**
 * GET /healthz and GET /readyz for load balancers and process supervisors
 * (docs/protocol.md "Health and readiness"; our extension, not the spec's).
 *
 * - No authentication and nothing secret: the answers name no path, key,
 *   issuer URL or database error.
 * - Not rate-limited like the scanner API: a probe costs less than a rate
 *   limit's own bookkeeping (a constant, or one indexed read).
 * - Kept out of the request log (`logLevel: 'warn'`): a load balancer asks
 *   every few seconds and would drown the check-ins there. A failed readiness
 *   read is still logged, as a warning.
 * - `Cache-Control: no-store`: a cached "ready" is a lie a moment later.
 */
import type { FastifyInstance } from 'fastify';
import { errors, sendApiError } from '../error-catalogue.js';
import { checkReadiness } from '../services/readiness.js';
import type { ShutdownState } from '../shutdown.js';
import type { SqlDatabase } from '../store/sql.js';
import { errorResponses } from './schemas.js';

export const HEALTH_PATHS = { liveness: '/healthz', readiness: '/readyz' } as const;

/** GET /healthz, 200: the process answers. */
export interface LivenessAnswer {
  status: 'ok';
}

/** GET /readyz, 200: this process takes traffic; `schema_version` lets an operator see every process runs on the migrated schema. */
export interface ReadinessAnswer {
  status: 'ready';
  schema_version: number;
}

const livenessSchema = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['ok'] } },
} as const;

const readinessSchema = {
  type: 'object',
  required: ['status', 'schema_version'],
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['ready'] }, schema_version: { type: 'integer', minimum: 1 } },
} as const;

const NO_STORE = 'no-store';

export default async function healthRoutes(
  app: FastifyInstance,
  options: { database: SqlDatabase; schemaVersion: number; shutdown: ShutdownState },
): Promise<void> {
  app.get(
    HEALTH_PATHS.liveness,
    { logLevel: 'warn', schema: { response: { 200: livenessSchema } } },
    async (_request, reply): Promise<LivenessAnswer> => {
      reply.header('cache-control', NO_STORE);
      return { status: 'ok' };
    },
  );

  app.get(
    HEALTH_PATHS.readiness,
    { logLevel: 'warn', schema: { response: { 200: readinessSchema, ...errorResponses(503) } } },
    async (request, reply) => {
      reply.header('cache-control', NO_STORE);
      // During graceful shutdown (issuer/shutdown.ts) in-flight check-ins finish, and the balancer must stop sending new ones.
      if (options.shutdown.isShuttingDown()) return sendApiError(reply, errors.notReady('shutting_down'));
      const readiness = await checkReadiness(options.database, options.schemaVersion);
      if (!readiness.ready) {
        request.log.warn({ reason: readiness.reason, err: readiness.cause }, 'not ready');
        return sendApiError(reply, errors.notReady(readiness.reason));
      }
      const answer: ReadinessAnswer = { status: 'ready', schema_version: readiness.schemaVersion };
      return answer;
    },
  );
}
