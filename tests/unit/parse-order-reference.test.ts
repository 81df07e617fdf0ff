// The one reading of order references (GET /orders/:orderId and the dashboard's search): which
// kinds a text can be, and the fixed ranking when one text matches several orders.
import { describe, expect, it } from "vitest";
import {
  classifyOrderMatch,
  ORDER_REFERENCE_KINDS,
  orderReferenceValues,
  parseOrderReference,
} from "@/lib/orders/parse-order-reference";
import { formatPublicOrderId, ordersNumbered, publicOrderNumber } from "@/lib/orders/public-order-id";
import { permuteId } from "@/lib/ids/permute-id";

describe("parseOrderReference", () => {
  it("reads a number as an order number and as a client's id, in the fixed order", () => {
    expect(parseOrderReference(" 123 ")).toEqual({ text: "123", kinds: ["trxid", "idempotencyKey", "id"], id: 123 });
    expect(parseOrderReference("#123")).toEqual({ text: "#123", kinds: ["trxid", "idempotencyKey", "id"], id: 123 });
    expect(ORDER_REFERENCE_KINDS).toEqual(["publicId", "trxid", "idempotencyKey", "id"]);
  });

  it("reads a public id only when its hash checks out, in any case", () => {
    const publicId = formatPublicOrderId("BR", 77);
    expect(parseOrderReference(publicId.toLowerCase())).toMatchObject({
      kinds: ["publicId", "trxid", "idempotencyKey"],
      publicId: 77,
    });
    const forged = publicId.slice(0, -1) + (publicId.endsWith("0") ? "1" : "0");
    expect(parseOrderReference(forged)).toEqual({ text: forged, kinds: ["trxid", "idempotencyKey"] });
  });

  it("reads the numbers public ids of either form can carry as order numbers, others as client ids only", () => {
    const permuted = permuteId("order", 77);
    expect(permuted).toBeGreaterThan(2_147_483_647);
    expect(parseOrderReference(String(permuted))).toMatchObject({ kinds: ["trxid", "idempotencyKey", "id"] });
    // 2^40 is past the permutation's domain; a value inside it whose order id is past the int column is no order's.
    const beyondIds = Array.from({ length: 50 }, (_, i) => 1_099_511_627_775 - i).find(
      (value) => ordersNumbered(value).length === 0,
    )!;
    expect(parseOrderReference(String(beyondIds))?.kinds).toEqual(["trxid", "idempotencyKey"]);
    expect(parseOrderReference("1099511627776")?.kinds).toEqual(["trxid", "idempotencyKey"]);
    expect(parseOrderReference("12345678901234")?.kinds).toEqual(["trxid", "idempotencyKey"]);
  });

  it("names nothing for empty, overlong or control-character text, or a kind the text cannot be", () => {
    for (const bad of ["", "   ", "a".repeat(129), "a\u0000b", "x\ny"])
      expect(parseOrderReference(bad), JSON.stringify(bad)).toBeUndefined();
    expect(parseOrderReference("abc", "id")).toBeUndefined();
    expect(parseOrderReference("abc", "publicId")).toBeUndefined();
    expect(parseOrderReference("123", "id")).toEqual({ text: "123", kinds: ["id"], id: 123 });
    expect(parseOrderReference("123", "trxid")).toEqual({ text: "123", kinds: ["trxid"] });
  });
});

describe("classifyOrderMatch ranks the kinds", () => {
  const publicId = formatPublicOrderId("BR", 123);
  const number = publicOrderNumber(publicId)!;
  const reference = parseOrderReference(String(number))!;
  const order = (trxid: string, idempotencyKey: string, id = 123) => ({
    id,
    publicId: formatPublicOrderId("BR", id),
    trxid,
    idempotencyKey,
  });
  it("a trxid beats an idempotency key, which beats the order number", () => {
    expect(classifyOrderMatch(reference, order(String(number), String(number)))).toBe("trxid");
    expect(classifyOrderMatch(reference, order("x", String(number)))).toBe("idempotencyKey");
    expect(classifyOrderMatch(reference, order("x", "y"))).toBe("id");
    expect(classifyOrderMatch(reference, order("x", "y", 124))).toBeUndefined();
  });

  it("the order number is the one in the order's public id: the permuted form's, or an old id's raw id", () => {
    expect(number).toBe(permuteId("order", 123));
    // The order's own id names it only where its public id is of the old form, which carries it.
    expect(classifyOrderMatch(parseOrderReference("123")!, order("x", "y"))).toBeUndefined();
    const old = { ...order("x", "y"), publicId: "SVCAPI-BR-3F-ABCDEF" };
    expect(publicOrderNumber(old.publicId)).toBe(123);
    expect(classifyOrderMatch(parseOrderReference("123")!, old)).toBe("id");
    expect(classifyOrderMatch(reference, old)).toBeUndefined();
  });

  it("gives each kind the values it compares with", () => {
    const middle = number.toString(36).toUpperCase().padStart(8, "0");
    expect(ordersNumbered(number)).toContainEqual({ id: 123, middle });
    expect(orderReferenceValues(parseOrderReference("123", "id")!)).toEqual({
      publicId: null,
      trxid: null,
      idempotencyKey: null,
      numberedIds: ordersNumbered(123).map(({ id }) => id),
      numberedMiddles: ordersNumbered(123).map(({ middle }) => middle),
    });
    expect(ordersNumbered(123)).toContainEqual({ id: 123, middle: "3F" });
  });
});
