/** Rows for the migration 9 tests (test/integration/issuer/trust-migration.test.ts and its PostgreSQL twin). */

/** Version 8's rows of an event with two setup codes and their keys: one with the annul right, one without. */
export const VERSION_8_ROWS = `
  INSERT INTO signing_keys (kid, public_key, valid_from, active) VALUES ('0a1b2c3d', 'pk', '2030-01-01T00:00:00Z', 1);
  INSERT INTO events (eid, name, date, venue, ends_at, created_at)
    VALUES ('E1', 'Night', '2030-01-01T19:00:00Z', 'Hall', '2030-01-02T07:00:00Z', '2029-12-01T00:00:00Z');
  INSERT INTO tickets (tid, eid, kid, issued_at, exp, qr) VALUES ('T1', 'E1', '0a1b2c3d', '2029-12-01T00:00:00Z', 1893520800, 'q');
  INSERT INTO enrollment_tokens (token_id, token_hash, eid, expires_at, key_expires_at, created_at, can_annul)
    VALUES ('tok_annul', 'h1', 'E1', '2030-01-02T00:00:00Z', '2030-01-02T19:00:00Z', '2029-12-01T00:00:00Z', 1),
           ('tok_plain', 'h2', 'E1', '2030-01-02T00:00:00Z', '2030-01-02T19:00:00Z', '2029-12-01T00:00:00Z', 0);
  INSERT INTO api_keys (api_key_id, key_hash, token_id, scanner_id, eid, expires_at, created_at, can_annul)
    VALUES ('key_annul', 'k1', 'tok_annul', 'S1', 'E1', '2030-01-02T19:00:00Z', '2029-12-01T00:00:00Z', 1),
           ('key_plain', 'k2', 'tok_plain', 'S2', 'E1', '2030-01-02T19:00:00Z', '2029-12-01T00:00:00Z', 0);
  INSERT INTO scanner_heartbeats (api_key_id, scanner_id, eid, reported_at) VALUES ('key_plain', 'S2', 'E1', '2030-01-01T19:00:00Z');
  INSERT INTO admission_events (tid, eid, action, at, actor, recorded_at)
    VALUES ('T1', 'E1', 'entry', '2030-01-01T19:05:00Z', 'scanner:S1', '2030-01-01T19:05:01Z');
`;
