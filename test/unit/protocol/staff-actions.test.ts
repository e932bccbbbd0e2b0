/**
 * The heartbeat's staff records (protocol/staff-actions.ts; docs/protocol.md "Scanner heartbeat"): a record is
 * refused naming the first field that breaks the rules, with the label rules for the name; at most 200 a heartbeat.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_STAFF_ACTIONS_PER_HEARTBEAT,
  staffActionProblem,
  staffActionsProblem,
  type StaffActionReport,
} from '../../../protocol/staff-actions.js';

const record: StaffActionReport = {
  position: 7,
  hash: 'a'.repeat(64),
  at: '2026-12-01T19:00:00.000Z',
  event: 'attention_override',
  staff_id: 'stf_kim',
  name: 'Kim Lee',
  role: 'supervisor',
  via: 'badge',
  tid: '0d9c2d6e-4a39-4a51-9d8e-6d1f1c8a1b2c',
};

describe('staffActionProblem (docs/protocol.md "Scanner heartbeat")', () => {
  it('takes a record of every known event, with no one unlocked too', () => {
    expect(staffActionProblem(record, 0)).toBeNull();
    expect(staffActionProblem({ ...record, event: 'staff_refused', call: 'annul', needs: 'supervisor' }, 0)).toBeNull();
    expect(staffActionProblem({ ...record, event: 'staff_action', call: 'setLanguage' }, 0)).toBeNull();
    expect(staffActionProblem({ ...record, staff_id: null, name: null, via: null, role: 'anyone' }, 0)).toBeNull();
  });

  it.each([
    ['position', { position: 0 }, 'staff_actions.4.position'],
    ['position', { position: 1.5 }, 'staff_actions.4.position'],
    ['hash', { hash: 'A'.repeat(64) }, 'staff_actions.4.hash'],
    ['at', { at: 'yesterday' }, 'staff_actions.4.at'],
    ['event', { event: 'pin_shown' }, 'staff_actions.4.event'],
    ['staff_id', { staff_id: 'kim lee' }, 'staff_actions.4.staff_id'],
    ['name', { name: 'x'.repeat(81) }, 'staff_actions.4.name'],
    ['name', { name: 'Kim\u202eeeL' }, 'staff_actions.4.name'],
    ['name', { name: 'Kim\nLee' }, 'staff_actions.4.name'],
    ['name', { name: '' }, 'staff_actions.4.name'],
    ['role', { role: 'admin' }, 'staff_actions.4.role'],
    ['via', { via: 'magic' }, 'staff_actions.4.via'],
    ['call', { call: 'issuer.annul' }, 'staff_actions.4.call'],
    ['needs', { needs: 'anyone' }, 'staff_actions.4.needs'],
    ['tid', { tid: 'x'.repeat(81) }, 'staff_actions.4.tid'],
  ])('refuses a bad %s, naming it', (_name, change, field) => {
    expect(staffActionProblem({ ...record, ...change }, 4)).toMatchObject({ field });
  });

  it('refuses a record that is not an object, and a missing field', () => {
    expect(staffActionProblem('record', 2)).toMatchObject({ field: 'staff_actions.2' });
    const { hash: _hash, ...noHash } = record;
    expect(staffActionProblem(noHash, 0)).toMatchObject({ field: 'staff_actions.0.hash' });
  });

  it('takes at most 200 records and names the first bad one', () => {
    expect(staffActionsProblem(Array.from({ length: MAX_STAFF_ACTIONS_PER_HEARTBEAT }, () => record))).toBeNull();
    expect(staffActionsProblem(Array.from({ length: MAX_STAFF_ACTIONS_PER_HEARTBEAT + 1 }, () => record))).toMatchObject({
      field: 'staff_actions',
    });
    expect(staffActionsProblem([record, { ...record, role: 'boss' }, { ...record, hash: '' }])).toMatchObject({
      field: 'staff_actions.1.role',
    });
  });
});
