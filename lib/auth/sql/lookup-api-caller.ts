// The API key's lookup by hash (prisma/functions/api_caller.sql) and the batched
// last_used_at stamp of the keys that were used.
import { getPool } from "../../db/pool";
import { prepared, sql } from "../../db/run-sql";
import type { ApiCaller } from "../api-caller-record";

/** The caller of the key with this hash; undefined for an unknown or revoked key. */
export async function lookupApiCaller(keyHash: string): Promise<ApiCaller | undefined> {
  const { rows } = await getPool().query<ApiCaller>(
    prepared("auth-key-lookup", sql`SELECT * FROM api_caller(key_hash => ${keyHash})`),
  );
  return rows[0];
}

// last_used_at is informational (the bot's /keys shows it), so it is written in batches: keys used
// since the last flush are stamped in one UPDATE every few seconds, committed without waiting for
// the WAL flush. A write per request would put a commit (and its fsync) beside every order's own.
// Each stamp names the key row by id and creation time: a stamp that lands after its key is gone
// never marks another key that took the same id (the test suite restarts ids between files, and a
// flush due from the previous file marked a fresh key as used).
const LAST_USED_FLUSH_MS = 5000;
const usedSinceFlush = new Map<number, Date>();
let flushTimer: NodeJS.Timeout | undefined;

async function flushLastUsed(): Promise<void> {
  flushTimer = undefined;
  const used = [...usedSinceFlush];
  usedSinceFlush.clear();
  if (used.length === 0) return;
  const client = await getPool().connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL synchronous_commit TO OFF");
    await client.query(
      sql`UPDATE api_keys k SET last_used_at = now()
            FROM unnest(${used.map(([id]) => id)}::int[], ${used.map(([, createdAt]) => createdAt)}::timestamptz[])
                 AS used(id, created_at)
           WHERE k.id = used.id AND k.created_at = used.created_at`,
    );
    await client.query("COMMIT");
  } catch {
    await client.query("ROLLBACK").catch(() => undefined);
  } finally {
    client.release();
  }
}

/** Records that a key was used; written within LAST_USED_FLUSH_MS, off the request's path. */
export function touchKeyLastUsed(caller: Pick<ApiCaller, "keyId" | "keyCreatedAt">): void {
  usedSinceFlush.set(caller.keyId, caller.keyCreatedAt);
  if (!flushTimer) {
    flushTimer = setTimeout(() => void flushLastUsed().catch(() => undefined), LAST_USED_FLUSH_MS);
    flushTimer.unref();
  }
}
