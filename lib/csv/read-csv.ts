// The one CSV reader for the dashboard's imports (price lists, bank statements): a size cap, a BOM
// and blank lines tolerated, cells trimmed, and each record with the file line it ends on, which is
// how an import's errors name rows.
import { parse } from "csv-parse/sync";

export interface CsvRecord {
  record: string[];
  info: { lines: number };
}

export type ReadCsvResult = { records: CsvRecord[] } | { error: string; line: number };

export function readCsv(csv: string, maxBytes: number): ReadCsvResult {
  if (Buffer.byteLength(csv, "utf8") > maxBytes)
    return { error: `the file is larger than ${maxBytes / 1_000_000} MB: split it`, line: 1 };
  try {
    const records = parse(csv, {
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }) as unknown as CsvRecord[];
    return { records };
  } catch (error) {
    return {
      error: `not readable as CSV: ${(error as Error).message}`,
      line: (error as { lines?: number }).lines ?? 1,
    };
  }
}
