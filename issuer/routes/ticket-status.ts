/** GET /api/v1/tickets/{tid}/status (docs/protocol.md "Endpoints", "Status"). Never changes state. */
import type { FastifyInstance } from 'fastify';
import { requireScanner } from '../auth.js';
import { errors } from '../error-catalogue.js';
import { findCheckin } from '../store/checkins.js';
import type { SqlDatabase } from '../store/sql.js';
import { findTicket } from '../store/tickets.js';
import { PATHS } from '../services/discovery.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import { ticketStatus } from '../services/ticket-status.js';
import { attentionForTicket } from '../services/attention-notes.js';
import { idCheckForTicket } from '../services/id-checks.js';
import { partyOfTicket } from '../services/party.js';
import { handoutsForTicket } from '../services/handouts.js';
import { errorResponses, ref } from './schemas.js';

export default async function ticketStatusRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook },
): Promise<void> {
  app.get<{ Params: { tid: string } }>(
    PATHS.status,
    {
      schema: {
        params: { type: 'object', required: ['tid'], properties: { tid: { type: 'string', minLength: 1, maxLength: 200 } } },
        response: { 200: ref('TicketStatus'), ...errorResponses(400, 401, 403, 404, 429, 500, 503) },
      },
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request) => {
      const credential = request.credential!;
      const ticket = await findTicket(options.database.read, request.params.tid);
      if (!ticket) throw errors.ticketNotFound();
      if (ticket.eid !== credential.eid) throw errors.forbiddenEvent();
      const attention = await attentionForTicket(options.database.read, ticket);
      const status = ticketStatus(ticket, await findCheckin(options.database.read, ticket.tid), Math.floor(Date.now() / 1000), attention);
      // docs/protocol.md "ID checks (project extension)": a kiosk without the synced list asks before it checks in.
      const idCheck = await idCheckForTicket(options.database.read, ticket);
      // docs/protocol.md "Party tickets (project extension)": a party's size and counts, so a kiosk can ask how many.
      const party = await partyOfTicket(options.database.read, ticket.tid);
      // docs/protocol.md "Handouts (project extension)": the items with what was given, when and where.
      const handouts = await handoutsForTicket(options.database.read, ticket);
      return {
        ...status,
        ...(idCheck === null ? {} : { id_check: idCheck }),
        ...(party === null ? {} : { party }),
        ...(handouts === null ? {} : { handouts }),
      };
    },
  );
}
