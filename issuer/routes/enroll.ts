/** POST /api/v1/scanners/enroll (docs/protocol.md "Endpoints", "Enrollment"). */
import type { FastifyInstance } from 'fastify';
import { enrollRequestSchema } from '../../protocol/schemas.js';
import { SUPPORTED_VERSIONS } from '../../protocol/types.js';
import { errors, validationField } from '../error-catalogue.js';
import type { SqlDatabase } from '../store/sql.js';
import { PATHS } from '../services/discovery.js';
import { enroll, type EnrollInput } from '../services/enrollment.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import { errorResponses, ref } from './schemas.js';

const { $id: _id, ...enrollBodySchema } = enrollRequestSchema;

export default async function enrollRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; ipRateLimit: RateLimitHook; keysDir: string },
): Promise<void> {
  app.post(
    PATHS.enroll,
    {
      schema: { body: enrollBodySchema, response: { 200: ref('EnrollResponse'), ...errorResponses(400, 403, 429, 500, 503) } },
      // The handler orders the checks itself: the protocol version first, then field errors.
      attachValidation: true,
      onRequest: [options.ipRateLimit],
    },
    async (request) => {
      const body = request.body as Record<string, unknown> | null;
      const version = body?.protocol_version;
      if (typeof version === 'number' && !SUPPORTED_VERSIONS.includes(version)) throw errors.versionUnsupported(version);
      if (request.validationError) {
        const field = validationField(request.validationError);
        // A missing or ill-typed token is a malformed token (docs/protocol.md "Enrollment").
        throw field === 'token' ? errors.invalidToken() : errors.invalidField(field);
      }
      const input = body as unknown as EnrollInput;
      const result = await enroll(options.database, input, new Date(), { keysDir: options.keysDir });
      if (!result.ok) throw result.error;
      // api_key_id is safe to log; the api_key never is.
      request.log.info({ api_key_id: result.apiKeyId, scanner_id: input.scanner_id, eid: result.response.scope.eid }, 'scanner enrolled');
      return result.response;
    },
  );
}
