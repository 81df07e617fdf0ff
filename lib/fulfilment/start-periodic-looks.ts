// What the worker looks at on a timer (WORKER_SWEEP_MS): dead workers' jobs (sql/sweep-dead-workers.ts),
// and packs whose stock fell below their alert, told to the admins at the sweep's pace: one look
// at a time, and none while the job runners wait for the database.
import { alertLowStock } from "../catalog/alert-low-stock";

export interface PeriodicLooks {
  /** Starts no further look; answers the stock look under way, if any. */
  stop(): Promise<void> | undefined;
}

/** Sweeps and looks once now, then every `intervalMs`. */
export async function startPeriodicLooks(options: {
  sweep: () => Promise<string[]>;
  intervalMs: number;
  /** No stock look while this says so (the job runners wait for the database, or the worker stops). */
  holdStockAlerts: () => boolean;
  log: (line: string) => void;
}): Promise<PeriodicLooks> {
  const { log } = options;
  let alerting: Promise<void> | undefined;
  const alertStock = () => {
    if (alerting || options.holdStockAlerts()) return;
    alerting = alertLowStock(undefined, (line) => log(`stock alerts: ${line}`))
      .then(
        () => undefined,
        (error: Error) => log(`stock alerts failed: ${error.message}`),
      )
      .finally(() => (alerting = undefined));
  };
  await options.sweep();
  alertStock();
  const timer = setInterval(() => {
    void options.sweep();
    alertStock();
  }, options.intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return alerting;
    },
  };
}
