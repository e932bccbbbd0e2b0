/** The protocol's resource types (docs/protocol.md), shared by the issuer and the kiosk. */

export const PROTOCOL_VERSION = 1;
export const SUPPORTED_VERSIONS: readonly number[] = [1];

/** ISO 8601 UTC date-time string. */
export type IsoDateTime = string;

export interface PublicKey {
  kid: string;
  alg: 'Ed25519';
  public_key: string;
  valid_from: IsoDateTime;
  valid_until?: IsoDateTime | null;
}

export interface IssuerEndpoints {
  check_in: string;
  status: string;
  scanner_enroll: string;
}

export interface DiscoveryDocument {
  protocol_version: number;
  issuer: string;
  name: string;
  keys: PublicKey[];
  endpoints: IssuerEndpoints;
  supported_versions: number[];
}

export interface EnrollRequest {
  token: string;
  scanner_id: string;
  scanner_name?: string;
  scanner_platform?: string;
  /** docs/protocol.md "Enrollment": requested protocol version, default 1. */
  protocol_version?: number;
  /** Project extension (docs/protocol.md "Enrollment"): the kiosk's own Ed25519 public key, base64url of 32 bytes. */
  lan_public_key?: string;
}

export interface EnrollScope {
  eid: string;
  event_name: string;
  event_date: IsoDateTime;
  gate_id?: string | null;
  expires_at: IsoDateTime;
}

export interface EnrollResponse {
  api_key: string;
  api_key_id: string;
  scope: EnrollScope;
  issuer: { name: string; iss: string };
  /**
   * Project extension (docs/protocol.md "Enrollment"): the kiosk's LAN certificate (a tkc1. code,
   * protocol/kiosk-certificate.ts) for the `lan_public_key` it sent, signed by the issuer's signing key.
   */
  lan_certificate?: string;
}

export interface CheckInRequest {
  tid: string;
  eid: string;
  scanned_at: IsoDateTime;
  scanner_id: string;
  gate_id?: string;
  idempotency_key: string;
  /** docs/protocol.md "Reporting a failed signature": how a scanner reports a failed signature. */
  signature_status?: 'valid' | 'invalid';
}

export const CHECK_IN_STATUSES = ['valid', 'already_used', 'revoked', 'wrong_event', 'expired', 'invalid_signature'] as const;
export type CheckInStatus = (typeof CHECK_IN_STATUSES)[number];

export interface CheckInTicket {
  tid: string;
  eid: string;
  holder_name?: string;
  ticket_type?: string;
  checked_in_at?: IsoDateTime | null;
}

export interface CheckInResponse {
  status: CheckInStatus;
  ticket: CheckInTicket;
}

export const TICKET_STATES = ['valid', 'checked_in', 'revoked', 'expired'] as const;
export type TicketState = (typeof TICKET_STATES)[number];

export interface TicketStatus {
  tid: string;
  eid: string;
  status: TicketState;
  holder_name?: string;
  ticket_type?: string;
  issued_at: IsoDateTime;
  checked_in_at?: IsoDateTime | null;
}

/** Ticket QR payload (the JSON inside `tkt1.`). */
export interface TicketPayload {
  v: number;
  iss: string;
  kid: string;
  tid: string;
  eid: string;
  ev: { name: string; date: IsoDateTime; venue: string };
  tt?: string;
  hn?: string;
  iat: number;
  exp: number;
}

/** Setup QR payload (the JSON inside `tsetup1.`). */
export interface SetupPayload {
  v: number;
  iss: string;
  enroll_url: string;
  token: string;
  eid: string;
  event_name?: string;
  gate_id?: string;
  expires_at: IsoDateTime;
  /**
   * Project extension (docs/protocol.md "Self-signed issuers"): the SHA-256
   * fingerprint of the issuer's self-signed TLS certificate, uppercase hex
   * pairs joined by ':'. Present only when the issuer is not using a
   * CA-signed certificate; other scanners ignore it as an unknown field.
   */
  tls_cert_sha256?: string;
  /**
   * Project extension: the kiosk must have a staff PIN. An enrolled kiosk
   * asks for a new PIN at once and scans no ticket until one is set
   * (docs/kiosk.md "Staff PIN"). Only `true` is meaningful; absent means no
   * requirement. Other scanners ignore it as an unknown field.
   */
  pin_required?: true;
  /**
   * Project extension (docs/protocol.md "Door operations"): which way the
   * kiosk scans. Absent means entry. Other scanners ignore it as an unknown field.
   */
  direction?: 'entry' | 'exit';
}
