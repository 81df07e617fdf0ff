// A process's metrics on an internal port of its own (METRICS_PORT for the web process,
// WORKER_METRICS_PORT, BOT_METRICS_PORT): GET /metrics, no token, at METRICS_HOST (127.0.0.1 unless
// set). Keep the port off the internet: it is for the Prometheus that scrapes this machine.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { logger } from "./logger";
import { renderMetrics } from "./metrics";

const log = logger("metrics");

/**
 * Serves `/metrics` on `port` (0: a free one) until the process ends; resolves with the port once it
 * listens. `before` runs before each answer (the web process reads the service's state there).
 */
export async function serveMetrics(
  host: string,
  port: number,
  before?: () => Promise<void>,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? "/").split("?")[0];
    if (pathname !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found: GET /metrics\n");
      return;
    }
    void (async () => {
      try {
        await before?.();
        const { contentType, body } = await renderMetrics();
        res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : body);
      } catch (error) {
        log.error("metrics could not be read", { err: error });
        res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end("metrics unavailable\n");
      }
    })();
  });
  // The scraper needs no keep-alive of minutes; a stopping process must not wait for one.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  log.info(`metrics at http://${host.includes(":") ? `[${host}]` : host}:${bound}/metrics`, { port: bound });
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
