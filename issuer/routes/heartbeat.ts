/**
 * POST /api/v1/scanners/heartbeat (docs/protocol.md "Scanner heartbeat", a project extension): a scanner
 * says how it is (direction, queue, offline exposure) and gets its event's door settings back, so policy
 * changes reach kiosks without re-enrollment. Same Bearer and rate limit as check-in.
 */
import type { FastifyInstance } from 'fastify';
import type { HeartbeatRequest } from '../../protocol/door.js';
import { checkInRulesSchema } from '../../protocol/check-in-rules.js';
import { GATE_DIRECTIONS, OFFLINE_POLICY_KINDS } from '../../protocol/door.js';
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
      onRequest: [requireScanner(options.database.read), options.scannerRateLimit],
    },
    async (request) => {
      if (request.validationError) throw errors.invalidField(validationField(request.validationError));
      return heartbeat(options.database, request.credential!, request.body as HeartbeatRequest);
    },
  );
}
