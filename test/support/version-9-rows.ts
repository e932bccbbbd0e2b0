/** Rows for the migration 10 tests (test/integration/issuer/search-name-migration.test.ts and its PostgreSQL twin). */

/** An event with a nameless ticket and a named one, as version 9 stores them. */
export const VERSION_9_ROWS = [
  "INSERT INTO signing_keys (kid, public_key, valid_from, active) VALUES ('0a1b2c3d', 'pk', '2030-01-01T00:00:00Z', 1)",
  `INSERT INTO events (eid, name, date, venue, ends_at, created_at)
     VALUES ('E1', 'Night', '2030-01-01T19:00:00Z', 'Hall', '2030-01-02T07:00:00Z', '2029-12-01T00:00:00Z')`,
  "INSERT INTO tickets (tid, eid, kid, issued_at, exp, qr) VALUES ('T1', 'E1', '0a1b2c3d', '2029-12-01T00:00:00Z', 1893520800, 'q')",
  `INSERT INTO tickets (tid, eid, kid, holder_name, issued_at, exp, qr)
     VALUES ('T2', 'E1', '0a1b2c3d', 'Zoë Ångström', '2029-12-01T00:00:00Z', 1893520800, 'q2')`,
];
