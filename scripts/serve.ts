// One web instance: the JSON API on the lean host, the dashboard through Next when it is built.
// Run several behind a load balancer for scale-out (README). Expects a migrated DATABASE_URL.
import fs from "node:fs";
import path from "node:path";
import { assertProductionSecrets, env, projectRoot } from "@/lib/config/env";
import { holdGivenNodeEnv } from "@/lib/config/given-node-env";
import { createHttpServer, type NodeHandler } from "@/lib/http/lean-host";
import { closePool } from "@/lib/db/pool";
import { createApiRouter } from "@/app/api/routes";
import { logger, messageOf, nameProcess } from "@/lib/observability/logger";
import { serveMetrics } from "@/lib/observability/serve-metrics";
import { readServiceState } from "@/lib/observability/sql/read-service-state";

nameProcess("web");
const log = logger();

async function loadNext(): Promise<NodeHandler | undefined> {
  if (!env().serveDashboard) return undefined;
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    log.warn("no Next build found (.next): dashboard and docs are off; run `npm run build`");
    return undefined;
  }
  const { default: next } = await import("next");
  const app = next({ dev: false, dir: projectRoot });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (req, res) => handle(req, res);
}

async function main() {
  // Before Next loads and rewrites NODE_ENV: every check here and in Next's bundle reads this one.
  holdGivenNodeEnv();
  assertProductionSecrets();
  const config = env();
  if (config.telegramBotToken && config.telegramWebhookSecret)
    await (await import("@/bot/webhook")).prepareTelegramWebhook();
  const server = createHttpServer({
    router: createApiRouter(),
    next: await loadNext(),
    onError: (error) => log.error("unhandled error", { err: error }),
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const metricsPort = config.metrics.ports.web;
  const metrics =
    metricsPort === undefined ? undefined : await serveMetrics(config.metrics.host, metricsPort, readServiceState);
  log.info(`listening on http://localhost:${port}`, { port });
  process.send?.({ type: "listening", port, metricsPort: metrics?.port });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    await metrics?.close();
    await closePool().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Started by npm start (in a process group of its own): when it is gone, so is this process.
  process.on("disconnect", stop);
}

main().catch((error) => {
  log.error(`failed to start: ${messageOf(error)}`);
  process.exit(1);
});
