// The one CSV writer for every export. Spreadsheets run a cell starting with = + - @ tab or CR as a
// formula (CSV injection), so such text cells get a leading apostrophe; only numbers made by
// csvNumber stay plain (and sum). Every cell is quoted (RFC 4180).

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
