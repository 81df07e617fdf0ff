// The tests' view of the database: raw SQL for assertions and for the reset between files, run
// through Prisma Client on the same pool as the code under test. Rows come back as pg would give
// them (BIGINT as number, NUMERIC as string), so assertions read the same whichever way they were written.
import { Prisma } from "@/lib/generated/prisma/client";
import { disconnectPrisma, getPrisma } from "@/lib/db/prisma";
import { closePool } from "@/lib/db/pool";

function asPgValue(value: unknown): unknown {
  if (typeof value === "bigint") {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : value.toString();
  }
  if (Prisma.Decimal.isDecimal(value)) return value.toString();
  return value;
}

export async function sql<T = Record<string, any>>(text: string, params: unknown[] = []): Promise<T[]> {
  const rows = await getPrisma().$queryRawUnsafe<Record<string, unknown>[]>(text, ...params);
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, asPgValue(value)])) as T);
}

/** The first of `items`, which the test needs to exist: fails the test right here when there is none. */
export function firstOf<T>(items: readonly T[]): T {
  const item = items[0];
  if (item === undefined) throw new Error("expected at least one item, got none");
  return item;
}

/** The row a query must return (an INSERT ... RETURNING, a count, a row the test just wrote). */
export async function sqlRow<T = Record<string, any>>(text: string, params: unknown[] = []): Promise<T> {
  const [row] = await sql<T>(text, params);
  if (row === undefined) throw new Error(`no row from: ${text}`);
  return row;
}

/**
 * Until some statement waits for a lock that `holder`'s open transaction has (a row it locked or
 * changed), for at most 30 s: the moment a test that holds a lock on purpose may let go.
 */
export async function waitUntilBlockedBy(holder: { query: (text: string) => Promise<{ rows: unknown[] }> }) {
  const { pid } = (await holder.query(`SELECT pg_backend_pid() AS pid`)).rows[0] as { pid: number };
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const waiting = await sql(`SELECT 1 FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids(pid))`, [pid]);
    if (waiting.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no statement waited for the lock of backend ${pid} within 30 s`);
}

export async function closeSql(): Promise<void> {
  await disconnectPrisma();
  await closePool();
}

/**
 * Empties every application table, so each test file starts clean. What the migrate command writes
 * stays: its records of migrations and function files, and the supplier kinds it keeps from the code.
 */
export async function resetDatabase(): Promise<void> {
  const prisma = getPrisma();
  const tables = await prisma.$queryRaw<{ tablename: string }[]>`
    SELECT tablename FROM pg_tables WHERE schemaname = 'public'
       AND tablename NOT IN ('_prisma_migrations', '_sql_functions', 'supplier_kinds')`;
  await prisma.$executeRawUnsafe(
    `TRUNCATE ${tables.map((t) => `"${t.tablename}"`).join(", ")} RESTART IDENTITY CASCADE`,
  );
  const jobs = await prisma.$queryRaw<
    unknown[]
  >`SELECT 1 FROM pg_tables WHERE schemaname = 'graphile_worker' AND tablename = '_private_jobs'`;
  if (jobs.length) await prisma.$executeRawUnsafe(`TRUNCATE graphile_worker._private_jobs CASCADE`);
}
