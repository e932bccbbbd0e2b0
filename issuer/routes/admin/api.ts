/**
 * The admin dashboard's API, /admin/api/* (docs/issuer.md "Admin dashboard").
 * Every route, and any unknown path under the prefix, first passes
 * requireAdmin (./auth.ts). Answers are never cached (`no-store`): setup
 * codes carry an enrollment token, lookups carry names.
 *
 * The actions are the admin CLI's own code (issuer/services/admin-actions.ts,
 * scanner-setup.ts, checkins-export.ts, door.ts), and their writes are named
 * jobs that go through the group commit like check-ins. Their failures are AdminErrors, answered
 * with the ErrorEnvelope code the catalogue gives them (issuer/error-catalogue.ts).
 */
import { labelCharacterProblem } from '../../labels.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requireEvent } from '../../admin/issuer-context.js';
import { newIdFactory } from '../../admin/ids.js';
import { qrSvgDataUrl } from '../../admin/qr.js';
import { API_BADGE_FIELDS, issueStaffBadge, parseBadgeRequest } from '../../admin/staff-badges.js';
import { AdminError, errors, sendApiError } from '../../error-catalogue.js';
import { revokeScannerKeyWrite, revokeTicketWrite } from '../../services/admin-actions.js';
import { setTicketTypeAttentionWrite, updateTicketAttentionWrite } from '../../services/attention-notes.js';
import { noteProblem } from '../../../protocol/attention.js';
import { typeRulesOf, type AttentionChange } from '../../store/attention-notes.js';
import type { AdminTokenSource } from '../../services/admin-credential.js';
import { exportCsv, exportRows } from '../../services/checkins-export.js';
import {
  LATE_SCAN_MS,
  ONLINE_WINDOW_MS,
  REFRESH_MS,
  ticketViewOf,
  ticketViews,
  type DashboardAggregator,
} from '../../services/dashboard.js';
import { parseHandoutOptions } from '../../admin/validators.js';
import { setTicketTypeHandoutsWrite } from '../../services/handouts.js';
import { handoutCounts, handoutsDue, typeHandoutListsOf } from '../../store/handouts.js';
import { annulCheckIn, setOfflinePolicyWrite, updateEventDoorWrite } from '../../services/door.js';
import { manualEntryWrite } from '../../services/manual-entry.js';
import { createScannerSetupWrite, revokeSetupWrite, type SetupRequest } from '../../services/scanner-setup.js';
import { revokeStaffBadgeWrite, staffBadgeView, type StaffBadgeView } from '../../services/staff-badges.js';
import { staffBadgesOf } from '../../store/staff-badges.js';
import { staffActionsOf, type StaffActionListRow } from '../../store/staff-actions.js';
import { endpointHealth } from '../../store/webhooks.js';
import { lookupTickets } from '../../store/dashboard.js';
import type { SqlDatabase } from '../../store/sql.js';
import { listEvents } from '../../store/events.js';
import { getIssuerInfo } from '../../store/issuer-info.js';
import { errorResponses } from '../schemas.js';
import type { FailureCounter } from '../../services/failed-authentications.js';
import { requireAdmin } from './auth.js';
import {
  annulBodySchema,
  annulCheckInResultSchema,
  doorSettingsBodySchema,
  doorSettingsResultSchema,
  emptyBodySchema,
  offlinePolicyBodySchema,
  offlinePolicyResultSchema,
  idParam,
  lookupQuerySchema,
  lookupSchema,
  manualCheckInBodySchema,
  manualCheckInResultSchema,
  overviewSchema,
  revokeScannerResultSchema,
  revokeSetupResultSchema,
  staffBadgeIssueBodySchema,
  staffBadgeIssuedSchema,
  staffBadgeListSchema,
  staffActionListSchema,
  staffActionQuerySchema,
  webhookListSchema,
  staffBadgeSchema,
  revokeTicketBodySchema,
  revokeTicketResultSchema,
  sessionSchema,
  setupCodeBodySchema,
  setupCodeResultSchema,
  ticketAttentionBodySchema,
  ticketAttentionResultSchema,
  ticketTypeAttentionBodySchema,
  ticketTypeRulesSchema,
  ticketTypeHandoutsBodySchema,
  handoutCountsSchema,
} from './schemas.js';
import type {
  AnnulCheckInRequest,
  AnnulCheckInResult,
  DoorSettingsRequest,
  DoorSettingsResult,
  EventOverview,
  OfflinePolicyRequest,
  OfflinePolicyResult,
  LookupResult,
  ManualCheckInRequest,
  ManualCheckInResult,
  RevokeScannerResult,
  RevokeSetupResult,
  RevokeTicketRequest,
  RevokeTicketResult,
  SessionInfo,
  SetupCodeRequest,
  SetupCodeResult,
  StaffActionList,
  StaffActionView,
  StaffBadgeIssued,
  StaffBadgeIssueRequest,
  TicketAttentionRequest,
  TicketAttentionResult,
  TicketTypeAttentionRequest,
  TicketTypeRules,
  TicketTypeHandoutsRequest,
  HandoutCounts,
  WebhookList,
} from '../../dashboard-api.js';

export const ADMIN_API_PREFIX = '/admin/api';
/** Lookup answers at most this many tickets. */
export const LOOKUP_LIMIT = 20;
/** The staff actions list shows at most the newest this many records. */
export const STAFF_ACTIONS_LIMIT = 200;

export interface AdminApiOptions {
  database: SqlDatabase;
  tokenSource: AdminTokenSource;
  failureLimiter: FailureCounter;
  aggregator: DashboardAggregator;
  /** The fingerprint setup codes made here pin: the self-signed certificate this server presents, else null. */
  setupCertPin: string | null;
  /** The data dir's signing keys: staff badges made here are signed with the active one, as `staff badge issue` signs. */
  keysDir: string;
}

/** Runs an admin operation; its AdminError becomes the ErrorEnvelope answer the catalogue gives its code (ADMIN_FAILURES). */
async function adminAction<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof AdminError ? error.toApiError() : error;
  }
}

/** 401 and 429 come from the credential check; 500 from anything unexpected; 503 when the database cannot take the request. */
const guarded = (...more: number[]) => errorResponses(401, 429, 500, 503, ...more);

export default async function adminApiRoutes(app: FastifyInstance, options: AdminApiOptions): Promise<void> {
  const { database, aggregator } = options;
  const db = database.read;
  const nextId = newIdFactory();
  app.addHook('onRequest', requireAdmin(options.tokenSource, options.failureLimiter));
  app.addHook('onSend', async (_request, reply: FastifyReply, payload) => {
    reply.header('cache-control', 'no-store');
    return payload;
  });
  // Unknown admin paths too are answered only to the admin (the hook above runs first).
  app.setNotFoundHandler((request, reply) =>
    sendApiError(reply, errors.routeNotFound(request.method, request.url.split('?')[0] ?? request.url)),
  );

  app.get('/session', { schema: { response: { 200: sessionSchema, ...guarded() } } }, async (): Promise<SessionInfo> => {
    const issuer = await getIssuerInfo(db);
    return {
      issuer: { name: issuer.name, base_url: issuer.base_url },
      server_time: new Date().toISOString(),
      events: (await listEvents(db)).map(({ eid, name, date, venue, ends_at }) => ({ eid, name, date, venue, ends_at })),
      rules: { online_window_seconds: ONLINE_WINDOW_MS / 1000, late_scan_seconds: LATE_SCAN_MS / 1000, refresh_seconds: REFRESH_MS / 1000 },
      setup_tls_cert_sha256: options.setupCertPin,
    };
  });

  app.get<{ Params: { eid: string } }>(
    '/events/:eid/overview',
    { schema: { params: idParam('eid'), response: { 200: overviewSchema, ...guarded(400, 404) } } },
    async (request): Promise<EventOverview> => {
      await adminAction(() => requireEvent(db, request.params.eid));
      await aggregator.refresh();
      return aggregator.overview(request.params.eid);
    },
  );

  app.get<{ Params: { eid: string }; Querystring: { q: string } }>(
    '/events/:eid/tickets',
    { schema: { params: idParam('eid'), querystring: lookupQuerySchema, response: { 200: lookupSchema, ...guarded(400, 404) } } },
    async (request): Promise<LookupResult> => {
      await adminAction(() => requireEvent(db, request.params.eid));
      const query = request.query.q.trim();
      if (query === '') throw errors.invalidField('q', 'must not be empty');
      const rows = await lookupTickets(db, request.params.eid, query, LOOKUP_LIMIT + 1);
      return { query, tickets: await ticketViews(db, rows.slice(0, LOOKUP_LIMIT), Date.now()), truncated: rows.length > LOOKUP_LIMIT };
    },
  );

  app.post<{ Params: { tid: string }; Body: RevokeTicketRequest }>(
    '/tickets/:tid/revoke',
    { schema: { params: idParam('tid'), body: revokeTicketBodySchema, response: { 200: revokeTicketResultSchema, ...guarded(400, 404) } } },
    async (request): Promise<RevokeTicketResult> => {
      const { tid } = request.params;
      const reason = request.body.reason?.trim() || null;
      if (reason !== null) refuseBadLabel('reason', reason);
      const result = await adminAction(() => database.write(revokeTicketWrite({ tid, reason, now: new Date().toISOString() })));
      request.log.info({ tid }, 'ticket revoked from the admin dashboard');
      return { ...result, ticket: await ticketViewOf(db, tid) };
    },
  );

  // docs/protocol.md "Attention notes (project extension)": the lookup card's note form, as `ticket update`.
  app.post<{ Params: { tid: string }; Body: TicketAttentionRequest }>(
    '/tickets/:tid/attention',
    {
      schema: {
        params: idParam('tid'),
        body: ticketAttentionBodySchema,
        response: { 200: ticketAttentionResultSchema, ...guarded(400, 404) },
      },
    },
    async (request): Promise<TicketAttentionResult> => {
      const { tid } = request.params;
      const change = attentionChangeOf(request.body);
      await adminAction(() => database.write(updateTicketAttentionWrite({ tid, change })));
      // The note itself stays out of the log, as names do (docs/issuer.md "Threats handled").
      request.log.info({ tid }, 'attention flag or note changed from the admin dashboard');
      return { tid, ticket: await ticketViewOf(db, tid) };
    },
  );

  // docs/protocol.md "Attention notes (project extension)": the ticket types' rules, as `event ticket-type list`.
  app.get<{ Params: { eid: string } }>(
    '/events/:eid/ticket-types',
    { schema: { params: idParam('eid'), response: { 200: ticketTypeRulesSchema, ...guarded(400, 404) } } },
    async (request): Promise<TicketTypeRules> => {
      const { eid } = request.params;
      await adminAction(() => requireEvent(db, eid));
      return { eid, types: await typeRulesOf(db, eid), handouts: await typeHandoutListsOf(db, eid) };
    },
  );

  // The same, set from the dashboard's ticket types panel, by `event ticket-type set`'s operation.
  app.post<{ Params: { eid: string }; Body: TicketTypeAttentionRequest }>(
    '/events/:eid/ticket-types/attention',
    {
      schema: {
        params: idParam('eid'),
        body: ticketTypeAttentionBodySchema,
        response: { 200: ticketTypeRulesSchema, ...guarded(400, 404) },
      },
    },
    async (request): Promise<TicketTypeRules> => {
      const { eid } = request.params;
      const ticketType = ticketTypeOf(request.body);
      const change = attentionChangeOf(request.body);
      const types = await adminAction(() =>
        database.write(setTicketTypeAttentionWrite({ eid, ticketType, change, now: new Date().toISOString() })),
      );
      request.log.info({ eid, ticket_type: ticketType }, 'ticket type attention flag or note changed from the admin dashboard');
      return { eid, types, handouts: await typeHandoutListsOf(db, eid) };
    },
  );

  // docs/issuer.md "Handouts": a type's items from the dashboard's ticket types panel, by `event ticket-type set
  // --handout`'s parsing and operation (the label rules, a count of 1 or more, at most 10 items).
  app.post<{ Params: { eid: string }; Body: TicketTypeHandoutsRequest }>(
    '/events/:eid/ticket-types/handouts',
    {
      schema: {
        params: idParam('eid'),
        body: ticketTypeHandoutsBodySchema,
        response: { 200: ticketTypeRulesSchema, ...guarded(400, 404) },
      },
    },
    async (request): Promise<TicketTypeRules> => {
      const { eid } = request.params;
      const ticketType = ticketTypeOf(request.body);
      const handouts = await adminAction(() => {
        const items = parseHandoutOptions(
          request.body.handouts.map((text) => text.trim()).filter((text) => text !== ''),
          'handouts',
          1,
        );
        return database.write(setTicketTypeHandoutsWrite({ eid, ticketType, items, now: new Date().toISOString() }));
      });
      request.log.info({ eid, ticket_type: ticketType }, 'ticket type handouts changed from the admin dashboard');
      return { eid, types: await typeRulesOf(db, eid), handouts };
    },
  );

  // docs/issuer.md "Handouts": per item, due, given and refused (`handouts counts`), for the dashboard's panel.
  app.get<{ Params: { eid: string } }>(
    '/events/:eid/handouts',
    { schema: { params: idParam('eid'), response: { 200: handoutCountsSchema, ...guarded(400, 404) } } },
    async (request): Promise<HandoutCounts> => {
      const { eid } = request.params;
      await adminAction(() => requireEvent(db, eid));
      const due = await handoutsDue(db, eid);
      const recorded = new Map((await handoutCounts(db, eid)).map((row) => [row.item, row]));
      const names = [...new Set([...due.keys(), ...recorded.keys()])].sort();
      return {
        eid,
        items: names.map((item) => ({
          item,
          due: due.get(item) ?? 0,
          given: recorded.get(item)?.given ?? 0,
          refused: recorded.get(item)?.refused ?? 0,
        })),
      };
    },
  );

  app.post<{ Params: { tid: string }; Body: AnnulCheckInRequest }>(
    '/tickets/:tid/annul',
    { schema: { params: idParam('tid'), body: annulBodySchema, response: { 200: annulCheckInResultSchema, ...guarded(400, 404) } } },
    async (request): Promise<AnnulCheckInResult> => {
      const { tid } = request.params;
      const reason = request.body.reason.trim();
      if (reason !== '') refuseBadLabel('reason', reason);
      // annulCheckIn refuses an empty reason (INVALID_REASON) and a ticket without a check-in (NOT_CHECKED_IN), both 400.
      const result = await adminAction(() => annulCheckIn(database, tid, reason, 'dashboard'));
      request.log.info({ tid, already: result.already }, 'check-in annulled from the admin dashboard');
      return { ...result, ticket: await ticketViewOf(db, tid) };
    },
  );

  // docs/issuer.md "Admin dashboard": the same entry as a kiosk's with `manual_reason` (docs/protocol.md "Ticket search").
  app.post<{ Params: { tid: string }; Body: ManualCheckInRequest }>(
    '/tickets/:tid/check-in',
    {
      schema: { params: idParam('tid'), body: manualCheckInBodySchema, response: { 200: manualCheckInResultSchema, ...guarded(400, 404) } },
    },
    async (request): Promise<ManualCheckInResult> => {
      const { tid } = request.params;
      const { people } = request.body;
      const reason = request.body.reason.trim();
      if (reason !== '') refuseBadLabel('reason', reason);
      const answer = await adminAction(() => {
        if (reason === '') throw new AdminError('INVALID_REASON', 'give a reason of 1-200 characters');
        return database.write(manualEntryWrite({ tid, reason, people, now: new Date().toISOString() }));
      });
      request.log.info({ tid, status: answer.status, people }, 'manual check-in from the admin dashboard');
      return { tid, status: answer.status, party: answer.party ?? null, ticket: await ticketViewOf(db, tid) };
    },
  );

  app.post<{ Params: { eid: string }; Body: DoorSettingsRequest }>(
    '/events/:eid/door',
    {
      schema: { params: idParam('eid'), body: doorSettingsBodySchema, response: { 200: doorSettingsResultSchema, ...guarded(400, 404) } },
    },
    async (request): Promise<DoorSettingsResult> => {
      const { entry_policy: entryPolicy, capacity } = request.body;
      if (entryPolicy === undefined && capacity === undefined) throw errors.invalidField('body', 'give entry_policy and/or capacity');
      const change: Parameters<typeof updateEventDoorWrite>[0] = { eid: request.params.eid };
      if (entryPolicy !== undefined) change.entryPolicy = entryPolicy;
      if (capacity !== undefined) change.capacity = capacity;
      const event = await adminAction(() => database.write(updateEventDoorWrite(change)));
      request.log.info(
        { eid: event.eid, entry_policy: event.entry_policy, capacity: event.capacity },
        'door settings changed from the admin dashboard',
      );
      return { eid: event.eid, entry_policy: event.entry_policy, capacity: event.capacity };
    },
  );

  app.post<{ Params: { eid: string }; Body: OfflinePolicyRequest }>(
    '/events/:eid/offline-policies',
    {
      schema: { params: idParam('eid'), body: offlinePolicyBodySchema, response: { 200: offlinePolicyResultSchema, ...guarded(400, 404) } },
    },
    async (request): Promise<OfflinePolicyResult> => {
      const { eid } = request.params;
      const { policy, per_hour: perHour } = request.body;
      const ticketType = request.body.ticket_type.trim();
      if (ticketType !== '') refuseBadLabel('ticket_type', ticketType);
      if ((policy === 'capped') !== (perHour !== undefined))
        throw errors.invalidField('per_hour', 'is required for capped, and only for capped');
      await adminAction(() =>
        database.write(
          setOfflinePolicyWrite({
            eid,
            ticketType,
            policy: policy === 'capped' ? { policy, per_hour: perHour! } : { policy },
            now: new Date().toISOString(),
          }),
        ),
      );
      request.log.info({ eid, ticket_type: ticketType, policy, per_hour: perHour }, 'offline policy set from the admin dashboard');
      await aggregator.refresh(); // the event's ticket types, as counted so far
      return { eid, offline_policies: (await aggregator.door(eid)).offline_policies };
    },
  );

  app.post<{ Params: { eid: string }; Body: SetupCodeRequest }>(
    '/events/:eid/setup-codes',
    { schema: { params: idParam('eid'), body: setupCodeBodySchema, response: { 200: setupCodeResultSchema, ...guarded(400, 404) } } },
    async (request): Promise<SetupCodeResult> => {
      const event = await adminAction(() => requireEvent(db, request.params.eid));
      const gate = request.body.gate_id?.trim();
      if (gate) refuseBadLabel('gate_id', gate);
      const setup: SetupRequest = {};
      if (gate) setup.gateId = gate;
      if (options.setupCertPin !== null) setup.tlsCertSha256 = options.setupCertPin;
      const baseUrl = (await getIssuerInfo(db)).base_url;
      const result = await adminAction(() =>
        database.write(createScannerSetupWrite({ baseUrl, event, request: setup, now: new Date().toISOString() })),
      );
      // The token_id is safe to log; the setup code holds the token and never is.
      request.log.info({ token_id: result.token_id, eid: event.eid, gate_id: result.gate_id }, 'setup code made from the admin dashboard');
      return { ...result, event_name: event.name, qr_image: await qrSvgDataUrl(result.setup_qr), tls_cert_sha256: options.setupCertPin };
    },
  );

  app.post<{ Params: { token_id: string } }>(
    '/setup-codes/:token_id/revoke',
    { schema: { params: idParam('token_id'), body: emptyBodySchema, response: { 200: revokeSetupResultSchema, ...guarded(400, 404) } } },
    async (request): Promise<RevokeSetupResult> =>
      adminAction(() => database.write(revokeSetupWrite({ tokenId: request.params.token_id, now: new Date().toISOString() }))),
  );

  app.post<{ Params: { api_key_id: string } }>(
    '/scanners/:api_key_id/revoke',
    {
      schema: { params: idParam('api_key_id'), body: emptyBodySchema, response: { 200: revokeScannerResultSchema, ...guarded(400, 404) } },
    },
    async (request): Promise<RevokeScannerResult> => {
      const result = await adminAction(() =>
        database.write(revokeScannerKeyWrite({ apiKeyId: request.params.api_key_id, now: new Date().toISOString() })),
      );
      request.log.info({ api_key_id: result.api_key_id }, 'scanner key revoked from the admin dashboard');
      return result;
    },
  );

  // docs/issuer.md "Webhooks": each endpoint's health (`webhook list`), for every event; the secret is not a field.
  app.get('/webhooks', { schema: { response: { 200: webhookListSchema, ...guarded() } } }, async (): Promise<WebhookList> => ({
    endpoints: await endpointHealth(db),
  }));

  // docs/issuer.md "Staff roles and badges": the event's badges, and their revocation (`staff badge list|revoke`).
  app.get<{ Params: { eid: string } }>(
    '/events/:eid/staff-badges',
    { schema: { params: idParam('eid'), response: { 200: staffBadgeListSchema, ...guarded(400, 404) } } },
    async (request): Promise<{ badges: StaffBadgeView[] }> => {
      await adminAction(() => requireEvent(db, request.params.eid));
      return { badges: (await staffBadgesOf(db, request.params.eid)).map(staffBadgeView) };
    },
  );

  // docs/issuer.md "Admin dashboard": the kiosks' staff records their heartbeats carried, newest first.
  app.get<{ Params: { eid: string }; Querystring: { limit?: number } }>(
    '/events/:eid/staff-actions',
    {
      schema: {
        params: idParam('eid'),
        querystring: staffActionQuerySchema,
        response: { 200: staffActionListSchema, ...guarded(400, 404) },
      },
    },
    async (request): Promise<StaffActionList> => {
      await adminAction(() => requireEvent(db, request.params.eid));
      const limit = request.query.limit ?? STAFF_ACTIONS_LIMIT;
      const rows = await staffActionsOf(db, request.params.eid, limit + 1);
      return { actions: rows.slice(0, limit).map(staffActionView), limit, truncated: rows.length > limit };
    },
  );

  // docs/issuer.md "Admin dashboard": a new badge, as `staff badge issue`, by the same operation (issuer/admin/staff-badges.ts).
  app.post<{ Params: { eid: string }; Body: StaffBadgeIssueRequest }>(
    '/events/:eid/staff-badges',
    {
      schema: {
        params: idParam('eid'),
        body: staffBadgeIssueBodySchema,
        response: { 200: staffBadgeIssuedSchema, ...guarded(400, 404) },
      },
    },
    async (request): Promise<StaffBadgeIssued> => {
      const { name, role, not_before: notBefore, expires_at: expires } = request.body;
      const event = await adminAction(() => requireEvent(db, request.params.eid));
      const row = await adminAction(async () =>
        issueStaffBadge(
          { database, keysDir: options.keysDir, baseUrl: (await getIssuerInfo(db)).base_url },
          event,
          parseBadgeRequest({ name, role, notBefore, expires }, API_BADGE_FIELDS),
          nextId,
          new Date(),
          API_BADGE_FIELDS,
        ),
      );
      // The sid and role are safe to log; the name stays out, as holders' names do (docs/issuer.md "Threats handled").
      request.log.info({ sid: row.sid, eid: event.eid, role: row.role }, 'staff badge issued from the admin dashboard');
      return { ...staffBadgeView(row), event_name: event.name, badge_qr: row.qr, qr_image: await qrSvgDataUrl(row.qr) };
    },
  );

  app.post<{ Params: { sid: string }; Body: { reason?: string } }>(
    '/staff-badges/:sid/revoke',
    { schema: { params: idParam('sid'), body: revokeTicketBodySchema, response: { 200: staffBadgeSchema, ...guarded(400, 404) } } },
    async (request): Promise<StaffBadgeView> => {
      const reason = request.body.reason?.trim() || null;
      if (reason !== null) refuseBadLabel('reason', reason);
      const result = await adminAction(() =>
        database.write(revokeStaffBadgeWrite({ sid: request.params.sid, reason, now: new Date().toISOString() })),
      );
      request.log.info({ sid: result.sid }, 'staff badge revoked from the admin dashboard');
      return result;
    },
  );

  app.get<{ Params: { eid: string } }>(
    '/events/:eid/checkins.csv',
    {
      schema: {
        params: idParam('eid'),
        response: { 200: { description: 'CSV, the columns of ticket-issuer checkins export', type: 'string' }, ...guarded(400, 404) },
      },
    },
    async (request, reply) => {
      const event = await adminAction(() => requireEvent(db, request.params.eid));
      const csv = exportCsv(await exportRows(db, event.eid));
      const filename = `checkins-${event.eid.replace(/[^A-Za-z0-9_-]/g, '_')}.csv`;
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(csv);
    },
  );
}

function staffActionView(row: StaffActionListRow): StaffActionView {
  const { at, received_at, scanner_id, scanner_name, gate_id, position, event, staff_id, name, role, via, call, needs, tid } = row;
  return { at, received_at, scanner_id, scanner_name, gate_id, position, event, staff_id, name, role, via, call, needs, tid };
}

/** Labels from the dashboard obey the CLI's rule (issuer/labels.ts): 400 with the field and the character named. */
/**
 * The change a note form asks for (a ticket's or a type's), by the label rules (protocol/attention.ts
 * noteProblem): an empty note is no note, the form's way of removing one; nothing to change is a 400.
 */
function attentionChangeOf(body: { attention?: boolean; note?: string | null }): AttentionChange {
  const change: AttentionChange = {};
  if (body.attention !== undefined) change.attention = body.attention;
  if (body.note !== undefined) {
    const note = body.note === null ? '' : body.note.trim();
    if (note !== '') {
      const problem = noteProblem(note);
      if (problem !== null) throw errors.invalidField('note', problem);
    }
    change.note = note === '' ? null : note;
  }
  if (Object.keys(change).length === 0) throw errors.invalidField('body', 'give attention and/or note');
  return change;
}

/** A body's type name, trimmed, by the label rules of every type name (protocol/labels.ts), as `--type` is checked. */
function ticketTypeOf(body: { ticket_type: string }): string {
  const ticketType = body.ticket_type.trim();
  if (ticketType === '') throw errors.invalidField('ticket_type', 'is empty');
  refuseBadLabel('ticket_type', ticketType);
  return ticketType;
}

function refuseBadLabel(field: string, value: string): void {
  const problem = labelCharacterProblem(value);
  if (problem !== null) throw errors.invalidField(field, problem);
}
