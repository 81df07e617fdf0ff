// GET /orders/:orderId?wait=N: answers as soon as the order is terminal or N seconds pass. Woken by
// PostgreSQL NOTIFY (sent by settle-order.ts when an order someone waits for finishes), over one
// LISTEN connection per process shared by all waiting requests; no polling loop. While a request
// waits, that connection holds a shared advisory lock on the order: it is how a settlement knows to
// notify (ORDER_WAITER_LOCK_NAMESPACE says why).
import pg from "pg";
import { databaseUrl } from "../../db/pool";
import { ORDER_FINISHED_CHANNEL, ORDER_WAITER_LOCK_NAMESPACE } from "../../fulfilment/sql/settle-order";
import { sql } from "../../db/run-sql";

const waiters = new Map<number, Set<() => void>>();
let listener: Promise<pg.Client> | undefined;

function connectListener(): Promise<pg.Client> {
  listener ??= (async () => {
    const client = new pg.Client({ connectionString: databaseUrl() });
    client.on("notification", (message) => {
      const id = Number(message.payload);
      for (const wake of waiters.get(id) ?? []) wake();
    });
    client.on("error", () => {
      // Connection lost: the next waiter reconnects; current waiters fall back to their timeout.
      listener = undefined;
    });
    await client.connect();
    await client.query(`LISTEN ${ORDER_FINISHED_CHANNEL}`);
    return client;
  })().catch((error) => {
    listener = undefined;
    throw error;
  });
  return listener;
}

/**
 * Resolves when `isFinished` says so after a wake-up, or after timeoutMs. `isFinished` is checked
 * once after listening starts, so a finish between the caller's read and our LISTEN is not missed.
 */
export async function waitForOrderFinish(
  orderId: number,
  timeoutMs: number,
  isFinished: () => Promise<boolean>,
): Promise<void> {
  const client = await connectListener();
  // Taken before isFinished reads the order: a settlement that already tried the lock has
  // committed by the time this returns, so the read sees it; one that tries later notifies.
  await client.query(sql`SELECT pg_advisory_lock_shared(${ORDER_WAITER_LOCK_NAMESPACE}, ${orderId})`);
  try {
    await waitForWake(orderId, timeoutMs, isFinished);
  } finally {
    // On a lost connection the lock went with it.
    await client
      .query(sql`SELECT pg_advisory_unlock_shared(${ORDER_WAITER_LOCK_NAMESPACE}, ${orderId})`)
      .catch(() => undefined);
  }
}

function waitForWake(orderId: number, timeoutMs: number, isFinished: () => Promise<boolean>): Promise<void> {
  return new Promise<void>((resolve) => {
    const set = waiters.get(orderId) ?? new Set();
    waiters.set(orderId, set);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      set.delete(wake);
      if (set.size === 0) waiters.delete(orderId);
      resolve();
    };
    const wake = () => finish();
    const timer = setTimeout(finish, timeoutMs);
    set.add(wake);
    isFinished().then((finished) => finished && finish(), finish);
  });
}
