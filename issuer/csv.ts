/**
 * RFC 4180 CSV, small: the reader behind `ticket import` and the row writer
 * of the check-ins export (issuer/services/checkins-export.ts). The reader:
 * comma-separated, fields in double quotes may hold commas, line breaks and
 * doubled quotes (""), CRLF or LF line ends, an optional UTF-8 BOM. Each
 * record keeps the line it starts on, so errors can name it.
 */
export interface CsvRecord {
  /** 1-based line number where the record starts. */
  line: number;
  fields: string[];
}

export class CsvSyntaxError extends Error {
  override readonly name = 'CsvSyntaxError';
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let fieldWasQuoted = false;
  let line = 1;
  let recordLine = 1;
  let i = 0;

  const endField = (): void => {
    fields.push(field);
    field = '';
    fieldWasQuoted = false;
  };

  while (i < input.length) {
    const char = input[i]!;
    if (char === '"' && !fieldWasQuoted && field.trim() === '') {
      // A quoted field (spaces before the quote are dropped): read to the closing quote; "" stands for one quote.
      const openedOn = line;
      field = '';
      i++;
      for (;;) {
        if (i >= input.length) throw new CsvSyntaxError(openedOn, 'a quoted field is never closed');
        const c = input[i]!;
        if (c === '"' && input[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (c === '"') {
          i++;
          break;
        } else {
          if (c === '\n') line++;
          field += c;
          i++;
        }
      }
      while (input[i] === ' ' || input[i] === '\t') i++;
      const after = input[i];
      if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
        throw new CsvSyntaxError(line, 'a closing quote must be followed by a comma or the end of the line');
      }
      fieldWasQuoted = true;
    } else if (char === ',') {
      endField();
      i++;
    } else if (char === '\r' || char === '\n') {
      endField();
      records.push({ line: recordLine, fields });
      fields = [];
      i += char === '\r' && input[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
    } else if (char === '"') {
      throw new CsvSyntaxError(line, 'a quote inside an unquoted field (quote the whole field and double the quote: "")');
    } else {
      field += char;
      i++;
    }
  }
  // The last line may lack a line break.
  if (field !== '' || fieldWasQuoted || fields.length > 0) {
    endField();
    records.push({ line: recordLine, fields });
  }
  return records;
}

/** A record that is one empty field is a blank line. */
export const isBlankRecord = (record: CsvRecord): boolean => record.fields.length === 1 && record.fields[0]!.trim() === '';

/**
 * One CSV line (RFC 4180): a field is quoted when it holds a comma, quote or
 * line break. A text field that a spreadsheet would take for a formula
 * (starting with =, +, -, @, Tab or CR) gets a leading apostrophe, as OWASP's
 * "CSV Injection" advice says: Excel, LibreOffice and Google Sheets then show
 * it as text (docs/issuer.md "Threats handled"). Numbers are left as numbers.
 */
export function formatCsvRow(fields: readonly (string | number | null)[]): string {
  return fields
    .map((value) => {
      const text = value === null ? '' : typeof value === 'number' ? String(value) : neutralizeFormula(value);
      return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    })
    .join(',');
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** `'=HYPERLINK(...)` instead of `=HYPERLINK(...)`: shown, never evaluated. */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
