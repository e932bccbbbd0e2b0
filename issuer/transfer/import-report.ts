/** What `import` prints when it has merged a file (docs/issuer.md "Moving an issuer to the venue and back"). */
import { IMPORT_CONFLICT_OUTCOME } from '../store/log-rows.js';
import { IMPORT_KINDS, type ImportResult } from './import.js';

export function describeImport(result: ImportResult): string {
  const how = result.created ? `created ${result.data} from it` : `merged it into ${result.data}`;
  const width = Math.max(...IMPORT_KINDS.map((k) => k.length));
  const lines = [
    `Imported ${result.file} (${result.scope.eid === null ? 'whole issuer' : `event ${result.scope.eid}`}) of "${result.name}" (${result.issuer}): ${how}.`,
    `  ${'kind'.padEnd(width)}  added  updated  unchanged  conflicts`,
    ...IMPORT_KINDS.map((kind) => {
      const c = result.counts[kind];
      return `  ${kind.padEnd(width)}  ${pad(c.added, 5)}  ${pad(c.updated, 7)}  ${pad(c.unchanged, 9)}  ${pad(c.conflicts, 9)}`;
    }),
    `Active signing key: ${result.active_kid}${result.retired_kids.length > 0 ? `; retired by this import: ${result.retired_kids.join(', ')}` : ''}.`,
  ];
  if (result.double_admissions > 0) {
    lines.push(
      `${result.double_admissions} double admission(s): ticket(s) checked in on both instances. The earlier check-in stands; the other is in the audit log as "${IMPORT_CONFLICT_OUTCOME}" (ticket-issuer checkins export --event EID).`,
    );
  }
  lines.push('The import file holds private keys: delete it (or keep it as private as the data dir).');
  return lines.join('\n');
}

const pad = (n: number, width: number): string => String(n).padStart(width);
