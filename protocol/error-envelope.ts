/** The ErrorEnvelope every non-2xx answer carries, and its catalogue of codes (docs/protocol.md "Errors"): one code, one HTTP status. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_TOKEN: 400,
  PROTOCOL_VERSION_UNSUPPORTED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  TOKEN_REVOKED: 403,
  NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  RATE_LIMITED: 429,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export interface ErrorEnvelope {
  error: ErrorBody;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
