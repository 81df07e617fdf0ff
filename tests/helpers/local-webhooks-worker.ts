// A worker in the test's own process, on the suite's database, that delivers webhooks to receivers
// on 127.0.0.1 over http (the development switch WEBHOOKS_ALLOW_PRIVATE=1) and logs nothing.
import { loadEnv } from "@/lib/config/env";
import { startWorker, type RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { suiteDatabaseUrl } from "./suite";

type WorkerOptions = Omit<Parameters<typeof startWorker>[0], "connectionString" | "config">;

/** `env`: settings beside the switch (SUPPLIER_POLL_MS, ...), over this process's environment. */
export function startLocalWebhooksWorker(
  options: WorkerOptions & { env?: Record<string, string> } = {},
): Promise<RunningWorker> {
  const { env, ...rest } = options;
  return startWorker({
    connectionString: suiteDatabaseUrl(),
    log: () => undefined,
    ...rest,
    config: loadEnv({ ...process.env, ...env, WEBHOOKS_ALLOW_PRIVATE: "1" }),
  });
}
