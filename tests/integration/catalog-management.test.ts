// Catalog management's lib functions on the real database, seen through the real API over HTTP:
// lines and packs created and edited with validation and audit, the price list's preview, its
// all-or-nothing apply and its export, and a line's prices changed by a percentage. Every price
// change applies to new orders only.
import { describe, expect, it } from "vitest";
import { saveGameLine } from "@/lib/catalog/save-game-line";
import { savePack } from "@/lib/catalog/save-pack";
import { importPriceList, previewPriceList } from "@/lib/catalog/import-price-list";
import { exportCatalogCsv } from "@/lib/catalog/export-catalog-csv";
import { changeLinePrices } from "@/lib/catalog/change-line-prices";
import { listCatalogWithStock } from "@/lib/catalog/list-catalog-with-stock";
import { api } from "../helpers/api";
import { sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { expectBooksBalance, newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";

const ADMIN = "admin:owner@example.com";

useCleanDatabase();

const RACING = {
  slug: "racing",
  code: "RC",
  gameName: "Racing Stars",
  productName: "Racing Stars Coins",
  kind: "topup",
  requiredFields: [
    { field: "userId", label: "Racer ID" },
    { field: "serverId", label: "Region" },
  ],
  serverIdOptions: [
    { value: "eu", label: "Europe", aliases: ["EUR"] },
    { value: "na", label: "North America" },
  ],
  orderable: true,
  available: true,
  supplier: "sandbox",
};

async function lineId(slug: string): Promise<number> {
  return (await sqlRow(`SELECT id FROM game_lines WHERE slug = $1`, [slug])).id;
}

async function productRow(catalogId: string) {
  return await sqlRow(
    `SELECT p.id, p.pack_name, p.price_cents, p.active, p.stock_alert_below, p.supplier_sku, l.slug
       FROM products p JOIN game_lines l ON l.id = p.line_id WHERE p.catalog_id = $1`,
    [catalogId],
  );
}

/** Everything a price list can change, to prove that a refused apply changed nothing. */
async function catalogSnapshot() {
  return await sql(
    `SELECT catalog_id, pack_name, price_cents, active, stock_alert_below, supplier_sku, line_id, updated_at
       FROM products ORDER BY catalog_id`,
  );
}

async function auditCount(): Promise<number> {
  return (await sqlRow(`SELECT count(*)::int AS n FROM audit_log`)).n;
}

async function listedProduct(key: string, catalogId: string) {
  const res = await api("/products", { key });
  expect(res.status).toBe(200);
  return res.json.products.find((product: { id: string }) => product.id === catalogId);
}

describe("game lines", () => {
  it("creates a line that GET /services lists at once, audited", async () => {
    const { key } = await createAccount();
    const result = await saveGameLine({ fields: RACING, actor: ADMIN });
    expect(result).toMatchObject({ status: "created", message: "Line racing created." });
    const services = (await api("/services", { key })).json.services;
    expect(services.find((service: { slug: string }) => service.slug === "racing")).toEqual({
      productName: "Racing Stars Coins",
      slug: "racing",
      gameName: "Racing Stars",
      kind: "topup",
      required: RACING.requiredFields,
      status: "active",
      serverIdOptions: [
        { value: "eu", label: "Europe" },
        { value: "na", label: "North America" },
      ],
    });
    expect(
      await sql(`SELECT actor, target_id, details->>'slug' AS slug FROM audit_log WHERE action = 'line.create'`),
    ).toEqual([{ actor: ADMIN, target_id: String(await lineId("racing")), slug: "racing" }]);
  });

  it("refuses a line that breaks the contract's rules, naming each problem, and stores nothing", async () => {
    const before = await sql(`SELECT * FROM game_lines ORDER BY id`);
    const audits = await auditCount();
    const refused = async (fields: Record<string, unknown>) => {
      const result = await saveGameLine({ fields: { ...RACING, slug: "other", code: "OT", ...fields }, actor: ADMIN });
      expect(result.status).toBe("refused");
      return result.status === "refused" ? result.problems.join(" | ") : "";
    };
    expect(await refused({ slug: "Bad Slug" })).toContain("Slug: 1-32 lower-case letters");
    expect(await refused({ code: "rc1" })).toContain("Code: two capital letters");
    expect(await refused({ slug: "racing" })).toBe("Slug: racing is taken by another line");
    expect(await refused({ code: "BR" })).toBe("Code: BR is taken by line br");
    expect(await refused({ requiredFields: [{ field: "zoneId", label: "Zone" }], serverIdOptions: null })).toContain(
      "a top-up line needs userId",
    );
    expect(await refused({ requiredFields: [{ field: "userId", label: "Player" }] })).toContain(
      "only a line that asks for serverId lists servers",
    );
    expect(await refused({ serverIdOptions: null })).toContain("a line that asks for serverId lists its servers");
    expect(await refused({ requiredFields: [{ field: "email", label: "E-mail" }] })).toContain("Required fields");
    expect(
      await refused({
        serverIdOptions: [
          { value: "eu", label: "Europe" },
          { value: "na", label: "North America", aliases: ["europe"] },
        ],
      }),
    ).toContain('"europe" names both eu and na');
    expect(await refused({ kind: "gamekey" })).toContain("game-key and gift-card lines take only pid");
    expect(await refused({ gameName: "" })).toContain("Game name: required");
    expect(await sql(`SELECT * FROM game_lines ORDER BY id`)).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });

  it("edits a line: names and switches change, code and kind stay fixed once it has packs", async () => {
    const br = await lineId("br");
    const renamed = await saveGameLine({
      lineId: br,
      fields: {
        ...RACING,
        slug: "br",
        code: "BR",
        gameName: "Battle Royale Mobile",
        productName: "Battle Royale UC Top-Up",
        requiredFields: [{ field: "userId", label: "Player ID" }],
        serverIdOptions: null,
      },
      actor: ADMIN,
    });
    expect(renamed).toMatchObject({ status: "updated", message: "Line br saved: gameName changed." });
    const audit = await sqlRow(`SELECT details FROM audit_log WHERE action = 'line.update' ORDER BY id DESC LIMIT 1`);
    expect(audit.details).toEqual({
      slug: "br",
      changes: { gameName: { from: "Battle Royale", to: "Battle Royale Mobile" } },
    });
    const { key } = await createAccount();
    expect((await listedProduct(key, "SVCBR60")).gameName).toBe("Battle Royale Mobile");

    const recode = await saveGameLine({
      lineId: br,
      fields: {
        ...RACING,
        slug: "br",
        code: "BX",
        requiredFields: [{ field: "userId", label: "Player ID" }],
        serverIdOptions: null,
      },
      actor: ADMIN,
    });
    expect(recode.status).toBe("refused");
    expect((await sqlRow(`SELECT code FROM game_lines WHERE id = $1`, [br])).code).toBe("BR");
  });
});

describe("packs", () => {
  it("creates a top-up pack with an offer at the line's supplier, listed and orderable over HTTP at once", async () => {
    const racing = await lineId("racing");
    const created = await savePack({
      lineId: racing,
      fields: {
        catalogId: "SVCRC100",
        packName: "100 Coins",
        priceCents: 199,
        active: true,
        stockAlertBelow: null,
        supplierSku: "rc-100",
      },
      actor: ADMIN,
    });
    expect(created).toMatchObject({ status: "created" });
    expect(await productRow("SVCRC100")).toMatchObject({ price_cents: 199, supplier_sku: "rc-100", slug: "racing" });
    expect(
      await sql(
        `SELECT s.name, f.sku, f.cost_cents, f.priority FROM supplier_offers f JOIN suppliers s ON s.id = f.supplier_id
          JOIN products p ON p.id = f.product_id WHERE p.catalog_id = 'SVCRC100'`,
      ),
    ).toEqual([{ name: "sandbox", sku: "rc-100", cost_cents: 0, priority: 1 }]);
    const audit = await sqlRow(`SELECT actor, details FROM audit_log WHERE action = 'product.create'`);
    expect(audit).toMatchObject({
      actor: ADMIN,
      details: { catalogId: "SVCRC100", priceCents: 199, offerAt: "sandbox" },
    });

    const account = await createAccount({ balanceCents: 1_000 });
    expect(await listedProduct(account.key, "SVCRC100")).toMatchObject({
      slug: "racing",
      packName: "100 Coins",
      price: 1.99,
      orderable: true,
    });
    const placed = await order(account.key, { pid: "SVCRC100", trxid: newTrxid(), userId: "5550001", serverId: "EUR" });
    expect(placed.status).toBe(200);
    expect(placed.json).toMatchObject({ orderCreated: true, amountUsd: 1.99, game: "racing", serverId: "EUR" });
    await expectBooksBalance();
  });

  it("flags a top-up pack that no supplier carries", async () => {
    const line = await saveGameLine({
      fields: { ...RACING, slug: "kart", code: "KT", supplier: "nobody-yet" },
      actor: ADMIN,
    });
    expect(line.status).toBe("created");
    const created = await savePack({
      lineId: await lineId("kart"),
      fields: {
        catalogId: "SVCKT1",
        packName: "1 Kart",
        priceCents: 100,
        active: true,
        stockAlertBelow: null,
        supplierSku: "kt-1",
      },
      actor: ADMIN,
    });
    expect(created).toMatchObject({ status: "created" });
    expect(created.status === "created" && created.message).toContain("no supplier yet");
    const kart = (await listCatalogWithStock()).find((entry) => entry.slug === "kart")!;
    expect(kart.products.map((product) => [product.catalogId, product.supplierCount])).toEqual([["SVCKT1", 0]]);
    const racing = (await listCatalogWithStock()).find((entry) => entry.slug === "racing")!;
    expect(racing.products[0]!.supplierCount).toBe(1);
  });

  it("refuses packs that break their line's rules and stores nothing", async () => {
    const before = await catalogSnapshot();
    const audits = await auditCount();
    const keys = await lineId("keys");
    const racing = await lineId("racing");
    const pack = { packName: "X", priceCents: 100, active: true, stockAlertBelow: null, supplierSku: null };
    const problems = async (line: number, fields: Record<string, unknown>) => {
      const result = await savePack({ lineId: line, fields: { ...pack, ...fields }, actor: ADMIN });
      expect(result.status).toBe("refused");
      return result.status === "refused" ? result.problems.join(" | ") : "";
    };
    expect(await problems(keys, { catalogId: "SVCBR999" })).toContain("a pack of keys starts with SVCGK");
    expect(await problems(keys, { catalogId: "svcgkx" })).toContain("Catalog id: SVC, the line's code");
    expect(await problems(keys, { catalogId: "SVCGKINDIE" })).toBe("Catalog id: SVCGKINDIE already exists");
    expect(await problems(keys, { catalogId: "SVCGKNEW", supplierSku: "sku" })).toContain("only top-up packs have one");
    expect(await problems(racing, { catalogId: "SVCRC5" })).toContain("a top-up pack needs the SKU");
    expect(await problems(racing, { catalogId: "SVCRC5", supplierSku: "rc-5", stockAlertBelow: 3 })).toContain(
      "top-ups have no code stock",
    );
    expect(await problems(keys, { catalogId: "SVCGKNEW", priceCents: 0 })).toContain("Price: must be more than $0.00");
    expect(await problems(keys, { catalogId: "SVCGKNEW", stockAlertBelow: -1 })).toContain("Stock alert below");
    expect(await problems(keys, { catalogId: "SVCGKNEW", packName: "a\u0000b" })).toContain("control characters");
    expect(await catalogSnapshot()).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });

  it("edits a pack: the stock rule is stored, the catalog id is fixed, a new price applies to new orders only", async () => {
    const indie = (await productRow("SVCGKINDIE")).id;
    const fields = {
      catalogId: "SVCGKINDIE",
      packName: "Indie Game Key",
      priceCents: 599,
      active: true,
      stockAlertBelow: 2,
      supplierSku: null,
    };
    const account = await createAccount({ balanceCents: 5_000 });
    const first = await order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid() });
    expect(first.json.amountUsd).toBe(4.99);

    expect(await savePack({ productId: indie, fields, actor: ADMIN })).toMatchObject({
      status: "updated",
      message: "SVCGKINDIE saved: priceCents, stockAlertBelow changed (the new price applies to new orders only).",
    });
    expect(await productRow("SVCGKINDIE")).toMatchObject({ price_cents: 599, stock_alert_below: 2 });
    expect(
      (await sqlRow(`SELECT details FROM audit_log WHERE action = 'product.update' ORDER BY id DESC LIMIT 1`)).details,
    ).toEqual({
      catalogId: "SVCGKINDIE",
      changes: { priceCents: { from: 499, to: 599 }, stockAlertBelow: { from: null, to: 2 } },
    });
    const second = await order(account.key, { pid: "SVCGKINDIE", trxid: newTrxid() });
    expect(second.json.amountUsd).toBe(5.99);
    expect((await api(`/orders/${first.json.orderId}`, { key: account.key })).json.amountUsd).toBe(4.99);
    expect((await listedProduct(account.key, "SVCGKINDIE")).price).toBe(5.99);

    expect(await savePack({ productId: indie, fields, actor: ADMIN })).toMatchObject({ status: "unchanged" });
    const renamed = await savePack({ productId: indie, fields: { ...fields, catalogId: "SVCGKINDIE2" }, actor: ADMIN });
    expect(renamed).toEqual({
      status: "refused",
      problems: ["Catalog id: SVCGKINDIE is the pid clients order by and cannot change"],
    });
    await expectBooksBalance();
  });
});

const HEADER = "catalog_id,line,name,price_usd,active,stock_alert_below,supplier_sku";

describe("price list import", () => {
  it("previews every change, names each bad row, and applies nothing while one is bad", async () => {
    const csv = [
      HEADER,
      "SVCBR60,br,60 UC,1.09,true,,br-60",
      "SVCBR325,br,325 UC (promo),4.99,false,,br-325",
      "SVCGKNEW,keys,New Indie Key,7.50,true,4,",
      "SVCBR660,br,660 UC,ten dollars,true,,br-660",
      "SVCXX1,nowhere,Nothing,1.00,true,,",
      "SVCMB86,br,86 Diamonds,1.59,true,,moba-86",
      "SVCBR60,br,60 UC,1.19,true,,br-60",
      "SVCBR661,br,661 UC,9.99,maybe,,br-661",
    ].join("\n");
    const before = await catalogSnapshot();
    const audits = await auditCount();
    const preview = await previewPriceList(csv);
    expect(preview.errors).toEqual([
      { row: 5, message: expect.stringContaining("price_usd: Amount must be a positive number") },
      { row: 6, message: "line: no line nowhere" },
      { row: 7, message: "line: SVCMB86 belongs to moba; packs do not move between lines" },
      { row: 8, message: "SVCBR60 is also on line 2: one row per pack" },
      { row: 9, message: "active: true or false" },
    ]);
    expect(preview.changes).toEqual([
      {
        kind: "update",
        row: 2,
        catalogId: "SVCBR60",
        line: "br",
        changes: [{ field: "priceCents", from: 99, to: 109 }],
      },
      {
        kind: "update",
        row: 3,
        catalogId: "SVCBR325",
        line: "br",
        changes: [
          { field: "packName", from: "325 UC", to: "325 UC (promo)" },
          { field: "active", from: true, to: false },
        ],
      },
      {
        kind: "new",
        row: 4,
        catalogId: "SVCGKNEW",
        line: "keys",
        packName: "New Indie Key",
        priceCents: 750,
        active: true,
        stockAlertBelow: 4,
        supplierSku: null,
      },
    ]);
    expect(await importPriceList({ csv, digest: preview.digest, actor: ADMIN })).toMatchObject({ status: "invalid" });
    expect(await catalogSnapshot()).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });

  it("applies a fixed list in one transaction, audited with its summary, and GET /products shows it", async () => {
    const account = await createAccount({ balanceCents: 5_000 });
    const earlier = await order(account.key, { pid: "SVCBR660", trxid: newTrxid(), userId: "6200001" });
    expect(earlier.json.amountUsd).toBe(9.99);
    const csv = [
      HEADER,
      "SVCBR60,br,60 UC,1.09,true,,br-60",
      "SVCBR660,br,660 UC,10.99,true,,br-660",
      "SVCGKNEW,keys,New Indie Key,7.50,true,4,",
      "SVCMB86,moba,86 Diamonds,1.59,true,,moba-86",
    ].join("\r\n");
    const preview = await previewPriceList(csv);
    expect(preview.errors).toEqual([]);
    expect(preview.unchanged).toBe(1);
    expect(await importPriceList({ csv, digest: "not the preview", actor: ADMIN })).toMatchObject({ status: "stale" });

    const result = await importPriceList({ csv, digest: preview.digest, actor: ADMIN });
    expect(result).toMatchObject({ status: "applied", created: 1, updated: 2, unchanged: 1 });
    expect(await productRow("SVCGKNEW")).toMatchObject({ price_cents: 750, stock_alert_below: 4, slug: "keys" });
    expect(await productRow("SVCBR660")).toMatchObject({ price_cents: 1099 });
    const audit = await sqlRow(`SELECT actor, details FROM audit_log WHERE action = 'catalog.import'`);
    expect(audit.actor).toBe(ADMIN);
    expect(audit.details).toMatchObject({ created: 1, updated: 2, unchanged: 1, digest: preview.digest });
    expect(audit.details.changes).toHaveLength(3);

    const listed = await listedProduct(account.key, "SVCGKNEW");
    expect(listed).toMatchObject({ price: 7.5, kind: "gamekey", stock: 0, orderable: false });
    expect((await listedProduct(account.key, "SVCBR660")).price).toBe(10.99);
    // A price change applies to new orders only.
    const later = await order(account.key, { pid: "SVCBR660", trxid: newTrxid(), userId: "6200002" });
    expect(later.json.amountUsd).toBe(10.99);
    expect((await api(`/orders/${earlier.json.orderId}`, { key: account.key })).json.amountUsd).toBe(9.99);
    expect(
      (await sqlRow(`SELECT unit_price_cents FROM orders WHERE public_id = $1`, [earlier.json.orderId]))
        .unit_price_cents,
    ).toBe(999);

    // Applying the same list again: the catalog already matches, nothing happens.
    const again = await previewPriceList(csv);
    expect(again.changes).toEqual([]);
    expect(await importPriceList({ csv, digest: again.digest, actor: ADMIN })).toEqual({ status: "nothing_to_apply" });
    await expectBooksBalance();
  });

  it("refuses a previewed list once the catalog changed under it, applying none of it", async () => {
    const csv = [HEADER, "SVCBR60,br,60 UC,1.29,true,,br-60", "SVCGKAAA,keys,AAA Game Key,31.99,true,,"].join("\n");
    const preview = await previewPriceList(csv);
    expect(preview.changes).toHaveLength(2);
    const aaa = (await productRow("SVCGKAAA")).id;
    await savePack({
      productId: aaa,
      fields: {
        catalogId: "SVCGKAAA",
        packName: "AAA Game Key",
        priceCents: 3299,
        active: true,
        stockAlertBelow: null,
        supplierSku: null,
      },
      actor: ADMIN,
    });
    const before = await catalogSnapshot();
    const result = await importPriceList({ csv, digest: preview.digest, actor: ADMIN });
    expect(result.status).toBe("stale");
    expect(await catalogSnapshot()).toEqual(before);
    expect((await productRow("SVCBR60")).price_cents).toBe(109);
  });

  it("refuses files that are not a price list, naming the line", async () => {
    const first = async (csv: string) => (await previewPriceList(csv)).errors[0];
    expect(await first("sku,price\nA,1")).toEqual({ row: 1, message: expect.stringContaining("unknown column sku") });
    expect(await first("catalog_id,line,name,price_usd\nSVCBR60,br,60 UC,1")).toEqual({
      row: 1,
      message: "missing column active",
    });
    expect(await first(HEADER)).toEqual({ row: 1, message: "no rows under the header" });
    expect(await first(`${HEADER}\nSVCBR60,br,"60 UC,1.09,true,,br-60`)).toMatchObject({
      message: expect.stringContaining("not readable as CSV"),
    });
    expect(await first(`${HEADER}\nSVCBR60,br,60 UC,1.09,true`)).toEqual({
      row: 2,
      message: "5 cells, the header has 7",
    });
    expect(await first(`${HEADER}\nSVCBR60,br,60 UC,1.09,true,3,br-60`)).toEqual({
      row: 2,
      message: "stock_alert_below: top-ups have no code stock: leave it empty",
    });
    // Errors name the file's columns, as the person fixing the file sees them.
    expect(await first(`${HEADER}\nSVCGKZZ,keys,,1.00,true,,`)).toEqual({ row: 2, message: "name: required" });
    expect(await first(`${HEADER}\nSVCBRZZ,keys,Key,1.00,true,,`)).toEqual({
      row: 2,
      message: "catalog_id: a pack of keys starts with SVCGK",
    });
  });

  it("exports the catalog in the import's format, formula-safe, and the export imports back unchanged", async () => {
    const formulaName = '=HYPERLINK("http://evil.example","x")';
    const aaa = (await productRow("SVCGKAAA")).id;
    expect(
      await savePack({
        productId: aaa,
        fields: {
          catalogId: "SVCGKAAA",
          packName: formulaName,
          priceCents: 3299,
          active: true,
          stockAlertBelow: 1,
          supplierSku: null,
        },
        actor: ADMIN,
      }),
    ).toMatchObject({ status: "updated" });
    const csv = await exportCatalogCsv();
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines).toContain('"SVCBR60","br","60 UC","1.09","true","","br-60"');
    expect(lines).toContain(`"SVCGKAAA","keys","'=HYPERLINK(""http://evil.example"",""x"")","32.99","true","1",""`);
    const count = (await sqlRow(`SELECT count(*)::int AS n FROM products`)).n;
    expect(lines.filter((line) => line !== "")).toHaveLength(count + 1);

    const preview = await previewPriceList(csv);
    expect(preview).toMatchObject({ errors: [], changes: [], unchanged: count });
  });

  it("two admins applying the same previewed list at once: it is applied once, the other applies nothing", async () => {
    const csv = [HEADER, "SVCBR60,br,60 UC,1.19,true,,br-60", "SVCGKDUO,keys,Duo Key,3.00,true,2,"].join("\n");
    const preview = await previewPriceList(csv);
    expect(preview.changes).toHaveLength(2);
    const audits = (await sqlRow(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'catalog.import'`)).n;
    const results = await Promise.all([1, 2].map(() => importPriceList({ csv, digest: preview.digest, actor: ADMIN })));
    expect(results.map((result) => result.status).sort()).toEqual(["applied", "stale"]);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM products WHERE catalog_id = 'SVCGKDUO'`)).n).toBe(1);
    expect((await productRow("SVCBR60")).price_cents).toBe(119);
    expect((await sqlRow(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'catalog.import'`)).n).toBe(
      audits + 1,
    );
  });
});

describe("a line's prices by percent", () => {
  it("changes every pack of the line, rounded to the nearest cent (halves up), in one audited transaction", async () => {
    const moba = await lineId("moba");
    const account = await createAccount({ balanceCents: 5_000 });
    const earlier = await order(account.key, { pid: "SVCMB86", trxid: newTrxid(), userId: "7300001", zoneId: "1001" });
    expect(earlier.json.amountUsd).toBe(1.59);
    // 159 * 0.875 = 139.125 -> 139; 309 * 0.875 = 270.375 -> 270
    const result = await changeLinePrices({ lineId: moba, percent: "-12.5", actor: ADMIN });
    expect(result).toMatchObject({
      status: "updated",
      slug: "moba",
      changes: [
        { catalogId: "SVCMB86", fromCents: 159, toCents: 139 },
        { catalogId: "SVCMB172", fromCents: 309, toCents: 270 },
      ],
    });
    expect(
      (await sqlRow(`SELECT details FROM audit_log WHERE action = 'line.prices' ORDER BY id DESC LIMIT 1`)).details,
    ).toEqual({
      slug: "moba",
      percent: -12.5,
      rounding: "nearest cent, halves up",
      changes: [
        { catalogId: "SVCMB86", fromCents: 159, toCents: 139 },
        { catalogId: "SVCMB172", fromCents: 309, toCents: 270 },
      ],
    });
    // 139 * 1.5 = 208.5 -> 209 (a half rounds up)
    expect(await changeLinePrices({ lineId: moba, percent: "+50", actor: ADMIN })).toMatchObject({
      changes: [{ toCents: 209 }, { toCents: 405 }],
    });
    expect((await listedProduct(account.key, "SVCMB86")).price).toBe(2.09);
    const later = await order(account.key, { pid: "SVCMB86", trxid: newTrxid(), userId: "7300002", zoneId: "1001" });
    expect(later.json.amountUsd).toBe(2.09);
    expect((await api(`/orders/${earlier.json.orderId}`, { key: account.key })).json.amountUsd).toBe(1.59);
    await expectBooksBalance();
  });

  it("changes nothing when any pack would leave the allowed prices, or the percent is not one", async () => {
    const kart = await lineId("kart");
    await savePack({
      lineId: kart,
      fields: {
        catalogId: "SVCKT2",
        packName: "2 Karts",
        priceCents: 4,
        active: true,
        stockAlertBelow: null,
        supplierSku: "kt-2",
      },
      actor: ADMIN,
    });
    const before = await catalogSnapshot();
    const audits = await auditCount();
    // 4 * 0.1 = 0.4 -> 0 cents: refused for every pack of the line, SVCKT1 included.
    expect(await changeLinePrices({ lineId: kart, percent: "-90", actor: ADMIN })).toEqual({
      status: "refused",
      message: "Nothing changed: SVCKT2 would cost $0.00 (a price is from $0.01 to $100,000.00).",
    });
    for (const percent of ["abc", "0", "-95", "1001", "1.234", ""])
      expect((await changeLinePrices({ lineId: kart, percent, actor: ADMIN })).status, percent).toBe("refused");
    expect(await changeLinePrices({ lineId: 999_999, percent: "5", actor: ADMIN })).toEqual({
      status: "refused",
      message: "No such line.",
    });
    expect(await catalogSnapshot()).toEqual(before);
    expect(await auditCount()).toBe(audits);
  });
});
