/**
 * issuer/store/columns.ts is the one list of every table's columns: the export's columns, the file's value types
 * and the import's immutable columns are read from it, and the two log row types (store/log-rows.ts) have
 * exactly its columns (checked by tsc: expectTypeOf).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { CONTENT_COLUMNS } from '../../../issuer/store/audit-log.js';
import { columnsOn, immutableColumns, TABLE_COLUMNS, transferTypes } from '../../../issuer/store/columns.js';
import type { AdmissionEventEntry, ScanLogEntry, ScanLogRow } from '../../../issuer/store/log-rows.js';
import { TRANSFER_COLUMNS, TRANSFER_TABLES } from '../../../issuer/transfer/store.js';

describe('store/columns.ts', () => {
  it('lists every table that travels, and the export takes its travelling columns in its order', () => {
    for (const table of TRANSFER_TABLES) {
      expect(Object.keys(TABLE_COLUMNS)).toContain(table);
      expect(TRANSFER_COLUMNS[table]).toEqual(Object.keys(transferTypes(table)));
    }
  });

  it('keeps local columns and the PostgreSQL rowid out of the export, and the rowid out of SQLite', () => {
    expect(TRANSFER_COLUMNS.scan_log).not.toContain('id');
    expect(TRANSFER_COLUMNS.tickets).not.toContain('revocation_seq');
    expect(columnsOn('sqlite', 'tickets')).not.toContain('rowid');
    expect(columnsOn('postgres', 'tickets')).toContain('rowid');
    expect(immutableColumns('tickets')).toEqual(['eid', 'kid', 'holder_name', 'ticket_type', 'issued_at', 'exp', 'qr']);
  });

  it('gives each log one row type with exactly its columns', () => {
    expectTypeOf<keyof ScanLogEntry | 'position' | 'prev_hash' | 'hash' | 'origin'>().toEqualTypeOf<
      keyof (typeof TABLE_COLUMNS)['scan_log']
    >();
    expectTypeOf<keyof AdmissionEventEntry>().toEqualTypeOf<keyof (typeof TABLE_COLUMNS)['admission_events']>();
    const content: (keyof ScanLogRow)[] = [
      'at',
      'scanned_at',
      'tid',
      'eid',
      'scanner_id',
      'api_key_id',
      'gate_id',
      'idempotency_key',
      'outcome',
      'details',
    ];
    expect(CONTENT_COLUMNS).toEqual(content);
  });
});
