// One web instance: the JSON API on the lean host, the dashboard through Next when it is built.
// Run several behind a load balancer for scale-out (README). Expects a migrated DATABASE_URL.
import fs from "node:fs";
import path from "node:path";
import { assertProductionSecrets, env, projectRoot } from "@/lib/config/env";
import { holdGivenNodeEnv } from "@/lib/config/given-node-env";
import { createHttpServer, type NodeHandler } from "@/lib/http/lean-host";
import { closePool } from "@/lib/db/pool";
import { createApiRouter } from "@/app/api/routes";

async function loadNext(): Promise<NodeHandler | undefined> {
  if (!env().serveDashboard) return undefined;
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    console.warn("[web] no Next build found (.next): dashboard and docs are off; run `npm run build`");
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
    onError: (error) => console.error("[web] unhandled error:", error),
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  console.log(`[web] listening on http://localhost:${port}`);
  process.send?.({ type: "listening", port });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    await closePool().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Started by npm start (in a process group of its own): when it is gone, so is this process.
  process.on("disconnect", stop);
}

main().catch((error) => {
  console.error("[web] failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
