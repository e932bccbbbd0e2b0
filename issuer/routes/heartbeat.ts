/**
 * POST /api/v1/scanners/heartbeat (docs/protocol.md "Scanner heartbeat", a project extension): a scanner
 * says how it is (direction, queue, offline exposure) and gets its event's door settings back, so policy
 * changes reach kiosks without re-enrollment. Same Bearer and rate limit as check-in.
 */
import type { FastifyInstance } from 'fastify';
import type { HeartbeatRequest } from '../../protocol/door.js';
import { checkInRulesSchema } from '../../protocol/check-in-rules.js';
import { GATE_DIRECTIONS, OFFLINE_POLICY_KINDS } from '../../protocol/door.js';
import { KIOSK_ROLES, STAFF_ROLES } from '../../protocol/access.js';
import {
  KIOSK_CALLS,
  MAX_STAFF_ACTIONS_PER_HEARTBEAT,
  STAFF_ACTION_EVENTS,
  STAFF_ACTION_LIMITS,
  STAFF_VIAS,
  staffActionsProblem,
} from '../../protocol/staff-actions.js';
import { requireScanner } from '../auth.js';
import { errors, validationField } from '../error-catalogue.js';
import { PATHS } from '../services/discovery.js';
import { heartbeat } from '../services/door.js';
import type { RateLimitHook } from '../services/rate-limits.js';
import type { SqlDatabase } from '../store/sql.js';
import { errorResponses } from './schemas.js';

/** Counts per ticket type: at most 100 types, small non-negative integers. */
const countsByType = {
  type: 'object',
  maxProperties: 100,
  propertyNames: { maxLength: 200 },
  additionalProperties: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
} as const;

/** The largest clock offset a heartbeat may report: ten years, in ms (beyond it the kiosk's clock is not set at all). */
const MAX_CLOCK_OFFSET_MS = 10 * 366 * 24 * 3600_000;

const policy = {
  type: 'object',
  required: ['policy'],
  properties: { policy: { type: 'string', enum: [...OFFLINE_POLICY_KINDS] }, per_hour: { type: 'integer' } },
} as const;

/**
 * One staff record (docs/protocol.md "Scanner heartbeat"); protocol/staff-actions.ts staffActionProblem checks it
 * again, with the label rules for the name, before anything is written. Fields it does not know are not kept.
 */
const staffAction = {
  type: 'object',
  required: ['position', 'hash', 'at', 'event', 'staff_id', 'name', 'role', 'via'],
  properties: {
    position: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    at: { type: 'string', maxLength: STAFF_ACTION_LIMITS.at },
    event: { type: 'string', enum: [...STAFF_ACTION_EVENTS] },
    staff_id: { type: ['string', 'null'], maxLength: STAFF_ACTION_LIMITS.staff_id },
    name: { type: ['string', 'null'], maxLength: STAFF_ACTION_LIMITS.name * 2 },
    role: { type: 'string', enum: [...KIOSK_ROLES] },
    via: { type: ['string', 'null'], enum: [...STAFF_VIAS, null] },
    call: { type: 'string', enum: [...KIOSK_CALLS] },
    needs: { type: 'string', enum: [...STAFF_ROLES] },
    tid: { type: 'string', maxLength: STAFF_ACTION_LIMITS.tid },
  },
} as const;

/** 200 staff records of at most about 800 bytes each, with the rest of a heartbeat: the check-in limit (16 KiB) is too small. */
export const HEARTBEAT_BODY_LIMIT_BYTES = 256 * 1024;

const heartbeatRequestSchema = {
  type: 'object',
  required: ['scanner_id'],
  properties: {
    scanner_id: { type: 'string', minLength: 1, maxLength: 200 },
    direction: { type: 'string', enum: [...GATE_DIRECTIONS] },
    pending_scans: { type: 'integer', minimum: 0 },
    offline_exposure: countsByType,
    offline_last_hour: countsByType,
    log_head: {
      type: 'object',
      required: ['position', 'hash'],
      properties: {
        position: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
    },
    // docs/protocol.md "Scanner heartbeat": issuer time minus kiosk time.
    clock_offset_ms: { type: 'integer', minimum: -MAX_CLOCK_OFFSET_MS, maximum: MAX_CLOCK_OFFSET_MS },
    // docs/protocol.md "Scanner heartbeat": the kiosk's staff records not yet acknowledged.
    staff_actions: { type: 'array', maxItems: MAX_STAFF_ACTIONS_PER_HEARTBEAT, items: staffAction },
  },
} as const;

const heartbeatResponseSchema = {
  type: 'object',
  required: ['eid', 'entry_policy', 'capacity', 'occupancy', 'offline_policies', 'rights', 'role', 'server_time'],
  properties: {
    eid: { type: 'string' },
    entry_policy: { type: 'string' },
    capacity: { type: ['integer', 'null'] },
    occupancy: {
      type: 'object',
      required: ['inside', 'capacity', 'level'],
      properties: { inside: { type: 'integer' }, capacity: { type: ['integer', 'null'] }, level: { type: 'string' } },
    },
    offline_policies: {
      type: 'object',
      required: ['default', 'by_type'],
      properties: { default: policy, by_type: { type: 'object', additionalProperties: policy } },
    },
    rights: { type: 'object', required: ['annul'], properties: { annul: { type: 'boolean' } } },
    role: { type: 'string' },
    server_time: { type: 'string', format: 'date-time' },
    // docs/protocol.md "Check-in rules": the event's rules (no rules: an empty list), for the kiosk offline.
    check_in_rules: checkInRulesSchema,
    // docs/protocol.md "Check-out at a set time": present only when the event has the setting.
    exit_all_at: { type: 'string' },
    exit_all_time_zone: { type: 'string' },
    exit_all_since: { type: 'string' },
    // docs/protocol.md "Scanner heartbeat": the highest position of the request's staff records now stored.
    staff_actions_through: { type: 'integer' },
  },
} as const;

export default async function heartbeatRoute(
  app: FastifyInstance,
  options: { database: SqlDatabase; scannerRateLimit: RateLimitHook },
): Promise<void> {
  app.post(
    PATHS.heartbeat,
    {
      schema: {
        body: heartbeatRequestSchema,
        response: { 200: heartbeatResponseSchema, ...errorResponses(400, 401, 429, 500, 503) },
      },
      attachValidation: true,
      bodyLimit: HEARTBEAT_BODY_LIMIT_BYTES,
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request) => {
      if (request.validationError) throw errors.invalidField(validationField(request.validationError));
      const body = request.body as HeartbeatRequest;
      if (body.staff_actions !== undefined) {
        const problem = staffActionsProblem(body.staff_actions);
        if (problem !== null) throw errors.invalidField(problem.field, problem.problem);
      }
      return heartbeat(options.database, request.credential!, body);
    },
  );
}
