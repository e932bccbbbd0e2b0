/**
 * Shared route schemas: the protocol's resource schemas registered once on the
 * instance (app.addSchema), and the error responses every route declares.
 */
import type { FastifyInstance } from 'fastify';
import {
  checkInResponseSchema,
  discoveryDocumentSchema,
  enrollResponseSchema,
  errorEnvelopeSchema,
  ticketStatusSchema,
} from '../../protocol/schemas.js';

export function addProtocolSchemas(app: FastifyInstance): void {
  for (const schema of [errorEnvelopeSchema, discoveryDocumentSchema, enrollResponseSchema, checkInResponseSchema, ticketStatusSchema]) {
    app.addSchema(schema);
  }
}

export const ref = (id: string) => ({ $ref: `${id}#` });

/** Response schemas for the error statuses a route can answer (every one carries the ErrorEnvelope). */
export function errorResponses(...statuses: number[]): Record<number, { $ref: string }> {
  return Object.fromEntries(statuses.map((status) => [status, ref('ErrorEnvelope')]));
}
