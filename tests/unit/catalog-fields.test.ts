// The catalog forms' pure parts: the percentage a line's prices change by and its rounding, and the
// text the line form writes required fields and server options in.
import { describe, expect, it } from "vitest";
import { applyPercent, parsePercent } from "@/lib/catalog/change-line-prices";
import {
  GameLineFields,
  formatRequiredFieldsText,
  formatServerIdOptionsText,
  parseRequiredFieldsText,
  parseServerIdOptionsText,
} from "@/lib/catalog/catalog-fields";

describe("a line's price change by percent", () => {
  it("reads a percentage as hundredths, exactly", () => {
    expect(parsePercent("10")).toBe(1000);
    expect(parsePercent("-12.5")).toBe(-1250);
    expect(parsePercent("+2.25%")).toBe(225);
    expect(parsePercent(" 0.01 ")).toBe(1);
    for (const text of ["", "abc", "1.234", "1e2", "--5", "5 %x", "10000"]) expect(parsePercent(text), text).toBe(undefined);
  });

  it("rounds to the nearest cent, halves up, without floating point", () => {
    expect(applyPercent(139, 5_000)).toBe(209); // 208.5
    expect(applyPercent(159, -1_250)).toBe(139); // 139.125
    expect(applyPercent(99, 1_000)).toBe(109); // 108.9
    expect(applyPercent(50, 100)).toBe(51); // 50.5
    expect(applyPercent(4, -9_000)).toBe(0); // 0.4: the caller refuses it
    // 0.1 + 0.2 style errors would show here: 1005 * 1.1 = 1105.5 exactly -> 1106.
    expect(applyPercent(1_005, 1_000)).toBe(1_106);
    expect(applyPercent(10_000_000, 100_000)).toBe(110_000_000);
  });
});

describe("the line form's text fields", () => {
  it("reads and writes required fields one per line", () => {
    const fields = parseRequiredFieldsText("userId: Player ID\n\n  zoneId:Zone  \r\nserverId");
    expect(fields).toEqual([
      { field: "userId", label: "Player ID" },
      { field: "zoneId", label: "Zone" },
      { field: "serverId", label: "serverId" },
    ]);
    expect(parseRequiredFieldsText(formatRequiredFieldsText(fields))).toEqual(fields);
  });

  it("reads and writes server options as value | label | aliases", () => {
    const options = parseServerIdOptionsText("asia | Asia | AS, ASIA\neu|Europe\nna");
    expect(options).toEqual([
      { value: "asia", label: "Asia", aliases: ["AS", "ASIA"] },
      { value: "eu", label: "Europe" },
      { value: "na", label: "na" },
    ]);
    expect(parseServerIdOptionsText(formatServerIdOptionsText(options))).toEqual(options);
    expect(parseServerIdOptionsText(" \n ")).toBeNull();
  });

  it("a stock line takes no identifiers and a top-up line always takes userId", () => {
    const line = {
      slug: "cards",
      code: "CD",
      gameName: "Cards",
      productName: "Gift cards",
      kind: "giftcard",
      requiredFields: [],
      serverIdOptions: null,
      orderable: true,
      available: true,
      supplier: "sandbox",
    };
    expect(GameLineFields.safeParse(line).success).toBe(true);
    expect(GameLineFields.safeParse({ ...line, requiredFields: [{ field: "userId", label: "Player" }] }).success).toBe(
      false,
    );
    expect(GameLineFields.safeParse({ ...line, kind: "topup" }).success).toBe(false);
    expect(
      GameLineFields.safeParse({ ...line, kind: "topup", requiredFields: [{ field: "userId", label: "Player" }] })
        .success,
    ).toBe(true);
  });
});
