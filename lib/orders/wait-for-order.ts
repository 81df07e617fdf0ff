// GET /orders/:orderId?wait=N: answers as soon as the order is terminal or N seconds pass. Woken by
// PostgreSQL NOTIFY (sent by settle-order.ts when an order finishes), over one LISTEN connection
// per process shared by all waiting requests; no polling loop.
import pg from "pg";
import { databaseUrl } from "../db/pool";
import { ORDER_FINISHED_CHANNEL } from "../fulfilment/settle-order";

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
export async function waitForOrderFinish(orderId: number, timeoutMs: number, isFinished: () => Promise<boolean>): Promise<void> {
  await connectListener();
  await new Promise<void>((resolve) => {
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
