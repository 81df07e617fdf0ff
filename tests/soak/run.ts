// `npm run soak -- --seed <n> --minutes <m>`: the whole service started as it runs at scale
// (topology.ts), a seeded schedule of operations and faults (plan.ts) thrown at it, and the
// invariants (invariants.ts) checked while it runs and at the end. Exits 1 on any violation, printing
// the seed, the invariant, the history around it and the command that replays the run
// (docs/reliability.md).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { closePool } from "@/lib/db/pool";
import { disconnectPrisma } from "@/lib/db/prisma";
import { loadOpenApiValidator } from "../helpers/openapi-validator";
import { SoakClient } from "./client";
import { FaultInjector } from "./faults";
import { SoakHistory } from "./history";
import { checkBooks, checkSettled, checkWebhooks, verifyArrivals } from "./invariants";
import { newSoakState, runOperation } from "./operations";
import { planSoak, type SoakPlan } from "./plan";
import { startTopology, type Topology } from "./topology";
import { seedSoakWorld } from "./world";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** After the last fault ends, every order must be terminal within this. */
const SETTLE_BOUND_MS = 90_000;

function readArguments(): { seed: number; minutes: number } {
  const { values } = parseArgs({
    options: { seed: { type: "string", default: "1" }, minutes: { type: "string", default: "3" } },
  });
  const seed = Number(values.seed);
  const minutes = Number(values.minutes);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`--seed must be a whole number, not ${values.seed}`);
  if (!(minutes > 0)) throw new Error(`--minutes must be positive, not ${values.minutes}`);
  return { seed, minutes };
}

/** A check that needs the database: skipped (noted) while the database is down. */
async function whenReachable(history: SoakHistory, what: string, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    history.note(`${what} skipped: ${(error as Error).message}`);
  }
}

function summarise(plan: SoakPlan): string {
  const kinds = new Map<string, number>();
  for (const { operation } of plan.operations) kinds.set(operation.kind, (kinds.get(operation.kind) ?? 0) + 1);
  const faults = new Map<string, number>();
  for (const fault of plan.faults) faults.set(fault.kind, (faults.get(fault.kind) ?? 0) + 1);
  const line = (counts: Map<string, number>) => [...counts].map(([kind, n]) => `${n} ${kind}`).join(", ");
  return `${plan.operations.length} operations (${line(kinds)})\n${plan.faults.length} faults (${line(faults)})`;
}

async function soak(plan: SoakPlan, topology: Topology, history: SoakHistory): Promise<void> {
  const world = await seedSoakWorld(topology);
  const validator = await loadOpenApiValidator(await (await fetch(`${topology.baseUrl}/openapi.json`)).json());
  const faults = new FaultInjector(topology, history);
  const client = new SoakClient(topology.baseUrl, validator, history, (t) => faults.webDownAt(t));
  const state = newSoakState();
  const db = topology.pool(2);
  const verified = new Map<string, Set<string>>();
  const cursor: number[] = [];
  const telegram = topology.telegram;

  // The second receiver flaps the whole run: 500 for four seconds, then 200 for four.
  const flapping = setInterval(() => {
    const receiver = topology.receivers[1]!;
    if (receiver.defaultAnswer !== "hang" && receiver.defaultAnswer.status === 503) return; // a fault holds it down
    receiver.defaultAnswer =
      receiver.defaultAnswer !== "hang" && receiver.defaultAnswer.status === 200
        ? { status: 500, body: "flap" }
        : { status: 200, body: "ok" };
  }, 4000);
  const watching = setInterval(() => verifyArrivals(topology.receivers, world, verified, cursor, history), 1000);
  let checking = true;
  let progress: NodeJS.Timeout | undefined;
  const periodic = (async () => {
    while (checking) {
      await whenReachable(history, "books check", () => checkBooks(db, history, topology.suppliers));
      await sleep(5000);
    }
  })();

  try {
    const ctx = { client, history, world, state, telegram };
    history.startClock();
    const operations = plan.operations.map(async (planned) => {
      await sleep(planned.at - history.now());
      await runOperation(ctx, planned).catch((error: Error) =>
        history.note(`operation ${planned.index} threw: ${error.stack}`),
      );
    });
    let finished = 0;
    void Promise.all(operations.map((operation) => operation.then(() => finished++)));
    progress = setInterval(
      () =>
        console.log(
          `[soak] ${Math.round(history.now() / 1000)} s: ${finished}/${operations.length} operations done, ${history.violations.length} violations`,
        ),
      30_000,
    );
    for (const fault of plan.faults) {
      await sleep(fault.at - history.now());
      await faults.strike(fault);
    }
    await Promise.all(operations);
    history.note("workload done");
    // The receivers recover for good, as the faults did.
    clearInterval(flapping);
    for (const receiver of topology.receivers) receiver.defaultAnswer = { status: 200, body: "ok" };

    // Settling: every order terminal within the bound after the last fault.
    const deadline = Date.now() + Math.max(plan.quietFrom - history.now(), 0) + SETTLE_BOUND_MS;
    for (;;) {
      const open = await db
        .query(`SELECT count(*)::int AS n FROM orders WHERE status NOT IN ('completed', 'cancelled')`)
        .then(
          (result) => result.rows[0].n as number,
          () => -1,
        );
      if (open === 0 || Date.now() > deadline) break;
      await sleep(500);
    }
    await checkSettled(db, history, topology.suppliers);
    const { rows: outcomes } = await db.query<{ livemode: boolean; status: string; n: number }>(
      `SELECT livemode, status, count(*)::int AS n FROM orders GROUP BY 1, 2 ORDER BY 1 DESC, 2`,
    );
    console.log(
      `[soak] orders: ${outcomes.map((row) => `${row.n} ${row.livemode ? "live" : "test"} ${row.status}`).join(", ")}; ` +
        `${topology.receivers.reduce((sum, receiver) => sum + receiver.received.length, 0)} webhook deliveries received`,
    );
    checking = false;
    await periodic;
    await checkBooks(db, history, topology.suppliers);

    // Webhooks: every event at its endpoint, signed, or waiting on the retry schedule; given the
    // same bound to arrive.
    let webhooks = { missing: [] as string[], waiting: 0 };
    for (const until = Date.now() + SETTLE_BOUND_MS; ; await sleep(1000)) {
      verifyArrivals(topology.receivers, world, verified, cursor, history);
      webhooks = await checkWebhooks(db, world, verified);
      if ((webhooks.missing.length === 0 && webhooks.waiting === 0) || Date.now() > until) break;
    }
    const { missing, waiting } = webhooks;
    history.note(`webhooks: ${waiting} deliveries waiting on the retry schedule at the end`);
    console.log(`[soak] ${waiting} webhook deliveries still waiting on the documented retry schedule at the end`);
    history.check(
      "every event reaches each subscribed endpoint",
      missing.length ? `${missing.length} missing: ${missing.slice(0, 10).join(", ")}` : undefined,
    );
    for (const account of world.accounts)
      for (const mode of ["live", "test"] as const)
        await runOperation(ctx, {
          index: -1,
          at: 0,
          operation: { kind: "events", account: world.accounts.indexOf(account), mode },
        });

    // The bot's confirmed adjustments each moved the wallet once.
    for (const account of world.accounts) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ledger_entries WHERE account_id = $1 AND order_id IS NULL AND actor LIKE 'telegram:%'`,
        [account.id],
      );
      const done = state.adjustmentsDone.get(account.id) ?? 0;
      history.check(
        "a bot adjustment moves the wallet once",
        rows[0]!.n === done ? undefined : `${account.username}: ${done} confirmed, ${rows[0]!.n} in the ledger`,
      );
    }
  } finally {
    checking = false;
    clearInterval(progress);
    clearInterval(flapping);
    clearInterval(watching);
    await periodic;
    await db.end();
    // The soak's own connections (its lib/ calls) are closed too, so any left are the service's.
    await disconnectPrisma();
    await closePool();
  }
}

async function main() {
  const { seed, minutes } = readArguments();
  const plan = planSoak(seed, minutes);
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `soak-${seed}-`));
  console.log(
    `[soak] seed ${seed}, ${minutes} min, schedule ${plan.fingerprint}\n${summarise(plan)}\n[soak] logs in ${runDir}`,
  );
  const history = new SoakHistory();
  const topology = await startTopology(runDir);
  let leaked: string[] = [];
  try {
    await soak(plan, topology, history);
  } catch (error) {
    history.check("the soak itself runs to its end", (error as Error).stack ?? String(error));
  } finally {
    await topology.stop({
      // The service processes are gone: none of their connections may be left open.
      beforeDatabase: async () => {
        const db = topology.pool(1);
        for (let tries = 0; tries < 20; tries++) {
          leaked = (
            await db.query(
              `SELECT application_name, state FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
            )
          ).rows.map((row) => `${row.application_name || "?"} (${row.state})`);
          if (leaked.length === 0) break;
          await sleep(250);
        }
        await db.end();
      },
    });
  }
  history.check("the processes end with no leaked connections", leaked.length ? leaked.join(", ") : undefined);

  const report = [
    `seed ${seed}, ${minutes} min, schedule ${plan.fingerprint}`,
    summarise(plan),
    `${history.entries.length} history entries (history.log)`,
    "invariants (checks):",
    ...[...history.checks].map(
      ([name, count]) =>
        `  ${history.violations.some((v) => v.invariant === name) ? "VIOLATED" : "held    "} ${name} (${count})`,
    ),
  ].join("\n");
  fs.writeFileSync(
    path.join(runDir, "history.log"),
    history.entries.map((e) => `${(e.t / 1000).toFixed(3)}s ${e.what}`).join("\n"),
  );
  console.log(`[soak] ${report}`);
  if (history.violations.length) {
    for (const violation of history.violations.slice(0, 5))
      console.log(
        `\n[soak] VIOLATION of "${violation.invariant}" at ${(violation.t / 1000).toFixed(1)} s (seed ${seed}): ${violation.detail}\n` +
          `history around it:\n${history.around(violation.t).join("\n")}`,
      );
    console.log(
      `\n[soak] ${history.violations.length} violations. Replay: npm run soak -- --seed ${seed} --minutes ${minutes}`,
    );
    process.exit(1);
  }
  // The logs and the history stay for a look; the database's files go.
  fs.rmSync(path.join(runDir, "pg"), { recursive: true, force: true });
  console.log(`[soak] no violation (seed ${seed})`);
  process.exit(0);
}

await main();
