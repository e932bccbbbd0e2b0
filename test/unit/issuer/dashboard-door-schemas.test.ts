// The door-operation answers of the admin API (issuer/routes/admin/schemas.ts) and their types
// (issuer/dashboard-api.ts), held to each other by the compiler like the others (dashboard-api-schemas.test.ts).
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AnnulCheckInRequest,
  AnnulCheckInResult,
  DoorSettingsRequest,
  DoorSettingsResult,
  OccupancyView,
  OfflinePolicyRequest,
  OfflinePolicyResult,
} from '../../../issuer/dashboard-api.js';
import type {
  annulBodySchema,
  annulCheckInResultSchema,
  doorSettingsBodySchema,
  doorSettingsResultSchema,
  occupancySchema,
  offlinePolicyBodySchema,
  offlinePolicyResultSchema,
} from '../../../issuer/routes/admin/schemas.js';

type Described<S> = FromSchema<S extends object ? S : never>;

describe('admin API door schemas and types describe the same requests and answers', () => {
  it('answers', () => {
    expectTypeOf<Described<typeof occupancySchema>>().toEqualTypeOf<OccupancyView>();
    expectTypeOf<Described<typeof annulCheckInResultSchema>>().toEqualTypeOf<AnnulCheckInResult>();
    expectTypeOf<Described<typeof doorSettingsResultSchema>>().toEqualTypeOf<DoorSettingsResult>();
    expectTypeOf<Described<typeof offlinePolicyResultSchema>>().toEqualTypeOf<OfflinePolicyResult>();
  });

  it('requests: what the schema lets through is what the type says (unknown extra fields are accepted and ignored)', () => {
    type Known<S, T> = Pick<Described<S>, keyof T & keyof Described<S>>;
    expectTypeOf<Known<typeof annulBodySchema, AnnulCheckInRequest>>().toEqualTypeOf<AnnulCheckInRequest>();
    expectTypeOf<Known<typeof doorSettingsBodySchema, DoorSettingsRequest>>().toEqualTypeOf<DoorSettingsRequest>();
    expectTypeOf<Known<typeof offlinePolicyBodySchema, OfflinePolicyRequest>>().toEqualTypeOf<OfflinePolicyRequest>();
  });
});
