// Ids a caller sees say nothing about how much the rest of the platform did (docs/security.md):
// public order ids carry a keyed permutation of the order id, ledger entries are numbered per
// account, redemption ids are permuted. Public ids handed out before the permutation (the raw id
// in base36) keep resolving.
import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { TEST_ENV } from "../setup/test-env";

useCleanDatabase();

/** The public id as the code before the permutation wrote it: the raw id in base36, then its hash. */
function oldFormatPublicId(lineCode: string, id: number): string {
  const digest = crypto.createHmac("sha256", TEST_ENV.APP_SECRET!).update(`order:${id}`).digest();
  const hash = (digest.readUIntBE(0, 6) % 36 ** 6).toString(36).toUpperCase().padStart(6, "0");
  return `SVCAPI-${lineCode}-${id.toString(36).toUpperCase()}-${hash}`;
}

const ORDERS = 10;
let owner: Awaited<ReturnType<typeof createAccount>>;
let other: Awaited<ReturnType<typeof createAccount>>;
let placed: { publicId: string; id: number }[] = [];

beforeAll(async () => {
  owner = await createAccount({ balanceCents: 10_000 });
  other = await createAccount({ balanceCents: 10_000 });
  placed = [];
  for (let n = 0; n < ORDERS; n++) {
    const res = await order(owner.key, { pid: "SVCBR60", trxid: newTrxid("vol"), userId: "5123456" });
    expect(res.status, res.text).toBe(200);
    const { id } = await sqlRow(`SELECT id FROM orders WHERE public_id = $1`, [res.json.orderId]);
    placed.push({ publicId: res.json.orderId, id });
  }
});

describe("public order ids", () => {
  it("keep the documented form, and their base36 parts are neither the ids nor in their order", () => {
    const ids = placed.map((p) => p.id);
    // Consecutive orders of the whole platform: exactly what the old ids gave away.
    expect(ids).toEqual(ids.map((_, n) => ids[0]! + n));
    const middles = placed.map((p) => {
      const match = /^SVCAPI-BR-([0-9A-Z]+)-[0-9A-Z]{6}$/.exec(p.publicId);
      expect(match, p.publicId).not.toBeNull();
      return match![1]!;
    });
    // One length for every id, so not even the number of digits grows with the platform.
    expect(new Set(middles.map((m) => m.length))).toEqual(new Set([8]));
    const values = middles.map((m) => parseInt(m, 36));
    for (const [n, value] of values.entries()) expect(value).not.toBe(ids[n]);
    const ascending = [...values].sort((a, b) => a - b);
    const descending = [...ascending].reverse();
    expect(values).not.toEqual(ascending);
    expect(values).not.toEqual(descending);
    // No constant step either: consecutive ids do not map to evenly spaced values.
    const steps = new Set(values.slice(1).map((value, n) => value - values[n]!));
    expect(steps.size).toBeGreaterThan(1);
  });

  it("each resolves on GET /orders/:orderId for its owner, and is 404 for another account", async () => {
    for (const { publicId } of placed.slice(0, 3)) {
      const own = await api(`/orders/${publicId}`, { key: owner.key });
      expect(own.status).toBe(200);
      expect(own.json.orderId).toBe(publicId);
      expect(own.headers.get("order-matched-by")).toBe("publicId");
      const foreign = await api(`/orders/${publicId}`, { key: other.key });
      expect(foreign.status).toBe(404);
      expect(foreign.json).toEqual({ success: false, error: "ORDER NOT FOUND", code: "ORDER_NOT_FOUND" });
    }
  });

  it("an id handed out in the old form (raw base36 id) still resolves, for its owner only", async () => {
    const { id } = placed.at(-1)!;
    const oldId = oldFormatPublicId("BR", id);
    // The row as the old code wrote it: the old-form id stored with the order.
    await sql(`UPDATE orders SET public_id = $1 WHERE id = $2`, [oldId, id]);
    const res = await api(`/orders/${oldId}`, { key: owner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.json.orderId).toBe(oldId);
    expect(res.headers.get("order-matched-by")).toBe("publicId");
    expect((await api(`/orders/${oldId.toLowerCase()}`, { key: owner.key })).json.orderId).toBe(oldId);
    expect((await api(`/orders/${oldId}`, { key: other.key })).status).toBe(404);
    // Its history entry and a bad hash in the old form.
    const history = await api(`/history?limit=1`, { key: owner.key });
    expect(history.json.orders[0].orderId).toBe(oldId);
    const forged = oldId.slice(0, -1) + (oldId.endsWith("0") ? "1" : "0");
    expect((await api(`/orders/${forged}`, { key: owner.key })).status).toBe(404);
  });
});

describe("order numbers: the number a client reads from its own public id", () => {
  /** What an integrator does: the public id's middle part, read as a base36 number. */
  const numberIn = (publicId: string) => parseInt(publicId.split("-")[2]!, 36);

  it("finds the order, with and without ?by=id, and says it matched by id", async () => {
    const { publicId } = placed[0]!;
    const number = numberIn(publicId);
    for (const path of [`/orders/${number}`, `/orders/${number}?by=id`, `/orders/%23${number}?by=id`]) {
      const res = await api(path, { key: owner.key });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(res.json.orderId).toBe(publicId);
      expect(res.headers.get("order-matched-by")).toBe("id");
    }
  });

  it("another account's number is 404, by any path", async () => {
    const number = numberIn(placed[1]!.publicId);
    for (const path of [`/orders/${number}`, `/orders/${number}?by=id`]) {
      const res = await api(path, { key: other.key });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ success: false, error: "ORDER NOT FOUND", code: "ORDER_NOT_FOUND" });
    }
  });

  it("the internal id, which no answer shows, is not an order number", async () => {
    const { id, publicId } = placed[2]!;
    expect(numberIn(publicId)).not.toBe(id);
    expect((await api(`/orders/${id}?by=id`, { key: owner.key })).status).toBe(404);
  });

  it("an old-form public id's number (its raw id) finds its order", async () => {
    const { id } = placed[3]!;
    const oldId = oldFormatPublicId("BR", id);
    await sql(`UPDATE orders SET public_id = $1 WHERE id = $2`, [oldId, id]);
    expect(numberIn(oldId)).toBe(id);
    const res = await api(`/orders/${numberIn(oldId)}?by=id`, { key: owner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.json.orderId).toBe(oldId);
    expect((await api(`/orders/${numberIn(oldId)}`, { key: other.key })).status).toBe(404);
  });
});

describe("ledger entry ids", () => {
  it("are the entry's number within the account, in the JSON page and both CSVs, whatever other accounts posted", async () => {
    const fresh = await createAccount({ balanceCents: 500 });
    await order(fresh.key, { pid: "SVCBR60", trxid: newTrxid("led"), userId: "5123456" });
    const global = await sql<{ id: number }>(`SELECT id FROM ledger_entries WHERE account_id = $1 ORDER BY id`, [
      fresh.accountId,
    ]);
    expect(global.length).toBe(2);
    // Other accounts posted first, so the table's ids are not 1 and 2.
    expect(global[0]!.id).toBeGreaterThan(2);

    const page = await api(`/ledger`, { key: fresh.key });
    expect(page.status).toBe(200);
    expect(page.json.entries.map((e: { id: number; type: string }) => [e.id, e.type])).toEqual([
      [2, "debit"],
      [1, "credit"],
    ]);
    const csvPage = await api(`/ledger?format=csv`, { key: fresh.key });
    expect(
      csvPage.text
        .split("\r\n")
        .slice(1, 3)
        .map((line) => line.split(",")[0]),
    ).toEqual(['"2"', '"1"']);

    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const statement = await api(`/ledger?format=csv&from=${from}&to=${to}`, { key: fresh.key });
    expect(statement.status, statement.text).toBe(200);
    const ids = statement.text
      .split("\r\n")
      .filter((line) => /^"\d+"/.test(line))
      .map((line) => line.split(",")[0]);
    expect(ids).toEqual(['"1"', '"2"']);
  });
});

describe("redemption ids", () => {
  it("two consecutive redemptions do not get consecutive ids, nor the table's ids", async () => {
    const answers = [];
    for (const code of ["VOLA-0001-AAAA", "VOLB-0002-BBBB", "VOLC-0003-CCCC"]) {
      const res = await api("/rdmbr", { key: owner.key, body: { playerId: "5551234", code } });
      expect(res.status, res.text).toBe(200);
      answers.push(res.json.redemptionId as number);
    }
    const rows = await sql<{ id: number }>(
      `SELECT id FROM redemptions WHERE account_id = $1 AND kind = 'redeem-br' ORDER BY id`,
      [owner.accountId],
    );
    expect(rows.map((r) => r.id)).toEqual([rows[0]!.id, rows[0]!.id + 1, rows[0]!.id + 2]);
    for (const [n, shown] of answers.entries()) expect(shown).not.toBe(rows[n]!.id);
    expect(answers[1]! - answers[0]!).not.toBe(1);
    expect(answers[2]! - answers[1]!).not.toBe(1);
  });
});
