// What the worker looks at on a timer (WORKER_SWEEP_MS): dead workers' jobs (sql/sweep-dead-workers.ts),
// then the looks below: at the sweep's pace, one run of each at a time, and none while the job
// runners wait for the database.
import { alertLowStock } from "../catalog/alert-low-stock";
import { sendCatalogChanges } from "../catalog/sql/send-catalog-changes";
import { expireDepositRequests } from "../deposits/expire-deposit-requests";
import { foldOrderStatChanges } from "../dashboard/sql/fold-order-stat-changes";

export interface PeriodicLooks {
  /** Starts no further look; answers the looks under way, if any. */
  stop(): Promise<void> | undefined;
}

/** One look: what it does (resolving with what to log, if anything) and the name its failures are logged under. */
interface Look {
  name: string;
  run(log: (line: string) => void): Promise<string | undefined>;
}

const LOOKS: Look[] = [
  // Packs whose stock fell below their alert, told to the admins.
  {
    name: "stock alerts",
    run: (log) => alertLowStock(undefined, (line) => log(`stock alerts: ${line}`)).then(() => undefined),
  },
  // Deposit requests past their time, closed.
  {
    name: "deposit expiry",
    run: async () => {
      const closed = await expireDepositRequests();
      return closed > 0 ? `deposits: ${closed} request(s) expired` : undefined;
    },
  },
  // Catalog changes, told to the accounts that see them (product.updated).
  {
    name: "catalog changes",
    run: async () => {
      const look = await sendCatalogChanges();
      return look && look.events > 0 ? `catalog: ${look.events} product.updated event(s)` : undefined;
    },
  },
  // The overview's count changes, folded in.
  { name: "folding the overview's counts", run: () => foldOrderStatChanges().then(() => undefined) },
];

/** Sweeps and looks once now, then every `intervalMs`. */
export async function startPeriodicLooks(options: {
  sweep: () => Promise<string[]>;
  intervalMs: number;
  /** No look while this says so (the job runners wait for the database, or the worker stops). */
  holdLooks: () => boolean;
  log: (line: string) => void;
}): Promise<PeriodicLooks> {
  const { log } = options;
  const running = new Map<Look, Promise<void>>();
  const lookAround = () => {
    for (const look of LOOKS) {
      if (running.has(look) || options.holdLooks()) continue;
      const run = look
        .run(log)
        .then(
          (line) => void (line && log(line)),
          (error: Error) => log(`${look.name} failed: ${error.message}`),
        )
        .finally(() => running.delete(look));
      running.set(look, run);
    }
  };
  await options.sweep();
  lookAround();
  const timer = setInterval(() => {
    void options.sweep();
    lookAround();
  }, options.intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return running.size > 0 ? Promise.all(running.values()).then(() => undefined) : undefined;
    },
  };
}
