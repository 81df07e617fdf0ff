import { describe, expect, it } from "vitest";
import { describeTierRule, parseTierRule, PriceTierName } from "@/lib/pricing/price-tier-rules";

describe("parseTierRule", () => {
  it.each([
    ["percent", "12.5", { priceCents: null, percentOffBp: 1250 }],
    ["percent", "12.05%", { priceCents: null, percentOffBp: 1205 }],
    ["percent", "0.01", { priceCents: null, percentOffBp: 1 }],
    ["percent", "99.99", { priceCents: null, percentOffBp: 9999 }],
    ["price", "0.75", { priceCents: 75, percentOffBp: null }],
    ["price", "19.99", { priceCents: 1999, percentOffBp: null }],
  ])("reads %s %j exactly", (kind, text, rule) => expect(parseTierRule(kind, text)).toEqual({ ok: true, rule }));

  it.each([
    ["percent", "100"],
    ["percent", "0"],
    ["percent", "1.234"],
    ["percent", "-5"],
    ["percent", "1e1"],
    ["price", "0"],
    ["price", "-1"],
    ["price", "100000.01"],
    ["other", "5"],
  ])("refuses %s %j", (kind, text) => expect(parseTierRule(kind, text).ok).toBe(false));
});

describe("describeTierRule", () => {
  it("says what a rule is", () => {
    expect(describeTierRule(null)).toBe("list price");
    expect(describeTierRule({ priceCents: 450, percentOffBp: null })).toBe("$4.50");
    expect(describeTierRule({ priceCents: null, percentOffBp: 2000 })).toBe("20 % off");
    expect(describeTierRule({ priceCents: null, percentOffBp: 1250 })).toBe("12.5 % off");
    expect(describeTierRule({ priceCents: null, percentOffBp: 1205 })).toBe("12.05 % off");
  });
});

describe("PriceTierName", () => {
  it("takes one lower-cased word, never the word for no tier", () => {
    expect(PriceTierName.parse(" Gold ")).toBe("gold");
    expect(PriceTierName.parse("vip_2026-a")).toBe("vip_2026-a");
    for (const bad of ["none", "NONE", "two words", "", "-lead", "a".repeat(41)])
      expect(PriceTierName.safeParse(bad).success, bad).toBe(false);
  });
});
