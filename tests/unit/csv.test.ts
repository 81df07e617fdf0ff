import { describe, expect, it } from "vitest";
import { csvCell, csvNumber, toCsv } from "@/lib/csv/to-csv";

describe("csvCell", () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ["+1+1", `"'+1+1"`],
    ["-1+1", `"'-1+1"`],
    ["-2+3+cmd|' /C calc'!A0", `"'-2+3+cmd|' /C calc'!A0"`],
    ["@SUM(A1:A9)", `"'@SUM(A1:A9)"`],
    ["\t=1+1", `"'\t=1+1"`],
    ["\r=1+1", `"'\r=1+1"`],
    ["\n=1+1", `"'\n=1+1"`],
    // Text that looks like a number is still text: only csvNumber writes a bare leading minus.
    ["-5.00", `"'-5.00"`],
  ])("neutralises formula text %j", (input, expected) => expect(csvCell(input)).toBe(expected));

  it.each([
    ["PLAYER NOT FOUND", `"PLAYER NOT FOUND"`],
    ['a, "quoted"\nline', `"a, ""quoted""\nline"`],
    ["a=b", `"a=b"`],
    ["", `""`],
  ])("quotes ordinary text %j unchanged", (input, expected) => expect(csvCell(input)).toBe(expected));

  it("writes numbers, dates, booleans and empties plainly", () => {
    expect(csvCell(csvNumber(-5, 2))).toBe(`"-5.00"`);
    expect(csvCell(csvNumber(0.1 + 0.2, 2))).toBe(`"0.30"`);
    expect(csvCell(-12)).toBe(`"-12"`);
    expect(csvCell(42)).toBe(`"42"`);
    expect(csvCell(new Date("2026-01-02T03:04:05.006Z"))).toBe(`"2026-01-02T03:04:05.006Z"`);
    expect(csvCell(true)).toBe(`"true"`);
    expect(csvCell(null)).toBe(`""`);
    expect(csvCell(undefined)).toBe(`""`);
  });

  it("refuses numbers that would not be plain decimals", () => {
    expect(() => csvNumber(Number.NaN)).toThrow(RangeError);
    expect(() => csvNumber(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => csvNumber(1e21)).toThrow(RangeError);
    expect(() => csvCell(1e-7)).toThrow(RangeError);
  });
});

describe("toCsv", () => {
  it("writes a header, quoted rows and CRLF line ends", () => {
    expect(
      toCsv(
        ["id", "amount_usd", "note"],
        [
          [1, csvNumber(-0.99, 2), "=1+1"],
          [2, csvNumber(10, 2), null],
        ],
      ),
    ).toBe(`id,amount_usd,note\r\n"1","-0.99","'=1+1"\r\n"2","10.00",""\r\n`);
  });

  it("escapes a header name that is not a plain identifier", () => {
    expect(toCsv(["=evil"], [])).toBe(`"'=evil"\r\n`);
  });
});
