// What the worker looks at on a timer (WORKER_SWEEP_MS): dead workers' jobs (sql/sweep-dead-workers.ts),
// packs whose stock fell below their alert, told to the admins, and deposit requests past their time,
// closed: at the sweep's pace, one look of each at a time, and none while the job runners wait for
// the database.
import { alertLowStock } from "../catalog/alert-low-stock";
import { expireDepositRequests } from "../deposits/expire-deposit-requests";

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
  await options.sweep();
  alertStock();
  expireDeposits();
  const timer = setInterval(() => {
    void options.sweep();
    alertStock();
    expireDeposits();
  }, options.intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return alerting || expiring ? Promise.all([alerting, expiring]).then(() => undefined) : undefined;
    },
  };
}
