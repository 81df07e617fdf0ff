// The dashboard's lib/ functions on the real database and the real API server: admin passwords,
// catalog changes the API obeys, code imports, order search and paging, settling flagged orders,
// the overview metrics (against an independent computation), ledgers and the audit log.
import { beforeAll, describe, expect, it } from "vitest";
import { decryptCode, fingerprintCode } from "@/lib/codes/code-crypto";
import { hashAdminPassword, matchesPasswordHash } from "@/lib/admin-users/hash-admin-password";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { verifyAdminPassword } from "@/lib/admin-users/verify-admin-password";
import { findActiveAdmin } from "@/lib/admin-users/find-active-admin";
import { parseCodeList } from "@/lib/catalog/parse-code-list";
import { importInventoryCodes } from "@/lib/catalog/import-inventory-codes";
import { listCatalogWithStock } from "@/lib/catalog/list-catalog-with-stock";
import { setProductPrice } from "@/lib/catalog/set-product-price";
import { setProductActive } from "@/lib/catalog/set-product-active";
import { setLineOrderable } from "@/lib/catalog/set-line-orderable";
import { searchOrders } from "@/lib/dashboard/search-orders";
import { listOrders } from "@/lib/dashboard/list-orders";
import { settleFlaggedOrder } from "@/lib/dashboard/settle-flagged-order";
import { readOrderMetrics } from "@/lib/dashboard/sql/read-order-metrics";
import { readOrderBacklog } from "@/lib/dashboard/read-order-backlog";
import { readOrderDetail } from "@/lib/dashboard/read-order-detail";
import { listAccountLedger } from "@/lib/dashboard/list-account-ledger";
import { listAuditEntries } from "@/lib/dashboard/list-audit-entries";
import { listAccounts } from "@/lib/dashboard/list-accounts";
import { recordAuditEntry } from "@/lib/audit/sql/record-audit-entry";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount, issueTestKey } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";

const ADMIN = "admin:ops@example.com";

useCleanDatabase();

async function productId(catalogId: string): Promise<number> {
  return (await sqlRow(`SELECT id FROM products WHERE catalog_id = $1`, [catalogId])).id;
}

async function orderRow(publicId: string) {
  return await sqlRow(`SELECT * FROM orders WHERE public_id = $1`, [publicId]);
}

describe("admin passwords", () => {
  it("hashes with scrypt (N=2^15) and a per-user salt, and checks in constant time", async () => {
    const [a, b] = await Promise.all([
      hashAdminPassword("a long enough secret"),
      hashAdminPassword("a long enough secret"),
    ]);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b); // salts differ
    expect(await matchesPasswordHash("a long enough secret", a)).toBe(true);
    expect(await matchesPasswordHash("a long enough secreT", a)).toBe(false);
    expect(await matchesPasswordHash("a long enough secret", "plain text")).toBe(false);
    // A tampered row cannot ask for absurd work or memory.
    expect(await matchesPasswordHash("x", a.replace("$32768$", "$1073741824$"))).toBe(false);
    expect(await matchesPasswordHash("x", a.replace("$32768$", "$1000$"))).toBe(false);
  });

  it("creates an admin once per email (case-insensitive), refuses weak passwords, and audits", async () => {
    expect(
      await createAdminUser({
        email: "not-an-email",
        password: "long enough password",
        role: "owner",
        actor: "cli:admin-create",
      }),
    ).toEqual({ status: "invalid_email" });
    expect(
      await createAdminUser({ email: "ops@example.com", password: "short", role: "owner", actor: "cli:admin-create" }),
    ).toEqual({
      status: "weak_password",
      minLength: 12,
    });
    const created = await createAdminUser({
      email: "  Ops@Example.com ",
      password: "long enough password",
      role: "owner",
      actor: "cli:admin-create",
    });
    expect(created).toMatchObject({
      status: "created",
      admin: { email: "ops@example.com", role: "owner", disabled: false },
    });
    expect(
      await createAdminUser({
        email: "OPS@example.com",
        password: "another long password",
        role: "owner",
        actor: "cli:admin-create",
      }),
    ).toEqual({ status: "exists" });
    const row = await sqlRow(`SELECT password_hash FROM admin_users WHERE email = 'ops@example.com'`);
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain("long enough password");
    expect(await sql(`SELECT actor, action, details FROM audit_log WHERE action = 'admin_user.create'`)).toEqual([
      { actor: "cli:admin-create", action: "admin_user.create", details: { email: "ops@example.com", role: "owner" } },
    ]);
  });

  it("verifies the password, records the sign-in, and refuses wrong, unknown and disabled admins", async () => {
    const admin = await verifyAdminPassword("OPS@example.com", "long enough password");
    expect(admin).toMatchObject({ email: "ops@example.com", lastLoginAt: expect.any(Date) });
    expect(admin).not.toHaveProperty("passwordHash");
    expect(
      (await sqlRow(`SELECT last_login_at FROM admin_users WHERE email = 'ops@example.com'`)).last_login_at,
    ).not.toBeNull();
    expect(await verifyAdminPassword("ops@example.com", "long enough passworD")).toBeUndefined();
    expect(await verifyAdminPassword("nobody@example.com", "long enough password")).toBeUndefined();
    expect(await findActiveAdmin("ops@example.com")).toMatchObject({ email: "ops@example.com" });

    await sql(`UPDATE admin_users SET disabled = true WHERE email = 'ops@example.com'`);
    expect(await verifyAdminPassword("ops@example.com", "long enough password")).toBeUndefined();
    expect(await findActiveAdmin("ops@example.com")).toBeUndefined(); // sessions of a disabled admin end at once
    await sql(`UPDATE admin_users SET disabled = false WHERE email = 'ops@example.com'`);
  });
});

describe("code lists", () => {
  it("reads pasted lines and CSV first columns, skips a header per source, and reports where each refusal is", () => {
    const parsed = parseCodeList([
      { label: "pasted list", text: "code\n aaaa-1111 \n\nBBBB-2222\naaaa-1111\r\n" },
      { label: "batch.csv", text: '\uFEFFCode,Note\n"CCCC,3333",x\nbbbb-2222;dup\nDDDD-4444' },
    ]);
    // Codes keep their case: only an exact repeat is a repeat ("bbbb-2222" is not "BBBB-2222").
    expect(parsed.codes).toEqual([
      { where: "pasted list line 2", code: "aaaa-1111" },
      { where: "pasted list line 4", code: "BBBB-2222" },
      { where: "batch.csv line 2", code: "CCCC,3333" },
      { where: "batch.csv line 3", code: "bbbb-2222" },
      { where: "batch.csv line 4", code: "DDDD-4444" },
    ]);
    expect(parsed.repeated).toEqual(["pasted list line 5"]);
    expect(parsed.invalid).toEqual([]);
    const bad = parseCodeList([{ label: "x", text: `ok-1\n,empty first\n${"Z".repeat(201)}\nbell\u0007` }]);
    expect(bad.invalid.map((entry) => entry.where)).toEqual(["x line 2", "x line 3", "x line 4"]);
  });
});

describe("importing codes", () => {
  it("stores new codes encrypted, refuses duplicates (stored for any product, or repeated), and audits counts only", async () => {
    const gc25 = await productId("SVCGC25");
    const before = (await sqlRow(`SELECT count(*)::int AS n FROM inventory_codes WHERE product_id = $1`, [gc25])).n;
    const result = await importInventoryCodes({
      productId: gc25,
      sources: [{ label: "pasted list", text: "IMP-0001\nIMP-0002\nDEMO-GKINDIE-0001\nIMP-0001\nimp-0001" }],
      actor: ADMIN,
    });
    expect(result).toEqual({
      status: "imported",
      catalogId: "SVCGC25",
      added: 3,
      alreadyStored: ["pasted list line 3"],
      repeated: ["pasted list line 4"],
      availableAfter: before + 3,
    });
    const rows = await sql(
      `SELECT ciphertext, code_hash, status FROM inventory_codes WHERE product_id = $1 ORDER BY id DESC LIMIT 3`,
      [gc25],
    );
    expect(rows.map((row) => decryptCode(row.ciphertext)).sort()).toEqual(["IMP-0001", "IMP-0002", "imp-0001"]);
    expect(rows.map((row) => row.code_hash).sort()).toEqual(
      [fingerprintCode("IMP-0001"), fingerprintCode("IMP-0002"), fingerprintCode("imp-0001")].sort(),
    );
    for (const row of rows) {
      expect(row.status).toBe("available");
      expect(row.ciphertext).not.toContain("IMP-");
    }
    const audit = await sqlRow(
      `SELECT actor, target_id, details FROM audit_log WHERE action = 'inventory.import' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit).toEqual({
      actor: ADMIN,
      target_id: String(gc25),
      details: { catalogId: "SVCGC25", added: 3, alreadyStored: 1, repeated: 1 },
    });
  });

  it("lets the database settle two uploads of the same codes racing each other", async () => {
    const gc10 = await productId("SVCGC10");
    const text = Array.from({ length: 40 }, (_, i) => `RACE-${i}`).join("\n");
    const results = await Promise.all([
      importInventoryCodes({ productId: gc10, sources: [{ label: "a", text }], actor: ADMIN }),
      importInventoryCodes({ productId: gc10, sources: [{ label: "b", text }], actor: ADMIN }),
    ]);
    const added = results.map((result) => (result.status === "imported" ? result.added : -1));
    expect(added[0]! + added[1]!).toBe(40);
    expect(
      (
        await sqlRow(`SELECT count(*)::int AS n FROM inventory_codes WHERE product_id = $1 AND code_hash = ANY($2)`, [
          gc10,
          Array.from({ length: 40 }, (_, i) => fingerprintCode(`RACE-${i}`)),
        ])
      ).n,
    ).toBe(40);
  });

  it("stores nothing from a list with unusable lines, and refuses top-up products and empty lists", async () => {
    const gc10 = await productId("SVCGC10");
    const count = async () => (await sqlRow(`SELECT count(*)::int AS n FROM inventory_codes`)).n;
    const before = await count();
    expect(
      await importInventoryCodes({
        productId: gc10,
        sources: [{ label: "f.csv", text: "GOOD-1\n,oops" }],
        actor: ADMIN,
      }),
    ).toEqual({
      status: "invalid_lines",
      invalid: [{ where: "f.csv line 2", reason: "empty first column" }],
    });
    expect(
      await importInventoryCodes({
        productId: await productId("SVCBR60"),
        sources: [{ label: "x", text: "TOPUP-1" }],
        actor: ADMIN,
      }),
    ).toEqual({
      status: "not_a_stock_product",
    });
    expect(
      await importInventoryCodes({ productId: gc10, sources: [{ label: "x", text: " \n\n" }], actor: ADMIN }),
    ).toEqual({ status: "empty" });
    expect(
      await importInventoryCodes({ productId: 999_999, sources: [{ label: "x", text: "A" }], actor: ADMIN }),
    ).toEqual({ status: "not_found" });
    expect(await count()).toBe(before);
  });

  it("lists every product with its stock as the database counts it", async () => {
    const catalog = await listCatalogWithStock();
    const counted = await sql(
      `SELECT p.catalog_id, count(*) FILTER (WHERE c.status = 'available')::int AS available FROM products p
         LEFT JOIN inventory_codes c ON c.product_id = p.id GROUP BY p.catalog_id`,
    );
    for (const line of catalog) {
      for (const product of line.products) {
        const expected = counted.find((row) => row.catalog_id === product.catalogId)!.available;
        if (line.kind === "topup") expect(product.stock, product.catalogId).toBeNull();
        else expect(product.stock?.available, product.catalogId).toBe(expected);
      }
    }
  });
});

describe("catalog changes the API obeys", () => {
  it("a new price applies to new orders only; placed orders keep their snapshot", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const br660 = await productId("SVCBR660");
    const first = await order(account.key, { pid: "SVCBR660", trxid: newTrxid(), userId: "8100001" });
    expect(first.json.amountUsd).toBe(9.99);
    expect(await setProductPrice({ productId: br660, priceCents: 1249, actor: ADMIN })).toEqual({
      status: "updated",
      catalogId: "SVCBR660",
      fromCents: 999,
      toCents: 1249,
    });
    const second = await order(account.key, { pid: "SVCBR660", trxid: newTrxid(), userId: "8100002" });
    expect(second.json.amountUsd).toBe(12.49);
    expect((await api(`/orders/${first.json.orderId}`, { key: account.key })).json.amountUsd).toBe(9.99);
    expect((await orderRow(first.json.orderId)).unit_price_cents).toBe(999);
    expect(
      (await api("/products", { key: account.key })).json.products.find((p: any) => p.id === "SVCBR660").price,
    ).toBe(12.49);
    expect(await setProductPrice({ productId: br660, priceCents: 0, actor: ADMIN })).toEqual({
      status: "invalid_price",
    });
    expect(await setProductPrice({ productId: br660, priceCents: 1249, actor: ADMIN })).toMatchObject({
      status: "unchanged",
    });
    expect(await sql(`SELECT actor, details FROM audit_log WHERE action = 'product.price' ORDER BY id`)).toEqual([
      { actor: ADMIN, details: { catalogId: "SVCBR660", fromCents: 999, toCents: 1249 } },
      { actor: ADMIN, details: { catalogId: "SVCBR660", fromCents: 1249, toCents: 1249 } },
    ]);
    await expectBooksBalance();
  });

  it("two admins changing one price or one switch at once: each audit entry names the price it replaced, one flip wins", async () => {
    const br60 = await productId("SVCBR60");
    const start = await sqlRow(`SELECT price_cents FROM products WHERE id = $1`, [br60]);
    const auditFrom = (await sqlRow(`SELECT max(id)::int AS id FROM audit_log`)).id ?? 0;
    const prices = await Promise.all([
      setProductPrice({ productId: br60, priceCents: 111, actor: "admin:a@example.com" }),
      setProductPrice({ productId: br60, priceCents: 222, actor: "admin:b@example.com" }),
    ]);
    expect(prices.map((p) => p.status).sort()).toEqual(["updated", "updated"]);
    const trail = await sql(`SELECT details FROM audit_log WHERE action = 'product.price' AND id > $1 ORDER BY id`, [
      auditFrom,
    ]);
    // A chain: the first replaced the starting price, the second replaced the first's.
    expect(trail[0]!.details.fromCents).toBe(start.price_cents);
    expect(trail[1]!.details.fromCents).toBe(trail[0]!.details.toCents);
    expect((await sqlRow(`SELECT price_cents FROM products WHERE id = $1`, [br60])).price_cents).toBe(
      trail[1]!.details.toCents,
    );
    const other = "admin:c@example.com";
    await setProductPrice({ productId: br60, priceCents: start.price_cents, actor: other });

    const flips = await Promise.all(
      [1, 2, 3].map(() => setProductActive({ productId: br60, active: false, actor: other })),
    );
    expect(flips.map((f) => f.status).sort()).toEqual(["unchanged", "unchanged", "updated"]);
    await setProductActive({ productId: br60, active: true, actor: other });
  });

  it("a disabled pack and a closed line refuse new orders, and come back", async () => {
    const account = await createAccount({ balanceCents: 10_000 });
    const mb86 = await productId("SVCMB86");
    expect(await setProductActive({ productId: mb86, active: false, actor: ADMIN })).toEqual({
      status: "updated",
      catalogId: "SVCMB86",
    });
    const refused = await order(account.key, { pid: "SVCMB86", trxid: newTrxid(), userId: "8200001", zoneId: "1234" });
    expect(refused.json).toMatchObject({ success: false, code: "PRODUCT_DISABLED" });
    expect((await api("/products", { key: account.key })).json.products.some((p: any) => p.id === "SVCMB86")).toBe(
      false,
    );
    await setProductActive({ productId: mb86, active: true, actor: ADMIN });

    const moba = await sqlRow(`SELECT id FROM game_lines WHERE slug = 'moba'`);
    expect(await setLineOrderable({ lineId: moba.id, orderable: false, actor: ADMIN })).toEqual({
      status: "updated",
      slug: "moba",
    });
    expect(
      (await order(account.key, { pid: "SVCMB86", trxid: newTrxid(), userId: "8200002", zoneId: "1234" })).json.error,
    ).toBe("GAME DISABLED");
    expect(
      (await api("/services", { key: account.key })).json.services.find((s: any) => s.slug === "moba").status,
    ).toBe("disabled");
    await setLineOrderable({ lineId: moba.id, orderable: true, actor: ADMIN });
    expect(
      (await order(account.key, { pid: "SVCMB86", trxid: newTrxid(), userId: "8200003", zoneId: "1234" })).status,
    ).toBe(200);
    expect(
      (
        await sql(
          `SELECT action FROM audit_log WHERE actor = $1 AND action IN ('product.enable', 'product.disable', 'line.open', 'line.close') ORDER BY id`,
          [ADMIN],
        )
      ).map((r) => r.action),
    ).toEqual(["product.disable", "product.enable", "line.close", "line.open"]);
  });
});

describe("finding orders", () => {
  let account: Awaited<ReturnType<typeof createAccount>>;
  const placed: { publicId: string; trxid: string; id: number }[] = [];

  beforeAll(async () => {
    account = await createAccount({ balanceCents: 10_000, username: "finder" });
    for (let i = 0; i < 3; i++) {
      const trxid = newTrxid("find");
      const res = await order(account.key, { pid: "SVCBR60", trxid, userId: "8300300" });
      placed.push({ publicId: res.json.orderId, trxid, id: (await orderRow(res.json.orderId)).id });
    }
    const withKey = await order(account.key, {
      pid: "SVCBR60",
      trxid: "shared-trx",
      idempotencyKey: "idem-key-42",
      userId: "8300301",
    });
    placed.push({ publicId: withKey.json.orderId, trxid: "shared-trx", id: (await orderRow(withKey.json.orderId)).id });
    const dotted = await order(account.key, { pid: "SVCBR60", trxid: "ends-with-dot.", userId: "8300302" });
    placed.push({
      publicId: dotted.json.orderId,
      trxid: "ends-with-dot.",
      id: (await orderRow(dotted.json.orderId)).id,
    });
  });

  it("by public id (any case, pasted with quotes), order id, order number, trxid, idempotency key and player id", async () => {
    const [a, keyed] = [placed[0]!, placed[3]!];
    for (const [query, matchedBy] of [
      [a.publicId, "public id"],
      [`"${a.publicId.toLowerCase()}".`, "public id"],
      [String(a.id), "order id"],
      [`#${a.id}`, "order id"],
      [String(parseInt(a.publicId.split("-")[2]!, 36)), "order number"],
      [` ${a.trxid} `, "trxid"],
      ["idem-key-42", "idempotency key"],
    ] as const) {
      const result = await searchOrders(query);
      expect(
        result.matches.map((m) => [m.publicId, m.matchedBy]),
        query,
      ).toEqual([[query === "idem-key-42" ? keyed.publicId : a.publicId, matchedBy]]);
    }
    // Punctuation is trimmed from pastes, but a trxid that really ends in it is still found.
    expect((await searchOrders("ends-with-dot.")).matches.map((m) => [m.publicId, m.matchedBy])).toEqual([
      [placed[4]!.publicId, "trxid"],
    ]);
    const byPlayer = await searchOrders("8300300");
    expect(byPlayer.matches.map((m) => m.publicId)).toEqual(
      placed
        .slice(0, 3)
        .map((p) => p.publicId)
        .reverse(),
    );
    expect(new Set(byPlayer.matches.map((m) => m.matchedBy))).toEqual(new Set(["player id"]));
  });

  it("ranks a reference that names several orders as GET /orders/:orderId does", async () => {
    // An order whose trxid is another order's numeric id, and one whose idempotency key is the same
    // text: the API picks the trxid match, and the dashboard lists it first, then the key match,
    // then the order with that numeric id.
    // Another account, so the paging test below still sees this block's five orders only.
    const other = await createAccount({ balanceCents: 10_000, username: "ranker" });
    const target = placed[1]!;
    const text = String(target.id);
    const byKey = await order(other.key, {
      pid: "SVCBR60",
      trxid: newTrxid("rank"),
      idempotencyKey: text,
      userId: "8300303",
    });
    const byTrxid = await order(other.key, {
      pid: "SVCBR60",
      trxid: text,
      idempotencyKey: newTrxid("rank-key"),
      userId: "8300304",
    });
    expect([byKey.status, byTrxid.status]).toEqual([200, 200]);
    const fromApi = await api(`/orders/${text}`, { key: other.key });
    expect(fromApi.status).toBe(200);
    expect([fromApi.json.orderId, fromApi.headers.get("order-matched-by")]).toEqual([byTrxid.json.orderId, "trxid"]);
    const fromDashboard = await searchOrders(`#${text}`);
    expect(fromDashboard.matches.map((m) => [m.publicId, m.matchedBy])).toEqual([
      [byTrxid.json.orderId, "trxid"],
      [byKey.json.orderId, "idempotency key"],
      [target.publicId, "order id"],
    ]);
  });

  it("finds nothing for a forged public id, an empty query or nonsense", async () => {
    const forged = placed[0]!.publicId.replace(/-[0-9A-Z]{6}$/, "-AAAAAA");
    for (const query of [forged, "", "   ", "no-such-thing", "0", "99999999999"])
      expect((await searchOrders(query)).matches, query).toEqual([]);
  });

  it("pages the order table newest first without gaps or repeats, and filters", async () => {
    const all = await sql(`SELECT id FROM orders ORDER BY id DESC`);
    const seen: number[] = [];
    let page = await listOrders({}, { limit: 2 });
    while (true) {
      seen.push(...page.orders.map((o) => o.id));
      if (page.olderCursor === undefined) break;
      page = await listOrders({}, { olderThan: page.olderCursor, limit: 2 });
    }
    expect(seen).toEqual(all.map((row) => row.id));
    const back = await listOrders({}, { newerThan: all[all.length - 1]!.id, limit: 2 });
    expect(back.orders.map((o) => o.id)).toEqual(all.slice(-3, -1).map((row) => row.id));
    expect(back.olderCursor).toBe(all[all.length - 2]!.id);

    const mine = await listOrders({ accountId: account.accountId, lineSlug: "br", status: "processing" });
    expect(mine.orders.map((o) => o.publicId)).toEqual(placed.map((p) => p.publicId).reverse());
    expect((await listOrders({ lineSlug: "gacha" })).orders).toEqual([]);
    const today = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
    expect((await listOrders({ accountId: account.accountId, createdFrom: today })).orders).toHaveLength(5);
    expect((await listOrders({ accountId: account.accountId, createdBefore: today })).orders).toHaveLength(0);
  });
});

describe("settling flagged orders", () => {
  async function flaggedOrder(account: Awaited<ReturnType<typeof createAccount>>) {
    const res = await order(account.key, { pid: "SVCBR325", trxid: newTrxid("flag"), userId: "8400777" });
    const row = await orderRow(res.json.orderId);
    // No worker runs in this file: the order stays processing, as a stuck one would.
    await sql(`UPDATE orders SET needs_admin = true WHERE id = $1`, [row.id]);
    return { id: row.id as number, publicId: res.json.orderId as string };
  }

  it("refuses orders that are not flagged, and changes nothing", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const res = await order(account.key, { pid: "SVCBR60", trxid: newTrxid(), userId: "8400001" });
    const { id } = await orderRow(res.json.orderId);
    expect(await settleFlaggedOrder({ orderId: id, outcome: "cancel_refund", reason: "", actor: ADMIN })).toEqual({
      status: "not_flagged",
      orderStatus: "processing",
    });
    expect(await settleFlaggedOrder({ orderId: 999_999, outcome: "complete", reason: "", actor: ADMIN })).toEqual({
      status: "not_found",
    });
    expect((await orderRow(res.json.orderId)).status).toBe("processing");
  });

  it("marks a flagged order completed: no refund, an order event and an audit entry with the admin", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const flagged = await flaggedOrder(account);
    expect(
      await settleFlaggedOrder({
        orderId: flagged.id,
        outcome: "complete",
        reason: "supplier confirmed",
        actor: ADMIN,
      }),
    ).toEqual({
      status: "settled",
      outcome: "complete",
      publicId: flagged.publicId,
      refundedCents: 0,
    });
    expect(await orderRow(flagged.publicId)).toMatchObject({
      status: "completed",
      needs_admin: false,
      refunded: false,
    });
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId])).balance_cents).toBe(
      501,
    );
    const detail = (await readOrderDetail(flagged.id))!;
    expect(detail.events.at(-1)).toMatchObject({
      fromStatus: "processing",
      toStatus: "completed",
      reason: "completed by an admin: supplier confirmed",
      data: { actor: ADMIN },
    });
    expect(detail.audit.map((a) => [a.actor, a.action, a.details])).toEqual([
      [
        ADMIN,
        "order.complete",
        { publicId: flagged.publicId, reason: "supplier confirmed", settled: true, refundedCents: 0 },
      ],
    ]);
    expect(detail.ledger.map((l) => [l.kind, l.amountCents])).toEqual([["debit", -499]]);
    await expectBooksBalance();
  });

  it("cancels and refunds exactly once when two admins click at the same time", async () => {
    const account = await createAccount({ balanceCents: 1_000 });
    const flagged = await flaggedOrder(account);
    const results = await Promise.all([
      settleFlaggedOrder({ orderId: flagged.id, outcome: "cancel_refund", reason: "a", actor: ADMIN }),
      settleFlaggedOrder({
        orderId: flagged.id,
        outcome: "cancel_refund",
        reason: "b",
        actor: "admin:second@example.com",
      }),
    ]);
    expect(results.filter((r) => r.status === "settled")).toEqual([
      { status: "settled", outcome: "cancel_refund", publicId: flagged.publicId, refundedCents: 499 },
    ]);
    expect(results.filter((r) => r.status !== "settled")[0]!.status).toMatch(/^(already_settled|not_flagged)$/);
    expect(
      (await sql(`SELECT kind, amount_cents FROM ledger_entries WHERE order_id = $1 ORDER BY id`, [flagged.id])).map(
        (r) => [r.kind, r.amount_cents],
      ),
    ).toEqual([
      ["debit", -499],
      ["refund", 499],
    ]);
    expect((await sqlRow(`SELECT balance_cents FROM accounts WHERE id = $1`, [account.accountId])).balance_cents).toBe(
      1_000,
    );
    expect((await api(`/orders/${flagged.publicId}`, { key: account.key })).json).toMatchObject({
      status: "cancelled",
      error: "CANCELLED BY ADMIN",
      refunded: true,
    });
    await expectBooksBalance();
  });
});

/** percentile_cont as PostgreSQL defines it: linear interpolation between the closest ranks. */
function percentileCont(values: number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = fraction * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (position - lower);
}

describe("overview metrics", () => {
  // A fixed "now" long before any real order, so only the orders placed here fall in its ranges.
  const now = new Date("2021-03-10T10:30:00Z");
  const at = (iso: string) => new Date(iso);
  // [created_at, finished_at after (s), status, order_created]
  const timeline: [string, number | null, "completed" | "cancelled" | "processing" | "pending", boolean][] = [
    ["2021-03-10T10:00:00.000Z", 2, "completed", true], // first instant of the current hour
    ["2021-03-10T10:29:59.000Z", 8, "completed", true],
    ["2021-03-10T10:15:00.000Z", 30, "cancelled", true],
    ["2021-03-10T10:20:00.000Z", null, "processing", true],
    ["2021-03-10T09:59:59.999Z", 1.5, "completed", true], // last instant of the previous hour
    ["2021-03-10T07:10:00.000Z", 0, "cancelled", false], // refused at placement
    ["2021-03-09T11:00:00.000Z", 4, "completed", true], // first hour of the 24 h range
    ["2021-03-09T10:59:59.999Z", 3, "completed", true], // just outside 24 h, inside 7 d
    ["2021-03-04T00:00:00.000Z", 5, "completed", true], // first day of the 7 d range
    ["2021-03-03T23:59:59.999Z", 6, "completed", true], // outside both
    ["2021-03-08T12:00:00.000Z", null, "pending", true],
  ];
  const orders: { created: Date; seconds: number | null; status: string; orderCreated: boolean; amount: number }[] = [];

  beforeAll(async () => {
    const account = await createAccount({ balanceCents: 100_000 });
    for (const [index, [created, seconds, status, orderCreated]] of timeline.entries()) {
      const res = await order(account.key, {
        pid: index % 2 ? "SVCBR60" : "SVCBR325",
        trxid: newTrxid("metrics"),
        userId: `85000${index}`,
      });
      // Test data: the outcome and times are written directly, as the worker would have left them.
      await sql(
        `UPDATE orders SET created_at = $2, finished_at = $3, status = $4, order_created = $5 WHERE public_id = $1`,
        [
          res.json.orderId,
          at(created),
          seconds === null ? null : new Date(at(created).getTime() + seconds * 1000),
          status,
          orderCreated,
        ],
      );
      orders.push({ created: at(created), seconds, status, orderCreated, amount: index % 2 ? 99 : 499 });
    }
  });

  function expectedFigures(from: Date, to: Date) {
    const inRange = orders.filter((o) => o.created >= from && o.created < to);
    const completed = inRange.filter((o) => o.status === "completed");
    const cancelled = inRange.filter((o) => o.status === "cancelled" && o.orderCreated).length;
    const times = completed.map((o) => o.seconds!);
    return {
      total: inRange.length,
      completed: completed.length,
      cancelled,
      refused: inRange.filter((o) => o.status === "cancelled" && !o.orderCreated).length,
      processing: inRange.filter((o) => o.status === "processing").length,
      pending: inRange.filter((o) => o.status === "pending").length,
      revenueCents: completed.reduce((sum, o) => sum + o.amount, 0),
      successRate: completed.length + cancelled === 0 ? null : completed.length / (completed.length + cancelled),
      p50Seconds: percentileCont(times, 0.5),
      p95Seconds: percentileCont(times, 0.95),
    };
  }

  it("per hour over 24 hours: UTC hour buckets, boundaries, refusals apart, percentiles of completed orders", async () => {
    const metrics = await readOrderMetrics("24h", now);
    expect(metrics.buckets).toHaveLength(24);
    expect(metrics.buckets[0]!.start.toISOString()).toBe("2021-03-09T11:00:00.000Z");
    expect(metrics.buckets[23]!.start.toISOString()).toBe("2021-03-10T10:00:00.000Z");
    for (const bucket of metrics.buckets) {
      const { start, end, p50Seconds, p95Seconds, ...counts } = bucket;
      expect(end.getTime() - start.getTime()).toBe(3_600_000);
      const { p50Seconds: p50, p95Seconds: p95, ...expectedCounts } = expectedFigures(start, end);
      expect(counts, start.toISOString()).toEqual(expectedCounts);
      for (const [actual, expected] of [
        [p50Seconds, p50],
        [p95Seconds, p95],
      ] as const) {
        if (expected === null) expect(actual, start.toISOString()).toBeNull();
        else expect(actual, start.toISOString()).toBeCloseTo(expected, 6);
      }
    }
    const current = metrics.buckets[23]!;
    expect(current).toMatchObject({
      total: 4,
      completed: 2,
      cancelled: 1,
      processing: 1,
      revenueCents: 499 + 99,
      successRate: 2 / 3,
    });
    expect(current.p50Seconds).toBeCloseTo(5, 6);
    const { p50Seconds, p95Seconds, ...totals } = expectedFigures(
      at("2021-03-09T11:00:00Z"),
      at("2021-03-10T11:00:00Z"),
    );
    expect(metrics.totals).toMatchObject(totals);
    expect(metrics.totals.total).toBe(7);
    expect(metrics.totals.p50Seconds).toBeCloseTo(p50Seconds!, 6);
    expect(metrics.totals.p95Seconds).toBeCloseTo(p95Seconds!, 6);
  });

  it("per day over 7 days", async () => {
    const metrics = await readOrderMetrics("7d", now);
    expect(metrics.buckets.map((b) => b.start.toISOString().slice(0, 10))).toEqual([
      "2021-03-04",
      "2021-03-05",
      "2021-03-06",
      "2021-03-07",
      "2021-03-08",
      "2021-03-09",
      "2021-03-10",
    ]);
    for (const { start, end, ...figures } of metrics.buckets) {
      const expected = expectedFigures(start, end);
      expect(figures.total, start.toISOString()).toBe(expected.total);
      expect(figures.revenueCents).toBe(expected.revenueCents);
      expect(figures.successRate).toBe(expected.successRate);
      if (expected.p50Seconds === null) expect(figures.p50Seconds).toBeNull();
      else expect(figures.p50Seconds).toBeCloseTo(expected.p50Seconds, 6);
    }
    expect(metrics.totals.total).toBe(10);
    expect(metrics.totals.pending).toBe(1);
  });

  it("counts open orders waiting for an admin apart from those the worker still has", async () => {
    const counts = await sqlRow(
      `SELECT count(*) FILTER (WHERE needs_admin)::int AS flagged, count(*) FILTER (WHERE NOT needs_admin)::int AS open
         FROM orders WHERE status IN ('pending', 'processing')`,
    );
    const backlog = await readOrderBacklog();
    expect(backlog.awaitingAdmin).toBe(counts.flagged);
    expect(backlog.inFlight).toBe(counts.open);
    expect(backlog.oldestAwaitingAdmin.every((o) => o.needsAdmin)).toBe(true);
  });
});

describe("accounts, ledgers and the audit log", () => {
  it("pages a ledger newest first with a continuous running balance", async () => {
    const account = await createAccount({ balanceCents: 2_000, username: "ledger_holder" });
    for (let i = 0; i < 4; i++)
      await order(account.key, { pid: "SVCBR60", trxid: newTrxid("led"), userId: `86000${i}` });
    const first = await listAccountLedger(account.accountId, { limit: 3 });
    const rest = await listAccountLedger(account.accountId, { limit: 3, olderThan: first.olderCursor });
    const entries = [...first.entries, ...rest.entries];
    expect(rest.olderCursor).toBeUndefined();
    expect(entries.map((e) => [e.kind, e.amountCents, e.balanceAfterCents])).toEqual([
      ["debit", -99, 1_604],
      ["debit", -99, 1_703],
      ["debit", -99, 1_802],
      ["debit", -99, 1_901],
      ["credit", 2_000, 2_000],
    ]);
    expect(entries.every((e) => e.continuous)).toBe(true);
    expect(entries[0]!.orderPublicId).toMatch(/^SVCAPI-BR-/);

    expect((await listAccounts({ query: "@ledger_holder" })).accounts.map((a) => a.id)).toEqual([account.accountId]);
    expect((await listAccounts({ query: String(account.accountId) })).accounts.map((a) => a.id)).toContain(
      account.accountId,
    );
    expect((await listAccounts({ query: "ledger_h" })).accounts[0]).toMatchObject({
      id: account.accountId,
      activeKeys: 1,
      orderCount: 4,
      balanceCents: 1_604,
    });
  });

  it("counts each listed account's active keys and orders exactly: revoked keys' orders and a deleted key's orders included", async () => {
    const holder = await createAccount({ balanceCents: 5_000 });
    const second = await issueTestKey(holder.accountId);
    const third = await issueTestKey(holder.accountId);
    // Covers two orders of 99 cents; its third is refused for balance, and is still an order.
    const other = await createAccount({ balanceCents: 198 });
    for (const [key, n] of [
      [holder.key, 3],
      [second.key, 2],
      [third.key, 1],
      [other.key, 2],
    ] as const) {
      for (let i = 0; i < n; i++)
        expect((await order(key, { pid: "SVCBR60", trxid: newTrxid("count"), userId: "1" })).status).toBe(200);
    }
    expect((await order(other.key, { pid: "SVCBR60", trxid: newTrxid("count"), userId: "1" })).json.orderCreated).toBe(
      false,
    );
    await sql(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [second.id]);
    await sql(`DELETE FROM api_keys WHERE id = $1`, [third.id]);

    const listed = (await listAccounts()).accounts.filter((a) => a.id === holder.accountId || a.id === other.accountId);
    const stored = await sql<{ account_id: number; n: number }>(
      `SELECT account_id, count(*)::int AS n FROM orders WHERE account_id = ANY($1) GROUP BY account_id`,
      [[holder.accountId, other.accountId]],
    );
    expect(Object.fromEntries(stored.map((row) => [row.account_id, row.n]))).toEqual({
      [holder.accountId]: 6,
      [other.accountId]: 3,
    });
    expect(listed.map(({ id, activeKeys, orderCount }) => ({ id, activeKeys, orderCount }))).toEqual([
      { id: other.accountId, activeKeys: 1, orderCount: 3 },
      { id: holder.accountId, activeKeys: 1, orderCount: 6 },
    ]);
  });

  it("filters the audit log by actor, action prefix and target, treating wildcards literally", async () => {
    await recordAuditEntry({
      actor: "admin:100%_sure@example.com",
      action: "account.ban",
      targetType: "account",
      targetId: 7,
    });
    await recordAuditEntry({ actor: "telegram:555", action: "account.unban", targetType: "account", targetId: 7 });
    expect((await listAuditEntries({ actor: "100%_sure" })).entries.map((e) => e.action)).toEqual(["account.ban"]);
    expect((await listAuditEntries({ actor: "100%_x" })).entries).toEqual([]);
    expect(
      (await listAuditEntries({ action: "account.", targetType: "account", targetId: "7" })).entries.map(
        (e) => e.actor,
      ),
    ).toEqual(["telegram:555", "admin:100%_sure@example.com"]);
    expect((await listAuditEntries({ action: "account." })).entries.every((e) => e.action.startsWith("account."))).toBe(
      true,
    );
    const firstPage = await listAuditEntries({}, { limit: 2 });
    const second = await listAuditEntries({}, { limit: 2, olderThan: firstPage.olderCursor });
    expect(second.entries[0]!.id).toBeLessThan(firstPage.entries[1]!.id);
  });
});
