// The worker killed with SIGKILL in the middle of failovers: every order's first supplier (a fake h2h
// supplier) refuses for its own reasons, the second delivers slowly, and the worker process is
// killed twice while orders move between them and wait for the second's answer. Once a worker runs
// again, every order is terminal, no reference was delivered twice across the two suppliers, every
// completed order was delivered once, and the books balance.
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCleanDatabase } from "../helpers/clean-database";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { expectEveryOrderSettledOnce, placeOrdersUntilStopped, sleep, startWorkerProcess } from "../helpers/fault-load";
import { createAccount } from "../helpers/fixtures";
import { sql } from "../helpers/db";
import { upsertSupplier } from "../helpers/suppliers";
import { suiteBaseUrl, suiteDatabaseUrl } from "../helpers/suite";

const children: ChildProcess[] = [];
let refusing: FakeH2hSupplier;
let delivering: FakeH2hSupplier;
let db: pg.Pool;

useCleanDatabase();
beforeAll(async () => {
  db = new pg.Pool({ connectionString: suiteDatabaseUrl(), max: 2 });
  refusing = await startFakeH2hSupplier({ partnerId: "p-refuses", secret: "s-refuses" });
  delivering = await startFakeH2hSupplier({ partnerId: "p-delivers", secret: "s-delivers" });
  for (let i = 0; i < 2000; i++) for (const fake of [refusing, delivering]) fake.addPlayer(`9${i}`, `P${i}`);
  refusing.failNext(
    "place",
    { kind: "status", httpStatus: 200, body: { status: "failed", message: "MAINTENANCE", failure: "supplier" } },
    100_000,
  );
  delivering.failNext("place", { kind: "delay", ms: 400 }, 100_000);
  const settings = (fake: FakeH2hSupplier, secretEnv: string) => ({
    baseUrl: fake.baseUrl,
    partnerId: fake.partnerId,
    timeoutMs: 2000,
    secretEnv,
  });
  const a = await upsertSupplier("refuses", "h2h", settings(refusing, "SUPPLIER_SECRET_REFUSES"));
  const b = await upsertSupplier("delivers", "h2h", settings(delivering, "SUPPLIER_SECRET_DELIVERS"));
  await sql(`DELETE FROM supplier_offers`);
  for (const [priority, supplierId] of [a, b].entries()) {
    await sql(
      `INSERT INTO supplier_offers (product_id, supplier_id, sku, cost_cents, priority)
       SELECT id, $1, 'br-60', 50, $2 FROM products WHERE catalog_id = 'SVCBR60'`,
      [supplierId, priority + 1],
    );
  }
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await refusing?.close();
  await delivering?.close();
  await db?.end();
});

function startWorker() {
  const worker = startWorkerProcess({
    DATABASE_URL: suiteDatabaseUrl(),
    SUPPLIER_SECRET_REFUSES: "s-refuses",
    // The fake suppliers listen on 127.0.0.1.
    SUPPLIERS_ALLOW_PRIVATE: "1",
    SUPPLIER_SECRET_DELIVERS: "s-delivers",
    SUPPLIER_POLL_MS: "200",
    SUPPLIER_POLL_MAX_MS: "500",
  });
  children.push(worker.child);
  return worker;
}

describe("the worker killed in the middle of failovers", () => {
  it("every order terminal, delivered at most once across suppliers, books balanced", async () => {
    const { key, accountId } = await createAccount({ balanceCents: 1_000_000 });
    let worker = startWorker();
    await worker.ready;
    const load = placeOrdersUntilStopped({ baseUrl: suiteBaseUrl(), key, prefix: "failover", paceMs: 60 });
    for (let kill = 0; kill < 2; kill++) {
      // Killed while deliveries are outstanding at the second supplier, after failovers from the first.
      await expect
        .poll(() => delivering.requests.filter((request) => request.route === "place").length, {
          timeout: 30_000,
          interval: 50,
        })
        .toBeGreaterThan(5 + kill * 10);
      worker.child.kill("SIGKILL");
      await sleep(300);
      worker = startWorker();
      await worker.ready;
    }
    await sleep(1500);
    await load.stop();

    const outcome = await expectEveryOrderSettledOnce(db, {
      accountId,
      placed: load.placed,
      diagnostics: () => worker.output.slice(-30).join("\n"),
    });
    const orders = await sql(`SELECT public_id, status, supplier FROM orders WHERE account_id = $1`, [accountId]);
    for (const order of orders) {
      const deliveries = refusing.deliveries(order.public_id) + delivering.deliveries(order.public_id);
      expect(deliveries, order.public_id).toBe(order.status === "completed" ? 1 : 0);
      if (order.status === "completed") expect(order.supplier).toBe("delivers");
    }
    expect(refusing.totalDeliveries()).toBe(0);
    console.log(
      `[failover-kills] ${outcome}; the refusing supplier delivered nothing, the other once per completed order`,
    );
  }, 240_000);
});
