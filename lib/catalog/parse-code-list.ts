// Reads the codes an admin pastes or uploads: one code per line, or a CSV whose first column is the
// code (a header row such as "code" is skipped). Several sources (the pasted list, a file) are read
// as one list; every refusal names its source and line, so the dashboard can say exactly which
// lines were refused without echoing any code back.
import { normaliseCode } from "../codes/code-crypto";

const MAX_CODE_LENGTH = 200;
export const MAX_CODES_PER_UPLOAD = 10_000;

const HEADER_NAMES = new Set(["code", "codes", "key", "keys", "serial", "pin", "giftcard", "gift card", "gift_card"]);
// Control characters (C0, DEL, C1) and Unicode line/paragraph separators have no place in a code.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export interface CodeSource {
  /** How messages name it: "pasted list", "codes.csv". */
  label: string;
  text: string;
}

export interface ParsedCodeList {
  /** Normalised codes, first occurrence only, with where each came from ("codes.csv line 3"). */
  codes: { where: string; code: string }[];
  /** Lines that are not a usable code. */
  invalid: { where: string; reason: string }[];
  /** Lines repeating a code that appeared earlier in the list (in any source). */
  repeated: string[];
}

/** The first CSV field of a line, unquoted ("a,b" -> a; "\"x,y\",z" -> x,y). */
function firstCsvField(line: string): string {
  const text = line.trim();
  if (text.startsWith('"')) {
    let value = "";
    for (let i = 1; i < text.length; i++) {
      if (text[i] === '"') {
        if (text[i + 1] === '"') {
          value += '"';
          i++;
        } else return value;
      } else value += text[i];
    }
    return value; // unterminated quote: take what is there and let validation judge it
  }
  const cut = [text.indexOf(","), text.indexOf(";")].filter((index) => index >= 0).sort((a, b) => a - b)[0];
  return cut === undefined ? text : text.slice(0, cut);
}

export function parseCodeList(sources: CodeSource[]): ParsedCodeList {
  const result: ParsedCodeList = { codes: [], invalid: [], repeated: [] };
  const seen = new Set<string>();
  for (const source of sources) {
    let firstLine = true;
    source.text
      .replace(/^\uFEFF/, "")
      .split(/\r\n|\n|\r/)
      .forEach((raw, index) => {
        if (raw.trim() === "") return;
        const where = `${source.label} line ${index + 1}`;
        const code = normaliseCode(firstCsvField(raw));
        const isHeader = firstLine && HEADER_NAMES.has(code.toLowerCase());
        firstLine = false;
        if (isHeader) return;
        if (code === "") result.invalid.push({ where, reason: "empty first column" });
        else if (FORBIDDEN.test(code)) result.invalid.push({ where, reason: "contains control characters" });
        else if (code.length > MAX_CODE_LENGTH)
          result.invalid.push({ where, reason: `longer than ${MAX_CODE_LENGTH} characters` });
        else if (seen.has(code)) result.repeated.push(where);
        else {
          seen.add(code);
          result.codes.push({ where, code });
        }
      });
  }
  return result;
}
