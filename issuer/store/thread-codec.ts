/**
 * What crosses between `serve`'s main thread and its SQLite database thread
 * (sqlite-thread.ts). The structured clone keeps plain data but not classes:
 * an ApiError in a job's answer (a refused check-in) or thrown by a job, an
 * AdminError, or SQLite's error code (which decides between 503 and 500:
 * error-catalogue.ts isDatabaseUnavailable) would arrive as anonymous objects.
 * They are encoded as tagged plain data on the thread and rebuilt here.
 */
import { AdminError, ApiError, type AdminErrorCode } from '../error-catalogue.js';
import type { ErrorCode } from '../../protocol/error-envelope.js';

type EncodedError =
  | {
      $error: 'api';
      code: ErrorCode;
      message: string;
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
      statusCode: number;
    }
  | { $error: 'admin'; code: AdminErrorCode; message: string }
  | { $error: 'plain'; name: string; message: string; code?: string; stack?: string };

export function encodeError(error: unknown): EncodedError {
  if (error instanceof ApiError) {
    return {
      $error: 'api',
      code: error.code,
      message: error.message,
      statusCode: error.statusCode,
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(error.headers === undefined ? {} : { headers: error.headers }),
    };
  }
  if (error instanceof AdminError) return { $error: 'admin', code: error.code, message: error.message };
  const { name, message, code, stack } = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown };
  return {
    $error: 'plain',
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof stack === 'string' ? { stack } : {}),
  };
}

export function decodeError(encoded: EncodedError): Error {
  switch (encoded.$error) {
    case 'api':
      return new ApiError(encoded.code, encoded.message, encoded.details, encoded.headers, encoded.statusCode);
    case 'admin':
      return new AdminError(encoded.code, encoded.message);
    case 'plain': {
      const error = new Error(encoded.message) as Error & { code?: string };
      error.name = encoded.name;
      if (encoded.code !== undefined) error.code = encoded.code;
      if (encoded.stack !== undefined) error.stack = encoded.stack;
      return error;
    }
  }
}

const isEncodedError = (value: unknown): value is EncodedError =>
  typeof value === 'object' && value !== null && typeof (value as { $error?: unknown }).$error === 'string';

/** A job's answer for the trip: errors inside it (one level of object fields, as in `{ ok: false, error }`) encoded. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Error) return encodeError(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const fields = Object.entries(value as Record<string, unknown>);
  if (!fields.some(([, field]) => field instanceof Error)) return value;
  return Object.fromEntries(fields.map(([key, field]) => [key, field instanceof Error ? encodeError(field) : field]));
}

export function decodeValue(value: unknown): unknown {
  if (isEncodedError(value)) return decodeError(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const fields = Object.entries(value as Record<string, unknown>);
  if (!fields.some(([, field]) => isEncodedError(field))) return value;
  return Object.fromEntries(fields.map(([key, field]) => [key, isEncodedError(field) ? decodeError(field) : field]));
}
