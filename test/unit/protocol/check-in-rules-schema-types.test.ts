// The check-in rules' schemas (what the issuer serialises in heartbeat and check-in answers) and their
// TypeScript types, held to each other by the compiler as in schema-types.test.ts.
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expectTypeOf, it } from 'vitest';
import type { checkInRulesSchema, CheckInRules, RuleRefusal, ruleRefusalSchema } from '../../../protocol/check-in-rules.js';

describe('check-in rules schemas and types describe the same resources', () => {
  it('RuleRefusal and CheckInRules', () => {
    expectTypeOf<FromSchema<typeof ruleRefusalSchema>>().toMatchTypeOf<RuleRefusal>();
    expectTypeOf<RuleRefusal>().toMatchTypeOf<FromSchema<typeof ruleRefusalSchema>>();
    expectTypeOf<FromSchema<typeof checkInRulesSchema>>().toMatchTypeOf<CheckInRules>();
    expectTypeOf<CheckInRules>().toMatchTypeOf<FromSchema<typeof checkInRulesSchema>>();
  });
});
