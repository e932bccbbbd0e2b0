/**
 * Event and ticket IDs: ULIDs (spec "Ticket QR payload": ULID recommended).
 * Monotonic, so IDs made within one millisecond still sort in issue order.
 */
import { monotonicFactory } from 'ulid';

export type IdFactory = () => string;

export const newIdFactory = (): IdFactory => {
  const next = monotonicFactory();
  return () => next();
};
