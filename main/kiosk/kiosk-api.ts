/**
 * What the kiosk core implements and the hosts expose: the page's bridge
 * type, KioskApi, and the state and answers that cross with it. Defined once,
 * with the page's types (renderer/kiosk-bridge-types.ts); named here for the
 * Node side (the core, the hosts, benchmarks), type-only.
 */
export type * from '../../renderer/kiosk-bridge-types.js';
