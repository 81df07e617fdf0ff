// What the worker looks at on a timer (WORKER_SWEEP_MS): dead workers' jobs (sql/sweep-dead-workers.ts),
// packs whose stock fell below their alert, told to the admins, deposit requests past their time,
// closed, and the overview's count changes, folded in: at the sweep's pace, one look of each at a
// time, and none while the job runners wait for the database.
import { alertLowStock } from "../catalog/alert-low-stock";
import { expireDepositRequests } from "../deposits/expire-deposit-requests";
import { foldOrderStatChanges } from "../dashboard/sql/fold-order-stat-changes";

export interface PeriodicLooks {
  /** Starts no further look; answers the looks under way, if any. */
  stop(): Promise<void> | undefined;
}

/** Sweeps and looks once now, then every `intervalMs`. */
export async function startPeriodicLooks(options: {
  sweep: () => Promise<string[]>;
  intervalMs: number;
  /** No stock or deposit look while this says so (the job runners wait for the database, or the worker stops). */
  holdLooks: () => boolean;
  log: (line: string) => void;
}): Promise<PeriodicLooks> {
  const { log } = options;
  let alerting: Promise<void> | undefined;
  const alertStock = () => {
    if (alerting || options.holdLooks()) return;
    alerting = alertLowStock(undefined, (line) => log(`stock alerts: ${line}`))
      .then(
        () => undefined,
        (error: Error) => log(`stock alerts failed: ${error.message}`),
      )
      .finally(() => (alerting = undefined));
  };
  let expiring: Promise<void> | undefined;
  const expireDeposits = () => {
    if (expiring || options.holdLooks()) return;
    expiring = expireDepositRequests()
      .then(
        (closed) => void (closed > 0 && log(`deposits: ${closed} request(s) expired`)),
        (error: Error) => log(`deposit expiry failed: ${error.message}`),
      )
      .finally(() => (expiring = undefined));
  };
  let folding: Promise<void> | undefined;
  const foldStats = () => {
    if (folding || options.holdLooks()) return;
    folding = foldOrderStatChanges()
      .then(
        () => undefined,
        (error: Error) => log(`folding the overview's counts failed: ${error.message}`),
      )
      .finally(() => (folding = undefined));
  };
  await options.sweep();
  alertStock();
  expireDeposits();
  foldStats();
  const timer = setInterval(() => {
    void options.sweep();
    alertStock();
    expireDeposits();
    foldStats();
  }, options.intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return alerting || expiring || folding
        ? Promise.all([alerting, expiring, folding]).then(() => undefined)
        : undefined;
    },
  };
}
