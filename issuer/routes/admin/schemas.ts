/**
 * JSON Schemas of the admin API (shapes in issuer/dashboard-api.ts). Declared on every
 * route for the request and for every status it answers, like the protocol
 * routes: fast-json-stringify sends exactly the declared fields.
 */
import { MAX_EVENT_CAPACITY } from '../../admin/validators.js';
import { MAX_HANDOUT_ITEMS } from '../../../protocol/handouts.js';
import { MAX_PARTY } from '../../../protocol/party.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const count = { type: 'integer', minimum: 0 } as const;

/** An answer object: every declared field is sent, no other (typed precisely, so the compiler can compare it with issuer/dashboard-api.ts). */
const object = <const P extends Record<string, unknown>>(properties: P) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties) as (keyof P & string)[], properties }) as const;

export const eventSummarySchema = object({
  eid: { type: 'string' },
  name: { type: 'string' },
  date: { type: 'string' },
  venue: { type: 'string' },
  ends_at: { type: 'string' },
});

export const sessionSchema = object({
  issuer: object({ name: { type: 'string' }, base_url: { type: 'string' } }),
  server_time: dateTime,
  events: { type: 'array', items: eventSummarySchema },
  rules: object({ online_window_seconds: count, late_scan_seconds: count, refresh_seconds: count }),
  setup_tls_cert_sha256: nullableString,
});

const scannerSchema = object({
  api_key_id: { type: 'string' },
  scanner_id: { type: 'string' },
  scanner_name: nullableString,
  scanner_platform: nullableString,
  gate_id: nullableString,
  enrolled_at: { type: 'string' },
  expires_at: { type: 'string' },
  revoked: { type: 'boolean' },
  last_contact_at: dateTime,
  online: { type: 'boolean' },
  scans: count,
});

const alertSchema = object({
  id: { type: 'integer' },
  kind: {
    type: 'string',
    enum: ['offline_double_admission', 'merged_double_admission', 'forged_signature', 'revoked_ticket', 'wrong_event'],
  },
  at: { type: 'string' },
  scanned_at: nullableString,
  tid: nullableString,
  holder_name: nullableString,
  ticket_type: nullableString,
  ticket_event_name: nullableString,
  gate_id: nullableString,
  scanner_id: nullableString,
  scanner_name: nullableString,
  api_key_id: nullableString,
  first_check_in: {
    anyOf: [{ type: 'null' }, object({ checked_in_at: { type: 'string' }, gate_id: nullableString, scanner: { type: 'string' } })],
  },
  delay_seconds: { type: ['integer', 'null'] },
});

const nullableCount = { type: ['integer', 'null'], minimum: 0 } as const;
const entryPolicy = { type: 'string', enum: ['single', 'reentry'] } as const;
const policyKind = { type: 'string', enum: ['online-only', 'offline', 'capped'] } as const;
const capacity = { type: ['integer', 'null'], minimum: 1 } as const;
/** Counters may dip below zero only through a database edited by hand; the schema does not hide that. */
const counter = { type: 'integer' } as const;

const gateOccupancySchema = object({ gate_id: nullableString, inside: counter, entries: counter, exits: counter });

export const occupancySchema = object({
  inside: counter,
  capacity,
  level: { type: 'string', enum: ['open', 'nearly_full', 'full'] },
  entries: counter,
  exits: counter,
  by_gate: { type: 'array', items: gateOccupancySchema },
});

export const offlinePolicyViewSchema = object({
  ticket_type: { type: 'string' },
  policy: policyKind,
  per_hour: nullableCount,
  own: { type: 'boolean' },
});

const kioskSchema = object({
  api_key_id: { type: 'string' },
  scanner_id: { type: 'string' },
  scanner_name: nullableString,
  gate_id: nullableString,
  direction: { type: ['string', 'null'], enum: ['entry', 'exit', null] },
  last_heartbeat_at: nullableString,
  pending_scans: nullableCount,
  clock_offset_ms: { type: ['integer', 'null'] },
  clock_off: { type: 'boolean' },
  exposure: {
    type: 'array',
    items: object({
      ticket_type: { type: 'string' },
      unsynced: count,
      last_hour: count,
      synced: count,
      policy: policyKind,
      per_hour: nullableCount,
      at_cap: { type: 'boolean' },
    }),
  },
});

/** A staff id with its badge holder's name and role when it is a badge of the event (docs/issuer.md "Admin dashboard"). */
const staffMemberOrNull = {
  anyOf: [
    { type: 'null' },
    object({
      staff_id: { type: 'string' },
      name: nullableString,
      role: { type: ['string', 'null'], enum: ['steward', 'supervisor', 'technician', null] },
    }),
  ],
} as const;

const annulmentSchema = object({
  id: { type: 'integer' },
  at: { type: 'string' },
  tid: { type: 'string' },
  holder_name: nullableString,
  ticket_type: nullableString,
  actor: { type: 'string' },
  reason: nullableString,
  annulled_by: staffMemberOrNull,
  admitted_by: staffMemberOrNull,
});

const countSeries = { type: 'array', items: count } as const;

export const arrivalsSchema = object({
  minutes: { type: 'array', items: dateTime },
  gates: {
    type: 'array',
    items: object({ gate_id: nullableString, entries: countSeries, exits: countSeries, total_entries: count, total_exits: count }),
  },
  totals: object({ entries: count, exits: count }),
  peak: { anyOf: [{ type: 'null' }, object({ minute: dateTime, entries: count })] },
  window_minutes: count,
  truncated: { type: 'boolean' },
});

export const overviewSchema = object({
  eid: { type: 'string' },
  generated_at: dateTime,
  totals: object({ issued: count, checked_in: count, revoked: count }),
  by_gate: { type: 'array', items: object({ gate_id: nullableString, checked_in: count }) },
  by_type: { type: 'array', items: object({ ticket_type: nullableString, issued: count, checked_in: count }) },
  scans: object({ last_minute: count, per_minute: { type: 'array', items: object({ minute: dateTime, scans: count }) } }),
  arrivals: arrivalsSchema,
  scanners: { type: 'array', items: scannerSchema },
  alerts: object({
    counts: object({
      offline_double_admission: count,
      merged_double_admission: count,
      forged_signature: count,
      revoked_ticket: count,
      wrong_event: count,
    }),
    recent: { type: 'array', items: alertSchema },
  }),
  door: object({
    entry_policy: entryPolicy,
    capacity,
    occupancy: occupancySchema,
    offline_policies: { type: 'array', items: offlinePolicyViewSchema },
    kiosks: { type: 'array', items: kioskSchema },
    // docs/protocol.md "Check-out at a set time": null when the event has none.
    exit_all: { anyOf: [object({ at: { type: 'string' }, time_zone: { type: 'string' } }), { type: 'null' }] },
  }),
  activity: object({ annulments: count, id_not_checked: count, recent: { type: 'array', items: annulmentSchema } }),
  complete: { type: 'boolean' },
});

/** docs/protocol.md "Party tickets (project extension)": a party ticket's size and counts; null for one person. */
const partySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['size', 'inside', 'admitted_total', 'remaining'],
  properties: { size: count, inside: count, admitted_total: count, remaining: count, refused: count },
} as const;

export const ticketViewSchema = object({
  tid: { type: 'string' },
  eid: { type: 'string' },
  event_name: { type: 'string' },
  status: { type: 'string', enum: ['valid', 'checked_in', 'revoked', 'expired'] },
  holder_name: nullableString,
  ticket_type: nullableString,
  issued_at: { type: 'string' },
  expires_at: dateTime,
  checked_in_at: nullableDateTime,
  checked_in_gate_id: nullableString,
  checked_in_by: nullableString,
  checked_in_staff: staffMemberOrNull,
  presence: { type: ['string', 'null'], enum: ['inside', 'outside', 'annulled', null] },
  revoked_at: nullableString,
  revoke_reason: nullableString,
  attention: { type: 'boolean' },
  note: nullableString,
  door_attention: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['required', 'notes'],
    properties: { required: { type: 'boolean' }, notes: { type: 'array', items: { type: 'string' } } },
  },
  // The status answer's `handouts` and `party` (protocol/handouts.ts, protocol/party.ts), null when absent there.
  handouts: {
    type: ['array', 'null'],
    items: object({
      item: { type: 'string' },
      count: { type: 'integer' },
      given: {
        type: 'array',
        items: object({ hid: { type: 'string' }, at: { type: 'string' }, gate: nullableString, scanner: { type: 'string' } }),
      },
    }),
  },
  party: partySchema,
});

/** docs/protocol.md "Attention notes (project extension)": the dashboard's note form. */
export const ticketAttentionBodySchema = {
  type: 'object',
  properties: { attention: { type: 'boolean' }, note: { type: ['string', 'null'], maxLength: 200 } },
} as const;

export const ticketAttentionResultSchema = object({ tid: { type: 'string' }, ticket: ticketViewSchema });

/**
 * docs/protocol.md "Attention notes (project extension)": a ticket type's rule from the dashboard, as
 * `event ticket-type set` (a field left out keeps its value; `note: null` removes the note).
 */
export const ticketTypeAttentionBodySchema = {
  type: 'object',
  required: ['ticket_type'],
  additionalProperties: false,
  properties: {
    ticket_type: { type: 'string', minLength: 1, maxLength: 80 },
    attention: { type: 'boolean' },
    note: { type: ['string', 'null'], maxLength: 200 },
  },
} as const;

/** The event's type rules, whole (`event ticket-type list`). */
export const ticketTypeRulesSchema = object({
  eid: { type: 'string' },
  types: {
    type: 'array',
    items: object({ ticket_type: { type: 'string' }, attention: { type: 'boolean' }, note: nullableString }),
  },
  handouts: {
    type: 'array',
    items: object({
      ticket_type: { type: 'string' },
      items: { type: 'array', items: object({ item: { type: 'string' }, count: { type: 'integer', minimum: 1 } }) },
    }),
  },
});

/** docs/issuer.md "Handouts": a type's items from the dashboard, each as `--handout` takes it; an empty list removes them. */
export const ticketTypeHandoutsBodySchema = {
  type: 'object',
  required: ['ticket_type', 'handouts'],
  additionalProperties: false,
  properties: {
    ticket_type: { type: 'string', minLength: 1, maxLength: 80 },
    handouts: { type: 'array', maxItems: MAX_HANDOUT_ITEMS, items: { type: 'string', maxLength: 100 } },
  },
} as const;

export const handoutCountsSchema = object({
  eid: { type: 'string' },
  items: { type: 'array', items: object({ item: { type: 'string' }, due: count, given: count, refused: count }) },
});

export const lookupSchema = object({
  query: { type: 'string' },
  tickets: { type: 'array', items: ticketViewSchema },
  truncated: { type: 'boolean' },
});

export const revokeTicketResultSchema = object({
  tid: { type: 'string' },
  status: { type: 'string', enum: ['revoked'] },
  ticket: ticketViewSchema,
});

export const setupCodeResultSchema = object({
  setup_qr: { type: 'string' },
  token_id: { type: 'string' },
  eid: { type: 'string' },
  event_name: { type: 'string' },
  gate_id: nullableString,
  expires_at: dateTime,
  qr_image: { type: 'string' },
  tls_cert_sha256: nullableString,
});

export const annulCheckInResultSchema = object({
  tid: { type: 'string' },
  status: { type: 'string', enum: ['annulled'] },
  checked_in_at: { type: 'string' },
  annulled_at: { type: 'string' },
  already: { type: 'boolean' },
  ticket: ticketViewSchema,
});

export const manualCheckInResultSchema = object({
  tid: { type: 'string' },
  status: { type: 'string' },
  party: partySchema,
  ticket: ticketViewSchema,
});

/** docs/issuer.md "Admin dashboard": a reason, and for a party ticket how many of it come in (absent: one person). */
export const manualCheckInBodySchema = {
  type: 'object',
  required: ['reason'],
  properties: {
    reason: { type: 'string', minLength: 1, maxLength: 200 },
    people: { type: 'integer', minimum: 1, maximum: MAX_PARTY },
  },
} as const;

export const doorSettingsResultSchema = object({ eid: { type: 'string' }, entry_policy: entryPolicy, capacity });

export const offlinePolicyResultSchema = object({
  eid: { type: 'string' },
  offline_policies: { type: 'array', items: offlinePolicyViewSchema },
});

export const revokeSetupResultSchema = object({ token_id: { type: 'string' }, status: { type: 'string', enum: ['revoked'] } });
export const revokeScannerResultSchema = object({ api_key_id: { type: 'string' }, status: { type: 'string', enum: ['revoked'] } });

/** A staff badge as listed (docs/issuer.md "Staff roles and badges"; services/staff-badges.ts StaffBadgeView). */
export const staffBadgeSchema = object({
  sid: { type: 'string' },
  eid: { type: 'string' },
  name: { type: 'string' },
  role: { type: 'string' },
  not_before: { type: 'string' },
  expires_at: { type: 'string' },
  issued_at: { type: 'string' },
  revoked_at: nullableString,
  revoked_reason: nullableString,
});
export const staffBadgeListSchema = object({ badges: { type: 'array', items: staffBadgeSchema } });
/** A badge just issued: the listed fields, and its code with its image (docs/issuer.md "Admin dashboard"). */
export const staffBadgeIssuedSchema = object({
  ...staffBadgeSchema.properties,
  event_name: { type: 'string' },
  badge_qr: { type: 'string' },
  qr_image: { type: 'string' },
});

/** A kiosk's staff record (docs/issuer.md "Admin dashboard"), as issuer/dashboard-api.ts StaffActionView. */
export const staffActionSchema = object({
  at: { type: 'string' },
  received_at: { type: 'string' },
  scanner_id: { type: 'string' },
  scanner_name: nullableString,
  gate_id: nullableString,
  position: count,
  event: { type: 'string' },
  staff_id: nullableString,
  name: nullableString,
  role: { type: 'string' },
  via: nullableString,
  call: nullableString,
  needs: nullableString,
  tid: nullableString,
});
export const staffActionListSchema = object({
  actions: { type: 'array', items: staffActionSchema },
  limit: count,
  truncated: { type: 'boolean' },
});
/** `?limit=N`: 1 to 200 records (default 200). */
export const staffActionQuerySchema = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200 } },
} as const;

/** A webhook endpoint and its health, never its secret (docs/issuer.md "Webhooks"). */
export const webhookEndpointSchema = object({
  endpoint_id: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  eid: nullableString,
  created_at: { type: 'string' },
  disabled_at: nullableString,
  pending: count,
  delivered: count,
  dead: count,
  last_delivered_at: nullableString,
  last_error: nullableString,
  last_status: { type: ['integer', 'null'] },
});
export const webhookListSchema = object({ endpoints: { type: 'array', items: webhookEndpointSchema } });

/** Path parameters: ids are short printable strings. */
export const idParam = (name: string) =>
  ({ type: 'object', required: [name], properties: { [name]: { type: 'string', minLength: 1, maxLength: 200 } } }) as const;

/** Request bodies: unknown extra fields are ignored, as in the protocol (docs/protocol.md "Errors outside the spec's tables"). */
export const revokeTicketBodySchema = { type: 'object', properties: { reason: { type: 'string', maxLength: 200 } } } as const;
export const setupCodeBodySchema = { type: 'object', properties: { gate_id: { type: 'string', maxLength: 80 } } } as const;
export const emptyBodySchema = { type: 'object' } as const;
/**
 * A new staff badge. Only types and generous lengths here: the role, the label rules on the name and the times are
 * checked by the operation the CLI uses too (issuer/admin/staff-badges.ts parseBadgeRequest), so that each refusal
 * says what is wrong as `staff badge issue` does.
 */
export const staffBadgeIssueBodySchema = {
  type: 'object',
  required: ['name', 'role'],
  properties: {
    name: { type: 'string', maxLength: 400 },
    role: { type: 'string', maxLength: 40 },
    not_before: { type: 'string', maxLength: 64 },
    expires_at: { type: 'string', maxLength: 64 },
  },
} as const;
/** The reason is required: an annulment is kept with who made it and why (docs/protocol.md "Door operations"). */
export const annulBodySchema = {
  type: 'object',
  required: ['reason'],
  properties: { reason: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;
export const doorSettingsBodySchema = {
  type: 'object',
  properties: {
    entry_policy: { type: 'string', enum: ['single', 'reentry'] },
    capacity: { type: ['integer', 'null'], minimum: 1, maximum: MAX_EVENT_CAPACITY },
  },
} as const;
export const offlinePolicyBodySchema = {
  type: 'object',
  required: ['ticket_type', 'policy'],
  properties: {
    ticket_type: { type: 'string', maxLength: 80 },
    policy: { type: 'string', enum: ['online-only', 'offline', 'capped'] },
    per_hour: { type: 'integer', minimum: 1, maximum: 9_999_999 },
  },
} as const;
export const lookupQuerySchema = {
  type: 'object',
  required: ['q'],
  properties: { q: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;
