// The admin API's JSON Schemas (issuer/routes/admin/schemas.ts) and its types
// (issuer/dashboard-api.ts, which the dashboard page compiles against) held to
// each other by the compiler, as the protocol's are (test/unit/protocol/schema-types.test.ts).
import type { FromSchema } from 'json-schema-to-ts';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  EventOverview,
  EventSummary,
  HandoutCounts,
  LookupResult,
  RevokeScannerResult,
  RevokeSetupResult,
  RevokeTicketResult,
  SessionInfo,
  SetupCodeResult,
  StaffActionList,
  StaffActionView,
  TicketTypeRules,
  TicketView,
} from '../../../issuer/dashboard-api.js';
import type {
  eventSummarySchema,
  handoutCountsSchema,
  lookupSchema,
  overviewSchema,
  revokeScannerResultSchema,
  revokeSetupResultSchema,
  revokeTicketResultSchema,
  sessionSchema,
  setupCodeResultSchema,
  staffActionListSchema,
  staffActionSchema,
  ticketTypeRulesSchema,
  ticketViewSchema,
} from '../../../issuer/routes/admin/schemas.js';

type Described<S> = FromSchema<S extends object ? S : never>;

describe('admin API schemas and types describe the same answers', () => {
  it('session, events and the overview', () => {
    expectTypeOf<Described<typeof eventSummarySchema>>().toEqualTypeOf<EventSummary>();
    expectTypeOf<Described<typeof sessionSchema>>().toEqualTypeOf<SessionInfo>();
    expectTypeOf<Described<typeof overviewSchema>>().toEqualTypeOf<EventOverview>();
  });

  it("ticket types' rules and handouts, and the handout counts", () => {
    expectTypeOf<Described<typeof ticketTypeRulesSchema>>().toEqualTypeOf<TicketTypeRules>();
    expectTypeOf<Described<typeof handoutCountsSchema>>().toEqualTypeOf<HandoutCounts>();
  });

  it('tickets, setup codes and revocations', () => {
    expectTypeOf<Described<typeof ticketViewSchema>>().toEqualTypeOf<TicketView>();
    expectTypeOf<Described<typeof lookupSchema>>().toEqualTypeOf<LookupResult>();
    expectTypeOf<Described<typeof revokeTicketResultSchema>>().toEqualTypeOf<RevokeTicketResult>();
    expectTypeOf<Described<typeof setupCodeResultSchema>>().toEqualTypeOf<SetupCodeResult>();
    expectTypeOf<Described<typeof revokeSetupResultSchema>>().toEqualTypeOf<RevokeSetupResult>();
    expectTypeOf<Described<typeof revokeScannerResultSchema>>().toEqualTypeOf<RevokeScannerResult>();
  });

  it("the kiosks' staff actions", () => {
    expectTypeOf<Described<typeof staffActionSchema>>().toEqualTypeOf<StaffActionView>();
    expectTypeOf<Described<typeof staffActionListSchema>>().toEqualTypeOf<StaffActionList>();
  });
});
