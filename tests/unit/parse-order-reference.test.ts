// The one reading of order references (GET /orders/:orderId and the dashboard's search): which
// kinds a text can be, and the fixed ranking when one text matches several orders.
import { describe, expect, it } from "vitest";
import {
  classifyOrderMatch,
  ORDER_REFERENCE_KINDS,
  orderReferenceSql,
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

describe("classifyOrderMatch and orderReferenceSql rank the same way", () => {
  const reference = parseOrderReference("123")!;
  it("a trxid beats an idempotency key, which beats the numeric id", () => {
    expect(classifyOrderMatch(reference, { id: 123, trxid: "123", idempotencyKey: "123" })).toBe("trxid");
    expect(classifyOrderMatch(reference, { id: 123, trxid: "x", idempotencyKey: "123" })).toBe("idempotencyKey");
    expect(classifyOrderMatch(reference, { id: 123, trxid: "x", idempotencyKey: "y" })).toBe("id");
    expect(classifyOrderMatch(reference, { id: 124, trxid: "x", idempotencyKey: "y" })).toBeUndefined();
  });

  it("the SQL ranks the kinds in the same order, with a parameter per kind", () => {
    const sql = orderReferenceSql(reference, "o", 2);
    expect(sql.where).toBe("(o.id = $2 OR o.trxid = $3 OR o.idempotency_key = $4 OR o.id = $5)");
    expect(sql.rank).toBe(
      "CASE WHEN o.id = $2 THEN 0 WHEN o.trxid = $3 THEN 1 WHEN o.idempotency_key = $4 THEN 2 WHEN o.id = $5 THEN 3 END",
    );
    expect(sql.values).toEqual([null, "123", "123", 123]);
    expect(orderReferenceSql(parseOrderReference("123", "id")!, "o", 2).values).toEqual([null, null, null, 123]);
  });
});
