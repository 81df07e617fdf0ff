// The keyed permutation behind public order ids and redemption ids (lib/ids/permute-id.ts), and the
// two forms of public order id it leaves: the permuted one and the raw one handed out before it.
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/config/env";
import { PERMUTED_ID_DOMAIN, permuteId, unpermuteId } from "@/lib/ids/permute-id";
import { formatPublicOrderId, parsePublicOrderId } from "@/lib/orders/public-order-id";

/** The public id as the code before the permutation wrote it. */
function oldFormatPublicId(lineCode: string, id: number): string {
  const digest = crypto.createHmac("sha256", env().appSecret).update(`order:${id}`).digest();
  const hash = (digest.readUIntBE(0, 6) % 36 ** 6).toString(36).toUpperCase().padStart(6, "0");
  return `SVCAPI-${lineCode}-${id.toString(36).toUpperCase()}-${hash}`;
}

describe("permuteId", () => {
  it("maps back, stays in [0, 2^40), and gives distinct values", () => {
    const seen = new Set<number>();
    for (const id of [0, 1, 2, 3, 1000, 65_535, 2_147_483_647, PERMUTED_ID_DOMAIN - 1]) {
      const value = permuteId("order", id);
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(PERMUTED_ID_DOMAIN);
      expect(unpermuteId("order", value)).toBe(id);
      seen.add(value);
    }
    for (let id = 1; id <= 2000; id++) seen.add(permuteId("order", id));
    expect(seen.size).toBe(8 + 2000 - 4); // 1, 2, 3 and 1000 are in both lists
  });

  it("keys each purpose apart and refuses values outside the domain", () => {
    expect(permuteId("order", 42)).not.toBe(permuteId("redemption", 42));
    expect(() => permuteId("order", -1)).toThrow(RangeError);
    expect(() => permuteId("order", PERMUTED_ID_DOMAIN)).toThrow(RangeError);
    expect(() => unpermuteId("order", 1.5)).toThrow(RangeError);
  });
});

describe("public order ids", () => {
  it("new ids have an 8-digit base36 middle that is not the id, and parse back", () => {
    for (const id of [1, 2, 77, 2_147_483_647]) {
      const publicId = formatPublicOrderId("BR", id);
      const middle = /^SVCAPI-BR-([0-9A-Z]{8})-[0-9A-Z]{6}$/.exec(publicId)?.[1];
      expect(middle, publicId).toBeDefined();
      expect(parseInt(middle!, 36)).not.toBe(id);
      expect(parsePublicOrderId(publicId)).toBe(id);
      expect(parsePublicOrderId(publicId.toLowerCase())).toBe(id);
    }
  });

  it("ids handed out in the old form still parse; forged hashes and out-of-range ids do not", () => {
    for (const id of [1, 77, 123_456, 2_147_483_647]) expect(parsePublicOrderId(oldFormatPublicId("MO", id))).toBe(id);
    const valid = formatPublicOrderId("BR", 5);
    expect(parsePublicOrderId(valid.slice(0, -1) + (valid.endsWith("0") ? "1" : "0"))).toBeUndefined();
    expect(parsePublicOrderId(oldFormatPublicId("BR", 2_147_483_648))).toBeUndefined();
    expect(parsePublicOrderId("SVCAPI-BR-ZZZZZZZZ-000000")).toBeUndefined(); // above 2^40
  });
});
