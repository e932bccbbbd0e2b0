/** GET /api/v1/tickets/search?q= (docs/protocol.md "Ticket search", a project extension). Never changes state. */
import type { FastifyInstance } from 'fastify';
import { attentionSchema } from '../../protocol/attention.js';
import { handoutsSchema } from '../../protocol/handouts.js';
import { partyStateSchema } from '../../protocol/party.js';
import { MAX_SEARCH_QUERY_LENGTH } from '../../protocol/search-name.js';
import { requireScanner } from '../auth.js';
import { PATHS } from '../services/discovery.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import { ticketSearch } from '../services/ticket-search.js';
import type { SqlDatabase } from '../store/sql.js';
import { errorResponses } from './schemas.js';

const nullableString = { type: ['string', 'null'] } as const;

const answerSchema = {
  type: 'object',
  required: ['results', 'more'],
  properties: {
    more: { type: 'boolean' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tid', 'short_id', 'holder_name', 'ticket_type', 'status', 'presence', 'checked_in_at'],
        properties: {
          tid: { type: 'string' },
          short_id: { type: 'string' },
          holder_name: nullableString,
          ticket_type: nullableString,
          status: { type: 'string', enum: ['valid', 'checked_in', 'revoked', 'expired'] },
          presence: { type: ['string', 'null'], enum: ['inside', 'outside', 'annulled', null] },
          checked_in_at: nullableString,
          // Present only when a flag or a note applies (docs/protocol.md "Attention notes (project extension)").
          attention: attentionSchema,
          // Present only for a ticket with items, and for a ticket of more than one person: the status answer's
          // shapes (docs/protocol.md "Handouts (project extension)", "Party tickets (project extension)").
          handouts: handoutsSchema,
          party: partyStateSchema,
        },
      },
    },
  },
} as const;

export default async function ticketSearchRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook },
): Promise<void> {
  app.get<{ Querystring: { q: string } }>(
    PATHS.search,
    {
      schema: {
        querystring: {
          type: 'object',
          required: ['q'],
          properties: { q: { type: 'string', minLength: 1, maxLength: MAX_SEARCH_QUERY_LENGTH } },
        },
        response: { 200: answerSchema, ...errorResponses(400, 401, 403, 429, 500, 503) },
      },
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request) => {
      const credential = request.credential!;
      return ticketSearch(options.database.read, credential, request.query.q, Math.floor(Date.now() / 1000));
    },
  );
}
