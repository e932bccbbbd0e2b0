/**
 * Event and ticket IDs: ULIDs (docs/protocol.md "Identifiers").
 * Monotonic, so IDs made within one millisecond still sort in issue order.
 */
import { monotonicFactory } from 'ulid';

export type IdFactory = () => string;

export const newIdFactory = (): IdFactory => {
  const next = monotonicFactory();
  return () => next();
};
