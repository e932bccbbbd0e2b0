/**
 * Each event's LAN key (docs/kiosk.md "Kiosks on one LAN"): 32 random bytes,
 * made at the event's first enrollment and given to every kiosk enrolled for
 * it, which authenticate their LAN messages with it. Unlike an API key it is
 * kept as it is, not hashed: the issuer hands it out again to each kiosk.
 */
import crypto from 'node:crypto';
import type { Sql } from './sql.js';

/** The event's LAN key, made now if it has none. Run inside the enrollment's write job: of two racing first enrollments, both get the one stored. */
export async function lanKeyForEvent(db: Sql, eid: string, nowIso: string): Promise<string> {
  await db.run('INSERT INTO event_lan_keys (eid, lan_key, created_at) VALUES (?, ?, ?) ON CONFLICT (eid) DO NOTHING', [
    eid,
    crypto.randomBytes(32).toString('base64url'),
    nowIso,
  ]);
  const row = await db.get<{ lan_key: string }>('SELECT lan_key FROM event_lan_keys WHERE eid = ?', [eid]);
  if (!row) throw new Error(`event ${eid} has no LAN key after storing one`);
  return row.lan_key;
}
