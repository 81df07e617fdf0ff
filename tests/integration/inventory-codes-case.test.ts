// Inventory codes are delivered exactly as uploaded: an admin uploads mixed-case codes through the
// dashboard's import function, a client buys them over the API, a real worker delivers them, and the
// invoice carries the same bytes. Only an exact repeat is a duplicate; a code differing in case is
// another code.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPrisma } from "@/lib/db/prisma";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { api } from "../helpers/api";
import { sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

const ADMIN = "admin:ops@example.com";
// Mixed case, a case-only twin, and non-ASCII letters whose case or normal form a careless
// normalisation would change.
const CODES = ["gK-aBcD-eFgH-1234", "Gk-AbCd-EfGh-1234", "straße-Ärger-ǅ-x9"];

let worker: RunningWorker;
let productId: number;

useCleanDatabase();
beforeAll(async () => {
  // A pack of its own, so the codes reserved for the order can only be the ones uploaded here.
  const line = await getPrisma().gameLine.findUniqueOrThrow({ where: { slug: "giftcards" } });
  productId = (
    await getPrisma().product.create({
      data: { catalogId: "SVCGCCASE", lineId: line.id, packName: "Case test card", priceCents: 100 },
    })
  ).id;
  worker = await startWorker({ connectionString: suiteDatabaseUrl(), concurrency: 2, log: () => undefined });
});
afterAll(async () => {
  await worker?.stop();
});

describe("inventory codes keep their case", () => {
  it("uploads mixed-case codes, and an order delivers them byte for byte", async () => {
    const upload = await importInventoryCodes({
      productId,
      sources: [{ label: "pasted list", text: CODES.join("\n") }],
      actor: ADMIN,
    });
    expect(upload).toMatchObject({ status: "imported", added: 3, alreadyStored: [], repeated: [], availableAfter: 3 });

    const account = await createAccount({ balanceCents: 1_000 });
    const placed = await order(account.key, { pid: "SVCGCCASE", trxid: newTrxid("case"), quantity: 3 });
    expect(placed.status).toBe(200);
    const done = await api(`/orders/${placed.json.orderId}?wait=30`, { key: account.key });
    expect(done.json).toMatchObject({ status: "completed" });
    const delivered: string[] = done.json.codes;
    // Reserved in upload order (by id), so the invoice lists them as uploaded.
    expect(delivered).toEqual(CODES);
    expect(delivered.map((code) => Buffer.from(code, "utf8"))).toEqual(CODES.map((code) => Buffer.from(code, "utf8")));
    // The raw body too: nothing between the database and the wire changed a byte.
    for (const code of CODES)
      expect(Buffer.from(done.text, "utf8").includes(Buffer.from(JSON.stringify(code).slice(1, -1), "utf8"))).toBe(
        true,
      );
    await expectBooksBalance();
  });

  it("refuses an exact duplicate (even once delivered) and accepts a code that differs only in case", async () => {
    const result = await importInventoryCodes({
      productId,
      sources: [
        {
          label: "again.csv",
          text: `code\n${CODES[0]}\n${CODES[0]!.toUpperCase()}\n${CODES[2]!.toLowerCase()}\n${CODES[1]}`,
        },
      ],
      actor: ADMIN,
    });
    expect(result).toEqual({
      status: "imported",
      catalogId: "SVCGCCASE",
      added: 2,
      alreadyStored: ["again.csv line 2", "again.csv line 5"],
      repeated: [],
      availableAfter: 2,
    });
    expect((await sqlRow(`SELECT count(*)::int AS n FROM inventory_codes WHERE product_id = $1`, [productId])).n).toBe(
      5,
    );
  });
});
