/**
 * JSON Schemas (draft-07, as Fastify/Ajv use them) for every resource of the
 * spec. Request schemas allow unknown extra fields (docs/protocol.md
 * "Errors outside the spec's tables"); response schemas are what the issuer emits.
 */
import { attentionSchema } from './attention.js';
import { idCheckSchema } from './id-check.js';
import { MAX_PARTY, partyStateSchema } from './party.js';
import { handoutsSchema } from './handouts.js';
import { ruleRefusalSchema } from './check-in-rules.js';
import { ERROR_CODES } from './error-envelope.js';
import { DOOR_STATUSES, MAX_REASON_LENGTH, SCAN_ACTIONS } from './door.js';
import { CHECK_IN_STATUSES, TICKET_STATES } from './types.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;

export const publicKeySchema = {
  $id: 'PublicKey',
  type: 'object',
  required: ['kid', 'alg', 'public_key', 'valid_from'],
  properties: {
    kid: { type: 'string', pattern: '^[0-9a-f]{8}$' },
    alg: { type: 'string', enum: ['Ed25519'] },
    public_key: { type: 'string' },
    valid_from: dateTime,
    valid_until: nullableDateTime,
  },
} as const;

export const discoveryDocumentSchema = {
  $id: 'DiscoveryDocument',
  type: 'object',
  required: ['protocol_version', 'issuer', 'name', 'keys', 'endpoints', 'supported_versions'],
  properties: {
    protocol_version: { type: 'integer' },
    issuer: { type: 'string' },
    name: { type: 'string' },
    keys: { type: 'array', items: publicKeySchema },
    endpoints: {
      type: 'object',
      required: ['check_in', 'status', 'scanner_enroll'],
      properties: {
        check_in: { type: 'string' },
        status: { type: 'string' },
        scanner_enroll: { type: 'string' },
        // docs/protocol.md "Scanner heartbeat": an extra field, ignored by spec scanners.
        scanner_heartbeat: { type: 'string' },
        // docs/protocol.md "Revocation list": an extra field too.
        scanner_revocations: { type: 'string' },
        // docs/protocol.md "Attention notes (project extension)": an extra field too.
        scanner_notes: { type: 'string' },
        // docs/protocol.md "Handouts (project extension)": an extra field too.
        ticket_handouts: { type: 'string' },
      },
    },
    supported_versions: { type: 'array', items: { type: 'integer' } },
  },
} as const;

/** The longest scanner name or platform an enrollment carries (and an import brings). */
export const MAX_SCANNER_TEXT_LENGTH = 200;

export const enrollRequestSchema = {
  $id: 'EnrollRequest',
  type: 'object',
  required: ['token', 'scanner_id'],
  properties: {
    token: nonEmpty,
    scanner_id: nonEmpty,
    scanner_name: { type: 'string', maxLength: MAX_SCANNER_TEXT_LENGTH },
    scanner_platform: { type: 'string', maxLength: MAX_SCANNER_TEXT_LENGTH },
    protocol_version: { type: 'integer' },
    // Project extension (docs/protocol.md "Enrollment"): the kiosk's own Ed25519 public key, base64url of 32 bytes.
    lan_public_key: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
  },
} as const;

export const enrollResponseSchema = {
  $id: 'EnrollResponse',
  type: 'object',
  required: ['api_key', 'api_key_id', 'scope', 'issuer'],
  properties: {
    api_key: { type: 'string' },
    api_key_id: { type: 'string' },
    scope: {
      type: 'object',
      required: ['eid', 'event_name', 'event_date', 'expires_at'],
      properties: {
        eid: { type: 'string' },
        event_name: { type: 'string' },
        event_date: dateTime,
        gate_id: { type: ['string', 'null'] },
        expires_at: dateTime,
      },
    },
    issuer: {
      type: 'object',
      required: ['name', 'iss'],
      properties: { name: { type: 'string' }, iss: { type: 'string' } },
    },
    // Project extension (docs/protocol.md "Enrollment"): the kiosk's LAN certificate, a tkc1. code.
    lan_certificate: { type: 'string' },
  },
} as const;

export const checkInRequestSchema = {
  $id: 'CheckInRequest',
  type: 'object',
  required: ['tid', 'eid', 'scanned_at', 'scanner_id', 'idempotency_key'],
  properties: {
    tid: nonEmpty,
    eid: nonEmpty,
    scanned_at: dateTime,
    scanner_id: nonEmpty,
    gate_id: { type: 'string' },
    idempotency_key: { type: 'string' },
    signature_status: { type: 'string', enum: ['valid', 'invalid'] },
    // docs/protocol.md "Door operations": the extension's optional fields.
    action: { type: 'string', enum: [...SCAN_ACTIONS] },
    admitted_offline: { type: 'boolean' },
    reason: { type: 'string', maxLength: MAX_REASON_LENGTH },
    // docs/protocol.md "Check-in request: who at the door": a staff id (the label rules) or a staff badge.
    staff_id: { type: 'string', minLength: 1, maxLength: 80 },
    staff_badge: { type: 'string', minLength: 1, maxLength: 4096 },
    // docs/protocol.md "Ticket search": an entry made by hand from a search result, and why (a supervisor's).
    manual_reason: { type: 'string', maxLength: MAX_REASON_LENGTH },
    // docs/protocol.md "ID checks (project extension)": the steward checked the holder's ID before this entry.
    id_checked: { type: 'boolean' },
    // docs/protocol.md "Party tickets (project extension)": people of a party ticket in (or out) with this scan.
    people: { type: 'integer', minimum: 1, maximum: MAX_PARTY },
  },
} as const;

export const checkInTicketSchema = {
  type: 'object',
  required: ['tid', 'eid'],
  properties: {
    tid: { type: 'string' },
    eid: { type: 'string' },
    holder_name: { type: 'string' },
    ticket_type: { type: 'string' },
    checked_in_at: nullableDateTime,
    presence: { type: ['string', 'null'], enum: ['inside', 'outside', 'annulled', null] },
  },
} as const;

/** The spec's statuses, and the door extension's (sent only to a request that set `action`). */
export const checkInResponseSchema = {
  $id: 'CheckInResponse',
  type: 'object',
  required: ['status', 'ticket'],
  properties: {
    status: { type: 'string', enum: [...CHECK_IN_STATUSES, ...DOOR_STATUSES] },
    ticket: checkInTicketSchema,
    occupancy: {
      type: 'object',
      required: ['inside', 'capacity'],
      properties: { inside: { type: 'integer' }, capacity: { type: ['integer', 'null'] } },
    },
    // docs/protocol.md "Check-in rules": only in a `rule_refused` answer.
    rule: ruleRefusalSchema,
    // docs/protocol.md "Annulment receipt": only in an `annulled` answer, when the issuer holds its signing key.
    annulment_receipt: { type: 'string' },
    // docs/protocol.md "Attention notes (project extension)": only when a flag or a note applies.
    attention: attentionSchema,
    // docs/protocol.md "ID checks (project extension)": only when the ticket's type asks for an ID check.
    id_check: idCheckSchema,
    // docs/protocol.md "Party tickets (project extension)": only for a ticket that admits more than one person.
    party: partyStateSchema,
    // docs/protocol.md "Handouts (project extension)": the ticket's items with what was given, when and where.
    handouts: handoutsSchema,
  },
} as const;

export const ticketStatusSchema = {
  $id: 'TicketStatus',
  type: 'object',
  required: ['tid', 'eid', 'status', 'issued_at'],
  properties: {
    tid: { type: 'string' },
    eid: { type: 'string' },
    status: { type: 'string', enum: [...TICKET_STATES] },
    holder_name: { type: 'string' },
    ticket_type: { type: 'string' },
    issued_at: dateTime,
    checked_in_at: nullableDateTime,
    // docs/protocol.md "Door operations": only for a ticket scanned out or annulled.
    presence: { type: 'string', enum: ['outside', 'annulled'] },
    // docs/protocol.md "Attention notes (project extension)": only when a flag or a note applies.
    attention: attentionSchema,
    // docs/protocol.md "ID checks (project extension)": only when the ticket's type asks for an ID check.
    id_check: idCheckSchema,
    // docs/protocol.md "Party tickets (project extension)": only for a ticket that admits more than one person.
    party: partyStateSchema,
    // docs/protocol.md "Handouts (project extension)": the ticket's items with what was given, when and where.
    handouts: handoutsSchema,
  },
} as const;

export const errorEnvelopeSchema = {
  $id: 'ErrorEnvelope',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: [...ERROR_CODES] },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
      },
    },
  },
} as const;
