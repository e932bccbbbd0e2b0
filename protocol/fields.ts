/**
 * Typed field readers for untrusted JSON objects (QR payloads). Each failure
 * names the field, so a decoder can report exactly what is wrong.
 */
export type FieldProblem = { field: string; problem: 'missing' | 'wrong_type' };

export class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly problem: FieldProblem['problem'],
  ) {
    super(problem === 'missing' ? `field "${field}" is missing` : `field "${field}" has the wrong type`);
  }
}

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function present(obj: JsonObject, field: string): unknown {
  const value = obj[field];
  if (value === undefined || value === null) throw new FieldError(field, 'missing');
  return value;
}

export function requireString(obj: JsonObject, field: string): string {
  const value = present(obj, field);
  if (typeof value !== 'string') throw new FieldError(field, 'wrong_type');
  if (value.length === 0) throw new FieldError(field, 'missing');
  return value;
}

export function optionalString(obj: JsonObject, field: string): string | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new FieldError(field, 'wrong_type');
  return value;
}

export function requireInteger(obj: JsonObject, field: string): number {
  const value = present(obj, field);
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new FieldError(field, 'wrong_type');
  return value;
}

export function requireObject(obj: JsonObject, field: string): JsonObject {
  const value = present(obj, field);
  if (!isJsonObject(value)) throw new FieldError(field, 'wrong_type');
  return value;
}

/** ISO 8601 date-time with a time zone designator, e.g. 2026-05-01T19:30:00Z. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function isIsoDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

export function requireDateTime(obj: JsonObject, field: string): string {
  const value = requireString(obj, field);
  if (!isIsoDateTime(value)) throw new FieldError(field, 'wrong_type');
  return value;
}
