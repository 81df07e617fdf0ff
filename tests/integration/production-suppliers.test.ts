// Production never pretends. `npm start` with NODE_ENV=production on an empty database, its web and
// worker processes over real HTTP: a funded account's live top-up is refused with INVALID_PRODUCT,
// charging nothing, until an owner adds a real supplier (the dashboard's own functions, an h2h
// supplier at the local fake); then that supplier fulfils it. A test key's orders still complete
// through the sandbox, verify goes to the real supplier, a sandbox-kind supplier an admin adds is
// never sent a live order, and a production start with verify and redeem at the sandbox is refused.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pointAtDatabase, projectRoot } from "@/lib/config/env";
import { getPrisma } from "@/lib/db/prisma";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { creditTestWallet } from "@/lib/wallet/test-wallet";
import { saveSupplierAccount, saveSupplierOffer } from "@/lib/suppliers/manage-suppliers";
import { supplierDestinationPolicy } from "@/lib/suppliers/supplier-destination";
import { setSupplierPaused } from "@/lib/suppliers/pause-supplier";
import { listPacksWithoutRealSupplier } from "@/lib/dashboard/sql/list-packs-without-real-supplier";
import { createAdminUser } from "@/lib/admin-users/create-admin-user";
import { api } from "../helpers/api";
import { signInOverHttp } from "../helpers/admin-session";
import { assertNextBuilt } from "../helpers/next-start";
import { enableTwoFactor, freshTotpCode } from "../helpers/two-factor";
import { closeSql } from "../helpers/db";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { createAccount } from "../helpers/fixtures";
import { newTrxid } from "../helpers/orders";
import { createEmptyDatabase, productionEnv, startService, type RunningService } from "../helpers/production-start";
import { TEST_ENV } from "../setup/test-env";

const OWNER = "admin:owner@example.com";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-production-suppliers-"));
let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
let service: RunningService;
let fake: FakeH2hSupplier;
let accountId: number;
let liveKey: string;
let testKey: string;

beforeAll(async () => {
  assertNextBuilt();
  database = await createEmptyDatabase(`production_suppliers_${process.pid}`);
  fake = await startFakeH2hSupplier({ partnerId: "p-real", secret: "s-real" });
  fake.addPlayer("5551234", "Player");
  service = await startService(
    productionEnv({
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      // The owner below seals the supplier's secret in this process: the service must open it.
      CODES_ENCRYPTION_KEY: TEST_ENV.CODES_ENCRYPTION_KEY!,
      H2H_BASE_URL: fake.baseUrl,
      H2H_PARTNER_ID: fake.partnerId,
      H2H_SECRET: fake.secret,
      // The real supplier here is the local fake h2h server, on a loopback address.
      SUPPLIERS_ALLOW_PRIVATE: "1",
      SUPPLIER_POLL_MS: "100",
      SUPPLIER_POLL_MAX_MS: "200",
      // The worker's looks (catalog changes among them) at a pace a test can wait for.
      WORKER_SWEEP_MS: "200",
      RATE_LIMIT_KEY_BURST: TEST_ENV.RATE_LIMIT_KEY_BURST!,
      RATE_LIMIT_KEY_PER_MINUTE: TEST_ENV.RATE_LIMIT_KEY_PER_MINUTE!,
      // The overview's banner is read from the built dashboard, as an owner sees it.
      SERVE_DASHBOARD: "1",
    }),
  );
  // This test's lib calls (the bot's funding, the dashboard's supplier forms) act on that database.
  pointAtDatabase(database.url);
  // A funded account, as an admin's /credit leaves it, with a live key and a funded test key.
  ({ accountId, key: liveKey } = await createAccount({ balanceCents: 10_000 }));
  const issued = await issueApiKey(accountId, "test", { livemode: false });
  if (issued.status !== "created") throw new Error(`no test key: ${issued.status}`);
  testKey = issued.key;
  await creditTestWallet(accountId, 5_000, "test");
}, 180_000);

afterAll(async () => {
  await service?.stop();
  await fake?.close();
  await closeSql();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const balanceOf = async (key: string) => (await api("/balance", { key }, service.base)).json.balanceUsd;
const ledgerEntries = () => getPrisma().ledgerEntry.count({ where: { accountId } });
const orderable = async (key: string, pid: string) =>
  (await api("/products", { key }, service.base)).json.products.find((p: { id: string }) => p.id === pid)?.orderable;

/** A real (h2h) supplier account at the local fake, as an owner adds it on the Suppliers page. */
function saveFakeH2hAccount(name: string) {
  return saveSupplierAccount({
    name,
    kind: "h2h",
    settings: { baseUrl: fake.baseUrl, partnerId: fake.partnerId, timeoutMs: 2000 },
    secret: fake.secret,
    actor: OWNER,
    policy: supplierDestinationPolicy({ suppliersAllowPrivate: true }),
  });
}

async function finished(key: string, orderId: string) {
  const done = await api(`/orders/${orderId}?wait=20`, { key }, service.base);
  expect(done.status, done.text).toBe(200);
  return done.json;
}

describe("production: live orders need a real supplier", () => {
  it("seeds no sandbox supplier and no offer", async () => {
    expect(await getPrisma().supplier.count()).toBe(0);
    expect(await getPrisma().supplierOffer.count()).toBe(0);
    expect(await getPrisma().product.count({ where: { line: { kind: "topup" } } })).toBeGreaterThan(0);
  });

  it("refuses a live top-up no real supplier carries, charging nothing; a test key's still completes in the sandbox", async () => {
    expect(await orderable(liveKey, "SVCBR60")).toBe(false);
    expect(await orderable(testKey, "SVCBR60")).toBe(true);
    expect((await listPacksWithoutRealSupplier()).map((pack) => pack.catalogId)).toContain("SVCBR60");

    const before = await ledgerEntries();
    const refused = await api(
      "/orders",
      { key: liveKey, body: { pid: "SVCBR60", trxid: "prod-first", userId: "5551234" } },
      service.base,
    );
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json).toMatchObject({ success: false, code: "INVALID_PRODUCT" });
    expect(refused.json.error).toContain("no supplier carries this pack");
    expect(await balanceOf(liveKey)).toBe(100);
    expect(await ledgerEntries()).toBe(before);
    expect(await getPrisma().order.count({ where: { accountId } })).toBe(0);

    const test = await api(
      "/orders",
      { key: testKey, body: { pid: "SVCBR60", trxid: newTrxid("test"), userId: "5551234" } },
      service.base,
    );
    expect(test.status, test.text).toBe(200);
    expect(await finished(testKey, test.json.orderId)).toMatchObject({ status: "completed", livemode: false });
    expect(await balanceOf(testKey)).toBe(49.01);
    expect(fake.totalDeliveries()).toBe(0);
  });

  it("fulfils it at the real supplier an owner adds, with the trxid the refusal left free", async () => {
    expect(await saveFakeH2hAccount("real-h2h")).toMatchObject({ status: "saved" });
    expect(
      await saveSupplierOffer({
        catalogId: "SVCBR60",
        supplierName: "real-h2h",
        sku: "br-60",
        costCents: 80,
        priority: 1,
        actor: OWNER,
      }),
    ).toMatchObject({ status: "saved" });
    expect(await orderable(liveKey, "SVCBR60")).toBe(true);
    expect(await orderable(liveKey, "SVCBR325")).toBe(false);
    const unsupplied = (await listPacksWithoutRealSupplier()).map((pack) => pack.catalogId);
    expect(unsupplied).not.toContain("SVCBR60");
    expect(unsupplied).toContain("SVCBR325");

    const placed = await api(
      "/orders",
      { key: liveKey, body: { pid: "SVCBR60", trxid: "prod-first", userId: "5551234" } },
      service.base,
    );
    expect(placed.status, placed.text).toBe(200);
    expect(await finished(liveKey, placed.json.orderId)).toMatchObject({ status: "completed", livemode: true });
    expect(fake.deliveries(placed.json.orderId)).toBe(1);
    const stored = await getPrisma().order.findFirstOrThrow({ where: { publicId: placed.json.orderId } });
    expect(stored.supplier).toBe("real-h2h");
    expect(await balanceOf(liveKey)).toBe(99.01);
  });

  it("never sends a live order to a sandbox-kind supplier, even one an admin put first", async () => {
    expect(await saveSupplierAccount({ name: "sandbox", kind: "sandbox", settings: {}, actor: OWNER })).toMatchObject({
      status: "saved",
    });
    for (const [pid, sku] of [
      ["SVCBR60", "br-60"],
      ["SVCBR325", "br-325"],
    ]) {
      expect(
        await saveSupplierOffer({
          catalogId: pid!,
          supplierName: "sandbox",
          sku: sku!,
          costCents: 0,
          priority: 1,
          actor: OWNER,
        }),
      ).toMatchObject({ status: "saved" });
    }
    await saveSupplierOffer({
      catalogId: "SVCBR60",
      supplierName: "real-h2h",
      sku: "br-60",
      costCents: 80,
      priority: 2,
      actor: OWNER,
    });
    // Carried by the sandbox alone: still refused.
    expect(await orderable(liveKey, "SVCBR325")).toBe(false);
    const refused = await api(
      "/orders",
      { key: liveKey, body: { pid: "SVCBR325", trxid: newTrxid("sbx"), userId: "5551234" } },
      service.base,
    );
    expect(refused.json.code).toBe("INVALID_PRODUCT");

    // The worker skips the sandbox ahead of the real supplier.
    const placed = await api(
      "/orders",
      { key: liveKey, body: { pid: "SVCBR60", trxid: newTrxid("skip"), userId: "5551234" } },
      service.base,
    );
    expect(placed.status, placed.text).toBe(200);
    expect(await finished(liveKey, placed.json.orderId)).toMatchObject({ status: "completed" });
    expect(fake.deliveries(placed.json.orderId)).toBe(1);
    const stored = await getPrisma().order.findFirstOrThrow({ where: { publicId: placed.json.orderId } });
    expect({ supplier: stored.supplier, tried: stored.triedSupplierIds.length }).toEqual({
      supplier: "real-h2h",
      tried: 1,
    });
  });

  it("an order with a real supplier that an admin then turns into a sandbox is flagged, never completed by it", async () => {
    expect(await saveFakeH2hAccount("turncoat")).toMatchObject({ status: "saved" });
    await saveSupplierOffer({
      catalogId: "SVCBR325",
      supplierName: "turncoat",
      sku: "br-325",
      costCents: 300,
      priority: 2,
      actor: OWNER,
    });
    // Its answers are lost: the order stays with it, asked about again and again.
    fake.failNext("place", { kind: "lose-answer" });
    fake.behave("check", { kind: "lose-answer" });
    try {
      const placed = await api(
        "/orders",
        { key: liveKey, body: { pid: "SVCBR325", trxid: newTrxid("turn"), userId: "5551234" } },
        service.base,
      );
      expect(placed.status, placed.text).toBe(200);
      const stored = () => getPrisma().order.findFirstOrThrow({ where: { publicId: placed.json.orderId } });
      await expect.poll(async () => (await stored()).attempts).toBeGreaterThan(1);
      const turncoat = await getPrisma().supplier.findUniqueOrThrow({ where: { name: "turncoat" } });
      expect(
        await saveSupplierAccount({
          name: "turncoat",
          kind: "sandbox",
          settings: {},
          version: String(turncoat.updatedAt.getTime()),
          actor: OWNER,
        }),
      ).toMatchObject({ status: "saved" });
      await expect.poll(async () => (await stored()).needsAdmin).toBe(true);
      const flagged = await stored();
      expect(flagged).toMatchObject({ supplier: "turncoat", refunded: false });
      expect(["pending", "processing"]).toContain(flagged.status);
    } finally {
      fake.behave("check", undefined);
    }
  });

  it("a paused real supplier does not count: the pack reads unorderable, the overview lists it, and live keys are told", async () => {
    const supplier = await getPrisma().supplier.findUniqueOrThrow({ where: { name: "real-h2h" } });
    // The last product.updated of the pack the live account was told, as GET /events lists it.
    const lastTold = async () => {
      const events = (await api("/events?limit=500", { key: liveKey }, service.base)).json.events as {
        type: string;
        data: { id: string; orderable: boolean; unorderableReason?: string };
      }[];
      const told = events.filter((event) => event.type === "product.updated" && event.data.id === "SVCBR60");
      return told.at(-1)?.data;
    };
    await setSupplierPaused({ supplierId: supplier.id, paused: true, actor: OWNER });
    try {
      expect(await orderable(liveKey, "SVCBR60")).toBe(false);
      const listed = (await listPacksWithoutRealSupplier()).find((pack) => pack.catalogId === "SVCBR60");
      expect(listed?.pausedSuppliers).toEqual(["real-h2h"]);
      await expect
        .poll(lastTold, { timeout: 30_000, interval: 100 })
        .toMatchObject({ orderable: false, unorderableReason: "INVALID_PRODUCT" });
    } finally {
      await setSupplierPaused({ supplierId: supplier.id, paused: false, actor: OWNER });
    }
    expect(await orderable(liveKey, "SVCBR60")).toBe(true);
    await expect.poll(lastTold, { timeout: 30_000, interval: 100 }).toMatchObject({ orderable: true });
  });

  it("the dashboard's overview lists the live packs no real supplier carries", async () => {
    const email = "owner@example.com";
    const password = "a-long-enough-password";
    expect(await createAdminUser({ email, password, role: "owner", actor: "test" })).toMatchObject({
      status: "created",
    });
    const { secret } = await enableTwoFactor(email);
    const signedIn = await signInOverHttp({
      email,
      password,
      code: await freshTotpCode(email, secret),
      base: service.base,
    });
    expect(signedIn.error).toBe("");
    const overview = await fetch(`${service.base}/admin`, { headers: { cookie: signedIn.sessionCookie! } });
    const html = await overview.text();
    expect(overview.status).toBe(200);
    expect(html).toContain('data-testid="unsupplied-packs"');
    expect(html).toContain('data-unsupplied="SVCBR325"');
    expect(html).not.toContain('data-unsupplied="SVCBR60"');
  });

  it("verify goes to the real supplier (SUPPLIER=h2h), not the sandbox", async () => {
    fake.addPlayer("7770001", "RealNick");
    const verified = await api("/brvvfy", { key: liveKey, body: { playerId: "7770001" } }, service.base);
    expect(verified.status, verified.text).toBe(200);
    expect(verified.json).toMatchObject({ valid: true, nickname: "RealNick" });
    expect(fake.requests.some((request) => request.route === "verify")).toBe(true);
  });
});

describe("production: verify and redeem need a real supplier at start", () => {
  const start = (script: string, extra: Record<string, string>) => {
    const environment = productionEnv({ DATABASE_URL: database.url, DATA_DIR: dataDir, ...extra });
    for (const [name, value] of Object.entries(extra)) if (value === "") delete environment[name];
    const result = spawnSync(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", script)], {
      env: environment,
      encoding: "utf8",
      timeout: 30_000,
    });
    return { status: result.status, output: result.stdout + result.stderr };
  };

  it.each(["serve.ts", "worker.ts", "start.ts"])("%s refuses SUPPLIER=sandbox, and SUPPLIER unset", (script) => {
    for (const supplier of ["sandbox", ""]) {
      const refused = start(script, { SUPPLIER: supplier });
      expect(refused.status, refused.output).not.toBe(0);
      expect(refused.output).toContain("Refusing to start in production with SUPPLIER=sandbox");
      expect(refused.output).toContain("SUPPLIER=h2h with H2H_BASE_URL, H2H_PARTNER_ID and H2H_SECRET");
    }
  });

  it("names the h2h variables that are missing", () => {
    const refused = start("serve.ts", { H2H_PARTNER_ID: "", H2H_SECRET: "" });
    expect(refused.status, refused.output).not.toBe(0);
    expect(refused.output).toContain("SUPPLIER=h2h");
    expect(refused.output).toContain("H2H_PARTNER_ID, H2H_SECRET");
    expect(refused.output).not.toContain("H2H_BASE_URL,");
  });
});
