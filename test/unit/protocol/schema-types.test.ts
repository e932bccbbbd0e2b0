// The protocol's JSON Schemas (protocol/schemas.ts, what Fastify validates and
// serialises) and its TypeScript types (protocol/types.ts, what the code
// compiles against) are written twice, on purpose (docs/architecture.md
// "Schemas and types"). These assertions make the compiler hold them to each
// other: `npm run typecheck`, the first step of `npm test`, fails on any drift.
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  checkInRequestSchema,
  checkInResponseSchema,
  discoveryDocumentSchema,
  enrollRequestSchema,
  enrollResponseSchema,
  publicKeySchema,
  ticketStatusSchema,
} from '../../../protocol/schemas.js';
import type {
  CheckInRequest,
  CheckInResponse,
  DiscoveryDocument,
  EnrollRequest,
  EnrollResponse,
  PublicKey,
  TicketStatus,
} from '../../../protocol/types.js';
import type { DoorCheckInRequest, DoorCheckInResponse, DoorDiscoveryDocument, DoorTicketStatus } from '../../../protocol/door.js';

/** Requests accept unknown extra fields (an index signature of unknowns): compare the named fields only. */
type Named<T> = T extends readonly (infer Item)[]
  ? Named<Item>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Named<T[K]> }
    : T;
/** The type a schema describes. */
type Described<S> = Named<FromSchema<S extends object ? S : never>>;

describe('protocol schemas and types describe the same resources', () => {
  it('requests', () => {
    expectTypeOf<Described<typeof enrollRequestSchema>>().toEqualTypeOf<EnrollRequest>();
    // The schemas accept the door-operations extension's fields too (docs/protocol.md "Door operations").
    expectTypeOf<Described<typeof checkInRequestSchema>>().toEqualTypeOf<Named<DoorCheckInRequest>>();
    expectTypeOf<DoorCheckInRequest>().toMatchTypeOf<CheckInRequest>();
  });

  it('responses', () => {
    expectTypeOf<Described<typeof publicKeySchema>>().toEqualTypeOf<PublicKey>();
    expectTypeOf<Described<typeof discoveryDocumentSchema>>().toEqualTypeOf<Named<DoorDiscoveryDocument>>();
    expectTypeOf<DoorDiscoveryDocument>().toMatchTypeOf<DiscoveryDocument>();
    expectTypeOf<Described<typeof enrollResponseSchema>>().toEqualTypeOf<EnrollResponse>();
    expectTypeOf<Described<typeof checkInResponseSchema>>().toEqualTypeOf<Named<DoorCheckInResponse>>();
    expectTypeOf<CheckInResponse>().toMatchTypeOf<DoorCheckInResponse>();
    expectTypeOf<Described<typeof ticketStatusSchema>>().toEqualTypeOf<Named<DoorTicketStatus>>();
    expectTypeOf<DoorTicketStatus>().toMatchTypeOf<TicketStatus>();
  });
});
