// The one CSV writer for every export (the API's GET /ledger?format=csv, and any dashboard export).
// Spreadsheets run a cell that begins with =, +, -, @, a tab or a carriage return as a formula
// (CSV injection), and a text cell can carry anything: an admin's note, a supplier's error message,
// a client's trxid. So every text cell starting with one of those gets a leading apostrophe, which
// spreadsheets show as text and never evaluate. Numbers are not text: a money column is written
// from a JS number through csvNumber, can only be digits with an optional leading minus and one
// point, and stays a plain number ("-5.00") that sums in a spreadsheet. A string that merely looks
// like a number ("-5.00" typed as a note) is text and is escaped like any other.
// Every cell is quoted (RFC 4180), so commas, quotes and line breaks inside text are safe too.

/** A numeric cell made by csvNumber: the only way to write a cell that starts with "-" unescaped. */
export interface CsvNumber {
  readonly csvNumber: string;
}

export type CsvCell = string | number | boolean | Date | null | undefined | CsvNumber;

const FORMULA_START = /^[=+\-@\t\r\n]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/** A finite number as a numeric cell, with a fixed number of decimals when given (money: 2). */
export function csvNumber(value: number, fractionDigits?: number): CsvNumber {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const text = fractionDigits === undefined ? String(value) : value.toFixed(fractionDigits);
  // String(1e21) is "1e+21": refuse anything that is not plain digits rather than write it raw.
  if (!PLAIN_NUMBER.test(text)) throw new RangeError(`not a plain decimal: ${text}`);
  return { csvNumber: text };
}

/** One cell, quoted, with formula-starting text neutralised. */
export function csvCell(value: CsvCell): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "object" && "csvNumber" in value) text = value.csvNumber;
  else if (typeof value === "number") text = csvNumber(value).csvNumber;
  else if (value instanceof Date) text = value.toISOString();
  else {
    text = String(value);
    if (FORMULA_START.test(text)) text = `'${text}`;
  }
  return `"${text.replace(/"/g, '""')}"`;
}

/** A header name: bare when it is a plain identifier (as column names are), otherwise a cell. */
function headerCell(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : csvCell(name);
}

/** The header line of a document, with its CRLF (for writers that stream line by line). */
export function csvHeaderLine(header: readonly string[]): string {
  return header.map(headerCell).join(",") + "\r\n";
}

/** One row's line, with its CRLF (for writers that stream line by line). */
export function csvRowLine(row: readonly CsvCell[]): string {
  return row.map(csvCell).join(",") + "\r\n";
}

/** A whole CSV document: a header row and the rows, CRLF line ends, ending with a line break. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return csvHeaderLine(header) + rows.map(csvRowLine).join("");
}
