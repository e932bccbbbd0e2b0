/**
 * POST /api/v1/tickets/handouts (docs/protocol.md "Handouts (project extension)"): a kiosk's record of one handout,
 * idempotent by the kiosk's `handout_id` as a check-in is by its key. A refusal (`not_listed`, `already_given` with
 * when and where) is a 200 answer, as a check-in's `already_used` is; errors are the spec's. services/handouts.ts.
 */
import type { FastifyInstance } from 'fastify';
import { mayCall } from '../../protocol/access.js';
import { handoutAnswerSchema, handoutItemProblem, handoutRequestSchema, type HandoutRequest } from '../../protocol/handouts.js';
import { requireScanner } from '../auth.js';
import { errors, validationField } from '../error-catalogue.js';
import { labelCharacterProblem } from '../labels.js';
import { PATHS } from '../services/discovery.js';
import { recordHandout } from '../services/handouts.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import type { SqlDatabase } from '../store/sql.js';
import { errorResponses } from './schemas.js';

export default async function handoutsRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook },
): Promise<void> {
  app.post<{ Body: HandoutRequest }>(
    PATHS.handouts,
    {
      schema: {
        body: handoutRequestSchema,
        response: { 200: handoutAnswerSchema, ...errorResponses(400, 401, 403, 404, 409, 429, 500, 503) },
      },
      attachValidation: true,
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request) => {
      if (request.validationError) throw errors.invalidField(validationField(request.validationError));
      const credential = request.credential!;
      if (!mayCall(credential.role, 'issuer.handout')) throw errors.forbiddenHandout();
      const body = request.body;
      const itemProblem = handoutItemProblem(body.item);
      if (itemProblem !== null) throw errors.invalidField('item', itemProblem);
      for (const field of ['gate_id', 'staff_id'] as const) {
        const value = body[field];
        if (value !== undefined && labelCharacterProblem(value) !== null) throw errors.invalidField(field, labelCharacterProblem(value)!);
      }
      const result = await recordHandout(options.database, credential, body);
      if (!result.ok) throw result.error;
      return result.answer;
    },
  );
}
