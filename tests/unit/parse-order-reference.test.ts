// The one reading of order references (GET /orders/:orderId and the dashboard's search): which
// kinds a text can be, and the fixed ranking when one text matches several orders.
import { describe, expect, it } from "vitest";
import {
  classifyOrderMatch,
  ORDER_REFERENCE_KINDS,
  orderReferenceValues,
  parseOrderReference,
} from "@/lib/orders/parse-order-reference";
import { formatPublicOrderId } from "@/lib/orders/public-order-id";

describe("parseOrderReference", () => {
  it("reads a number as an order id and as a client's id, in the fixed order", () => {
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

  it("keeps numbers outside the id range as client ids only", () => {
    expect(parseOrderReference("0")?.kinds).toEqual(["trxid", "idempotencyKey"]);
    expect(parseOrderReference("2147483648")?.kinds).toEqual(["trxid", "idempotencyKey"]);
    expect(parseOrderReference("12345678901")?.kinds).toEqual(["trxid", "idempotencyKey"]);
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
  const reference = parseOrderReference("123")!;
  it("a trxid beats an idempotency key, which beats the numeric id", () => {
    expect(classifyOrderMatch(reference, { id: 123, trxid: "123", idempotencyKey: "123" })).toBe("trxid");
    expect(classifyOrderMatch(reference, { id: 123, trxid: "x", idempotencyKey: "123" })).toBe("idempotencyKey");
    expect(classifyOrderMatch(reference, { id: 123, trxid: "x", idempotencyKey: "y" })).toBe("id");
    expect(classifyOrderMatch(reference, { id: 124, trxid: "x", idempotencyKey: "y" })).toBeUndefined();
  });

  it("gives each kind the value it compares with", () => {
    expect(orderReferenceValues(reference)).toEqual({ publicId: null, trxid: "123", idempotencyKey: "123", id: 123 });
    expect(orderReferenceValues(parseOrderReference("123", "id")!)).toEqual({
      publicId: null,
      trxid: null,
      idempotencyKey: null,
      id: 123,
    });
  });
});
