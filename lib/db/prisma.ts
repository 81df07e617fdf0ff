// The Prisma client of the bot, the dashboard, the account, admin, audit, settings, webhook-management
// and wallet-adjustment functions, the seed and the test fixtures. It rides on the process's one pg
// pool (lib/db/pool.ts) through @prisma/adapter-pg, so Prisma and the raw SQL of the API's hot path
// share connections.
// Prisma reads BIGINT columns (cents, Telegram ids) as bigint; lib/db/number-from-db.ts turns
// them into the numbers the rest of the code uses.
import type pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "../generated/prisma/client";
import { getPool } from "./pool";

/** The client inside `$transaction(async (tx) => ...)`: what lib functions take to join a caller's transaction. */
export type PrismaTx = Prisma.TransactionClient;
/** Either the client or a transaction's client: for reads that may run inside a caller's transaction. */
export type PrismaDb = PrismaClient | PrismaTx;

// Kept with the pool it was built on: after closePool() a later getPool() makes a new pool, and a
// client still bound to the ended one would fail every query.
const globalForPrisma = globalThis as unknown as { prisma?: { client: PrismaClient; pool: pg.Pool } };

export function getPrisma(): PrismaClient {
  const pool = getPool();
  if (globalForPrisma.prisma?.pool !== pool) {
    const client = new PrismaClient({
      adapter: new PrismaPg(pool),
      // Prisma's defaults (2 s to get a connection, 5 s per transaction) fail money transactions that
      // merely queued behind a burst on a busy machine; PostgreSQL's locks, not these, keep them correct.
      transactionOptions: { maxWait: 15_000, timeout: 30_000 },
    });
    globalForPrisma.prisma = { client, pool };
  }
  return globalForPrisma.prisma.client;
}

/** Drops the client; the pool it used stays open (closePool() ends it). */
export async function disconnectPrisma(): Promise<void> {
  const current = globalForPrisma.prisma;
  globalForPrisma.prisma = undefined;
  await current?.client.$disconnect();
}
