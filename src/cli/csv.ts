/**
 * CSV (RFC 4180) for `plants import` and `plants export`: fields separated by commas, quoted
 * with `"` when they hold a comma, a quote or a line break, a quote inside doubled. The parser
 * takes its input in chunks and tells the line each record starts on, so a refused row can
 * be named; a malformed row is reported and parsing goes on at the next line.
 */

/** One row: its fields, or why it could not be read. */
export interface CsvRecord {
  line: number;
  fields: string[];
  error?: string;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** A field as CSV text, quoted only when it must be. */
function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A row as a line of CSV, with its newline. */
export function csvRow(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\n`;
}

type State = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted' | 'skipLine';

export class CsvParser {
  private state: State = 'fieldStart';
  private field = '';
  private fields: string[] = [];
  private line = 1;
  private recordLine = 1;
  private error: string | undefined;
  /** The last character was a CR: a LF right after it ends no second line. */
  private afterCr = false;
  /** The line of the last character that was not a line break. */
  private textLine = 1;
  /** The line where the last quoted field opened. */
  private quoteLine = 1;

  /** Parses a chunk; returns the records it completed. */
  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    for (const c of chunk) {
      const crlf = c === '\n' && this.afterCr;
      this.afterCr = c === '\r';
      const newline = c === '\r' || c === '\n';
      if (newline && !crlf) this.line++;
      else if (!newline) this.textLine = this.line;
      if (this.state === 'quoted') {
        // Line breaks inside quotes are data, CRLF included.
        if (c === '"') this.state = 'quoteInQuoted';
        else this.field += c;
        continue;
      }
      if (crlf) continue; // its CR already ended the line
      switch (this.state) {
        case 'fieldStart':
          if (c === '"') {
            this.state = 'quoted';
            this.quoteLine = this.line;
          }
          else if (c === ',') this.fields.push('');
          else if (newline) this.endRecord(out);
          else {
            this.field = c;
            this.state = 'unquoted';
          }
          break;
        case 'unquoted':
          if (c === ',') this.endField('fieldStart');
          else if (newline) this.endRecord(out);
          else if (c === '"') this.fail('a quote inside an unquoted field (quote the whole field and double the quote)');
          else this.field += c;
          break;
        case 'quoteInQuoted':
          if (c === '"') {
            this.field += '"';
            this.state = 'quoted';
          } else if (c === ',') this.endField('fieldStart');
          else if (newline) this.endRecord(out);
          else this.fail('text after a closing quote');
          break;
        case 'skipLine':
          if (newline) this.endRecord(out);
          break;
      }
    }
    return out;
  }

  /** Ends the input; returns the last record when the input did not end with a newline. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.state === 'quoted') this.fail('a quoted field that is never closed');
    if (this.state !== 'fieldStart' || this.fields.length > 0 || this.error !== undefined) this.endRecord(out);
    return out;
  }

  private endField(next: State): void {
    this.fields.push(this.field);
    this.field = '';
    this.state = next;
  }

  private endRecord(out: CsvRecord[]): void {
    if (this.error !== undefined) out.push({ line: this.recordLine, fields: [], error: this.error });
    else {
      const blank = this.state === 'fieldStart' && this.fields.length === 0;
      if (this.state !== 'fieldStart' || this.fields.length > 0) this.fields.push(this.field);
      if (!blank) out.push({ line: this.recordLine, fields: this.fields });
    }
    this.fields = [];
    this.field = '';
    this.error = undefined;
    this.state = 'fieldStart';
    this.recordLine = this.line;
  }

  private fail(reason: string): void {
    // A quoted field that opened on an earlier line took the lines since into this record: say
    // which, as they are refused with it.
    const inQuotes = this.state === 'quoted' || this.state === 'quoteInQuoted';
    const reach = inQuotes && this.textLine > this.quoteLine ? `; the quote opened on line ${this.quoteLine} took in every line up to ${this.textLine}` : '';
    this.error = reason + reach;
    this.state = 'skipLine';
  }
}
