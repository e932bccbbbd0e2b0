/**
 * The two modes the door rules read (docs/protocol.md "Door operations"): which way a gate scans and
 * whether the event lets a ticket in again. Apart from ./door.ts, which re-exports them, because the
 * check-in rules (./check-in-rules.ts) need them and ./door.ts needs the rules' types: a module of its
 * own keeps the two from importing each other (docs/architecture.md "Tools that keep the layers").
 */

/** Which way a kiosk scans (setup code `direction`; changeable by staff). */
export const GATE_DIRECTIONS = ['entry', 'exit'] as const;
export type GateDirection = (typeof GATE_DIRECTIONS)[number];

export const ENTRY_POLICIES = ['single', 'reentry'] as const;
export type EntryPolicy = (typeof ENTRY_POLICIES)[number];
