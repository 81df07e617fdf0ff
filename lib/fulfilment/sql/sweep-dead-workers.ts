// Every worker regularly releases the jobs and webhook claims of ids whose liveness lock
// (hold-liveness-locks.ts) is free: their processes are gone, and others finish what they left.
import pg from "pg";
import type { WorkerUtils } from "graphile-worker";
import { listClaimingDispatchers, releaseDeadClaims } from "../../webhooks/sql/dispatch-webhooks";
import { sql } from "../../db/run-sql";
import { firstRow } from "../../db/first-row";
import { LIVENESS_NAMESPACE } from "./hold-liveness-locks";

// A job locked this recently may belong to a worker whose liveness lock is still being taken.
const SWEEP_GRACE = "5 seconds";
// After a database restart every worker has lost its locks and takes them again within
// LIVENESS_RETRY_MAX_MS of the database's return: a sweep calls an id dead only when its lock has
// stayed free this long, so a live worker still reconnecting is never taken for a dead one.
const LIVENESS_CONFIRM_MS = 10_000;

/** When each id was first seen with its lock free, while it stays free. */
type Suspects = Map<string, number>;

// Worker and dispatcher ids whose liveness lock is free and has stayed free for `confirmMs`: their
// processes are gone.
async function findDeadHolders(
  pool: pg.Pool,
  candidates: string[],
  suspects: Suspects,
  confirmMs: number,
): Promise<string[]> {
  for (const id of suspects.keys()) if (!candidates.includes(id)) suspects.delete(id);
  if (candidates.length === 0) return [];
  const dead: string[] = [];
  const now = Date.now();
  const client = await pool.connect();
  try {
    for (const id of candidates) {
      const probe = await client.query<{ free: boolean }>(
        sql`SELECT pg_try_advisory_lock(${LIVENESS_NAMESPACE}, hashtext(${id})) AS free`,
      );
      if (firstRow(probe.rows, "pg_try_advisory_lock").free) {
        await client.query(sql`SELECT pg_advisory_unlock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
        const since = suspects.get(id) ?? now;
        suspects.set(id, since);
        if (now - since >= confirmMs) dead.push(id);
      } else suspects.delete(id);
    }
  } finally {
    client.release();
  }
  return dead;
}

/**
 * The sweep one worker runs: each call releases what dead workers and dispatchers left locked and
 * answers their ids. It never throws: a failed sweep is logged, and the next one tries again.
 */
export function sweepDeadWorkers(options: {
  pool: pg.Pool;
  utils: WorkerUtils;
  log: (line: string) => void;
  /** How long an id's lock must stay free before it counts as dead; LIVENESS_CONFIRM_MS unless given. */
  confirmMs?: number;
}): () => Promise<string[]> {
  const { pool, utils, log } = options;
  const confirmMs = options.confirmMs ?? LIVENESS_CONFIRM_MS;
  const suspects = { workers: new Map<string, number>(), dispatchers: new Map<string, number>() };
  const releaseDead = async () => {
    // graphile_worker.jobs is the library's stable, public view of its jobs (its tables are private).
    const { rows } = await pool.query<{ locked_by: string }>(
      `SELECT DISTINCT locked_by FROM graphile_worker.jobs
        WHERE locked_by IS NOT NULL AND locked_at < now() - interval '${SWEEP_GRACE}'`,
    );
    const lockers = rows.map((r) => r.locked_by);
    const deadWorkers = await findDeadHolders(pool, lockers, suspects.workers, confirmMs);
    if (deadWorkers.length) await utils.forceUnlockWorkers(deadWorkers);
    // A dispatcher's id is locked before its first claim, so no grace is needed here.
    const claimers = await listClaimingDispatchers(pool);
    const deadDispatchers = await findDeadHolders(pool, claimers, suspects.dispatchers, confirmMs);
    await releaseDeadClaims(pool, deadDispatchers);
    return [...deadWorkers, ...deadDispatchers];
  };
  return async () => {
    try {
      const dead = await releaseDead();
      if (dead.length) log(`released jobs of ${dead.length} dead worker(s)`);
      return dead;
    } catch (error) {
      log(`sweep failed: ${(error as Error).message}`);
      return [];
    }
  };
}
