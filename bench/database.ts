// The bench's own database: found or created, emptied, migrated and seeded. It never touches the
// database named in DATABASE_URL itself (tests and developers use that one): it uses a database
// called BENCH_DATABASE (default "bench") on the same server, and drops that one's schemas.
import path from "node:path";
import pg from "pg";
import { projectRoot } from "@/lib/config/env";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@/lib/db/embedded";
import { resetSchema } from "@/lib/db/reset-schema";
import { applyMigrations } from "@/lib/db/migrate";
import { disconnectPrisma, getPrisma } from "@/lib/db/prisma";
import { closePool } from "@/lib/db/pool";
import { issueApiKey } from "@/lib/accounts/issue-api-key";
import { creditWallet } from "@/lib/wallet/credit-wallet";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { listPackOffers, saveSupplierAccount, saveSupplierOffer } from "@/lib/suppliers/manage-suppliers";
import { stopAll } from "./processes";

export interface BenchDatabase {
  url: string;
  /** Where the URL came from, for the report (no credentials). */
  description: string;
  stop(): Promise<void>;
}

/** $100,000 per account: far more than every order of a run costs, so no order fails for balance. */
const CREDIT_PER_ACCOUNT_CENTS = 10_000_000;

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  // Connect to the server's maintenance database: the one in DATABASE_URL may be the bench's own.
  const maintenance = new URL(serverUrl);
  maintenance.pathname = "/postgres";
  let client = new pg.Client({ connectionString: maintenance.toString() });
  try {
    await client.connect();
  } catch {
    client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
  }
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/** Another database on the same server as `url` (created if missing), e.g. the scale bench's 10k copy. */
export async function siblingDatabase(url: string, database: string): Promise<string> {
  await ensureDatabase(url, database);
  const sibling = new URL(url);
  sibling.pathname = `/${database}`;
  return sibling.toString();
}

export async function openBenchDatabase(): Promise<BenchDatabase> {
  const database = process.env.BENCH_DATABASE || "bench";
  const explicit = process.env.BENCH_DATABASE_URL;
  if (explicit)
    return { url: explicit, description: `BENCH_DATABASE_URL (${redact(explicit)})`, stop: async () => undefined };

  const shared = process.env.DATABASE_URL;
  if (shared) {
    const url = new URL(shared);
    url.pathname = `/${database}`;
    await ensureDatabase(shared, database);
    return {
      url: url.toString(),
      description: `database "${database}" on the DATABASE_URL server (${redact(url.toString())})`,
      stop: async () => undefined,
    };
  }

  // No server configured: an embedded PostgreSQL of its own, apart from the dev and test clusters.
  const embedded: EmbeddedDatabase = await startEmbeddedPostgres({
    dataDir: path.join(projectRoot, ".data", "bench"),
    port: Number(process.env.BENCH_EMBEDDED_PG_PORT ?? 54349),
    database,
  });
  return {
    url: embedded.url,
    description: `embedded PostgreSQL under .data/bench (${redact(embedded.url)})`,
    stop: () => embedded.stop(),
  };
}

/** A bench's last step, on success or failure: its processes, this process's connections, then the database. */
export async function closeBench(db: BenchDatabase): Promise<void> {
  await stopAll();
  await disconnectPrisma().catch(() => undefined);
  await closePool().catch(() => undefined);
  await db.stop();
}

/** The test harness's reset (lib/db/reset-schema.ts), then the project's migrations. */
export async function resetAndMigrate(url: string): Promise<void> {
  await resetSchema(url);
  await applyMigrations(url);
}

export interface BenchIdentities {
  accountIds: number[];
  /** keys[i] belongs to accountIds[i % accountIds.length]: consecutive requests hit different wallets. */
  keys: string[];
  /** A key used by nothing else: probes whether the service's per-key limit is active. */
  probeKey: string;
}

/** A key through the bot's own function; load accounts hold many keys, so the bot's per-account limit is lifted. */
async function issueBenchKey(accountId: number, name: string): Promise<string> {
  const issued = await issueApiKey(accountId, "bench", { name, maxActiveKeys: Number.MAX_SAFE_INTEGER });
  if (issued.status !== "created") throw new Error(`could not issue bench key ${name}: ${issued.status}`);
  return issued.key;
}

/** Runs `work` over `items` with at most `parallel` in flight (the pool has 10 connections). */
export async function forEachLimited<T>(
  items: T[],
  parallel: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(parallel, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
}

/**
 * Demo catalog, funded API-enabled accounts and their keys, through the project's own functions.
 * Every top-up pack has two suppliers, as a wholesaler's would: the demo's sandbox first, and a
 * second sandbox account behind it for failover.
 */
export async function seedBench(options: { accounts: number; keys: number }): Promise<BenchIdentities> {
  await seedDemoCatalog();
  const prisma = getPrisma();
  await saveSupplierAccount({ name: "sandbox-backup", kind: "sandbox", settings: {}, actor: "bench" });
  for (const pack of await listPackOffers()) {
    const [first] = pack.offers;
    if (!first) continue;
    await saveSupplierOffer({
      catalogId: pack.catalogId,
      supplierName: "sandbox-backup",
      sku: first.sku,
      costCents: 0,
      priority: first.priority + 1,
      actor: "bench",
    });
  }

  const accountIds: number[] = [];
  for (let i = 0; i < options.accounts; i++) {
    const account = await prisma.account.create({
      data: { telegramUsername: `bench${i}`, displayName: `Bench reseller ${i}`, apiEnabled: true },
    });
    accountIds.push(account.id);
  }
  await forEachLimited(accountIds, 8, async (accountId) => {
    await creditWallet({ accountId, amountCents: CREDIT_PER_ACCOUNT_CENTS, actor: "bench", reason: "bench funding" });
  });

  const keys = new Array<string>(options.keys);
  await forEachLimited(keys, 8, async (_, i) => {
    keys[i] = await issueBenchKey(accountIds[i % accountIds.length]!, `bench-${i}`);
  });

  const probeAccount = await prisma.account.create({ data: { telegramUsername: "bench-probe", apiEnabled: true } });
  const probeKey = await issueBenchKey(probeAccount.id, "bench-rate-limit-probe");
  return { accountIds, keys, probeKey };
}
