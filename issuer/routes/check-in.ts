/**
 * POST /api/v1/tickets/check-in (docs/protocol.md "Endpoints",
 * "Precedence"). The Bearer is checked in onRequest, before the
 * body is read (precedence 1 before 2); the rest is services/check-in.ts.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { checkInRequestSchema } from '../../protocol/schemas.js';
import { requireScanner } from '../auth.js';
import { errors, validationField } from '../error-catalogue.js';
import { labelCharacterProblem } from '../labels.js';
import { checkIn, recordMalformedCheckIn } from '../services/check-in.js';
import type { CheckInBody } from '../services/check-in-decision.js';
import { PATHS } from '../services/discovery.js';
import type { SqlDatabase } from '../store/sql.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import { errorResponses, ref } from './schemas.js';

// The key may come in the Idempotency-Key header instead of the body (docs/protocol.md "Precedence"),
// so the body schema does not require it; services/check-in-decision.ts judges the key.
const { $id: _id, ...requestSchema } = checkInRequestSchema;
const checkInBodySchema = { ...requestSchema, required: requestSchema.required.filter((field) => field !== 'idempotency_key') };

export default async function checkInRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook; keysDir?: string },
): Promise<void> {
  app.post(
    PATHS.checkIn,
    {
      schema: {
        body: checkInBodySchema,
        headers: { type: 'object', properties: { 'idempotency-key': { type: 'string' } } },
        response: { 200: ref('CheckInResponse'), ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
      },
      // Malformed attempts are audited too, so the handler sees the validation error.
      attachValidation: true,
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request, reply: FastifyReply) => {
      const credential = request.credential!;
      if (request.validationError) {
        const field = validationField(request.validationError);
        await recordMalformedCheckIn(options.database, credential, request.body, field);
        throw errors.invalidField(field);
      }
      // docs/protocol.md "Check-in request: who at the door": a staff id obeys the label rules.
      const staffId = (request.body as CheckInBody).staff_id;
      if (staffId !== undefined && labelCharacterProblem(staffId) !== null) {
        await recordMalformedCheckIn(options.database, credential, request.body, 'staff_id');
        throw errors.invalidField('staff_id', `${labelCharacterProblem(staffId)}: a staff id is shown and exported`);
      }
      const headerKey = request.headers['idempotency-key'] as string | undefined;
      const result = await checkIn(options.database, credential, request.body as CheckInBody, headerKey, options.keysDir);
      if (!result.ok) throw result.error;
      // Stored answers are sent as stored: a replay is byte for byte the first answer.
      return reply.code(result.httpStatus).type('application/json; charset=utf-8').send(result.responseBody);
    },
  );
}
