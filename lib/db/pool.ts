// One pg pool per process. The API's hot path (key lookup, placement, settlement, the API's reads)
// and the worker query it directly; Prisma Client (lib/db/prisma.ts) uses it through
// @prisma/adapter-pg, so both draw on the same PG_POOL_MAX connections.
import pg from "pg";
import { env } from "../config/env";
import { logger } from "../observability/logger";

const log = logger("db");

// int8 (BIGINT) columns hold cents and Telegram ids, far below 2^53: raw pg queries read them as
// numbers. Prisma keeps its own parsing (bigint); lib/db/number-from-db.ts converts those.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

let pool: pg.Pool | undefined;

export function databaseUrl(): string {
  const url = env().databaseUrl;
  if (!url) throw new Error("DATABASE_URL is not set (npm start and npm test set it for you)");
  return url;
}

export function getPool(): pg.Pool {
  if (!pool) {
    pool = new pg.Pool({
      connectionString: databaseUrl(),
      max: env().pgPoolMax,
      connectionTimeoutMillis: env().pgConnectTimeoutMs,
      idleTimeoutMillis: 30_000,
    });
    // A dropped idle connection (database restarted) must not crash the process.
    pool.on("error", (error) => log.error(`idle client error: ${error.message}`));
    // pg-pool listens for errors only on idle clients. A connection that drops while a client is
    // checked out but between two of its queries (inside a transaction, say) emits 'error' with no
    // listener, which ends the process; with this one the next query fails instead and the
    // request answers 503 SERVICE_UNAVAILABLE.
    pool.on("connect", (client) => client.on("error", (error) => log.error(`connection lost: ${error.message}`)));
  }
  return pool;
}

export async function closePool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.end();
}

// Work to run once the transaction a client is in has committed (withTransaction's own clients).
const afterCommitWork = new WeakMap<pg.PoolClient, (() => void)[]>();

/**
 * Runs `work` after the transaction on `client` commits, and never if it rolls back. Only for a
 * transaction opened by withTransaction; on any other client it does nothing, so it suits hints
 * that have a slower fallback (waking the webhook dispatcher, which also polls), not duties.
 */
export function afterCommit(client: object, work: () => void): void {
  afterCommitWork.get(client as pg.PoolClient)?.push(work);
}

/** Runs `fn` in a transaction on a client of `pool` (the application's pool unless given). */
export async function withTransaction<T>(
  fn: (client: pg.PoolClient) => Promise<T>,
  pool: pg.Pool = getPool(),
): Promise<T> {
  const client = await pool.connect();
  const committed: (() => void)[] = [];
  afterCommitWork.set(client, committed);
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    // A hint that fails must not turn a committed transaction into an error.
    for (const work of committed) {
      try {
        work();
      } catch {}
    }
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    afterCommitWork.delete(client);
    client.release();
  }
}
