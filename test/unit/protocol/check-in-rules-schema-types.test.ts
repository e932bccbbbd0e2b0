// The check-in rules' schemas (what the issuer serialises in heartbeat and check-in answers) and their
// TypeScript types, held to each other by the compiler as in schema-types.test.ts.
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expectTypeOf, it } from 'vitest';
import type { checkInRulesSchema, CheckInRules, RuleRefusal, ruleRefusalSchema } from '../../../protocol/check-in-rules.js';

/** The schemas accept unknown extra fields (an index signature of unknowns): compare the named fields only. */
type Named<T> = T extends readonly (infer Item)[]
  ? Named<Item>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Named<T[K]> }
    : T;
type Described<S> = Named<FromSchema<S extends object ? S : never>>;

describe('check-in rules schemas and types describe the same resources', () => {
  it('RuleRefusal and CheckInRules', () => {
    expectTypeOf<Described<typeof ruleRefusalSchema>>().toMatchTypeOf<Named<RuleRefusal>>();
    expectTypeOf<Named<RuleRefusal>>().toMatchTypeOf<Described<typeof ruleRefusalSchema>>();
    expectTypeOf<Described<typeof checkInRulesSchema>>().toMatchTypeOf<Named<CheckInRules>>();
    expectTypeOf<Named<CheckInRules>>().toMatchTypeOf<Described<typeof checkInRulesSchema>>();
  });
});
