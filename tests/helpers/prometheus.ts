// A real Prometheus (Debian's `prometheus` package, /usr/bin/prometheus; .ci/run installs it) in a
// process of its own, with a configuration and a data directory of its own in a temporary
// directory, scraping the targets a test gives it every second; and promtool, which checks what a
// process serves and the repository's alert rules.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import { findFreePort } from "./processes";
import { keepOutput } from "./process-logs";

/** METRICS_TOKEN of the web processes the tests scrape; the log scan checks it never appears in a log. */
export const TEST_METRICS_TOKEN = "metrics-token-for-the-suite-only-0001";

export const ALERT_RULES = path.join(projectRoot, "ops", "prometheus", "alerts.yml");
export const ALERT_RULE_TESTS = path.join(projectRoot, "ops", "prometheus", "alerts.test.yml");

function which(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).concat("/usr/bin")) {
    const candidate = path.join(dir, binary);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

export const prometheusBinary = which("prometheus");
export const promtoolBinary = which("promtool");

/** promtool's verdict: its exit code and what it printed. */
export function promtool(args: string[], input?: string): { code: number | null; output: string } {
  const result = spawnSync(promtoolBinary!, args, { input, encoding: "utf8", timeout: 60_000 });
  return { code: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

export interface ScrapeTarget {
  job: string;
  /** host:port */
  address: string;
  bearerToken?: string;
}

export interface RunningPrometheus {
  url: string;
  /** An instant query's vector: one entry per series, with its labels and value. */
  query(expression: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The single value of an expression that aggregates to one number (sum, max); 0 when it has no series. */
  value(expression: string): Promise<number>;
  /** Scrapes these targets from now on (the configuration rewritten and reloaded, as SIGHUP does). */
  scrape(targets: ScrapeTarget[]): void;
  stop(): Promise<void>;
}

function configuration(targets: ScrapeTarget[]): string {
  const jobs = targets.map((target) =>
    [
      `  - job_name: ${JSON.stringify(target.job)}`,
      "    metrics_path: /metrics",
      ...(target.bearerToken
        ? ["    authorization:", "      type: Bearer", `      credentials: ${JSON.stringify(target.bearerToken)}`]
        : []),
      "    static_configs:",
      `      - targets: [${JSON.stringify(target.address)}]`,
    ].join("\n"),
  );
  return [
    "global:",
    "  scrape_interval: 1s",
    "  scrape_timeout: 1s",
    "  evaluation_interval: 1s",
    "rule_files:",
    `  - ${JSON.stringify(ALERT_RULES)}`,
    "scrape_configs:",
    ...jobs,
    "",
  ].join("\n");
}

async function waitForReady(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/** Starts Prometheus on a free port (another one if that port was taken meanwhile). */
export async function startPrometheus(targets: ScrapeTarget[]): Promise<RunningPrometheus> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-prometheus-"));
  const config = path.join(dir, "prometheus.yml");
  fs.writeFileSync(config, configuration(targets));
  for (let tries = 1; ; tries++) {
    const port = await findFreePort();
    const child = spawn(
      prometheusBinary!,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--storage.tsdb.retention.time=1h",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    keepOutput("prometheus", child);
    const url = `http://127.0.0.1:${port}`;
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    };
    if (!(await waitForReady(url, child))) {
      await stop().catch(() => undefined);
      if (tries < 3) {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(config, configuration(targets));
        continue;
      }
      throw new Error("Prometheus did not become ready (its output is in .data/test-logs)");
    }
    const query = async (expression: string) => {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== "success") throw new Error(`query ${expression}: ${body.error}`);
      return body.data!.result.map((entry) => ({ metric: entry.metric, value: Number(entry.value[1]) }));
    };
    return {
      url,
      query,
      value: async (expression) => (await query(expression))[0]?.value ?? 0,
      scrape: (next) => {
        fs.writeFileSync(config, configuration(next));
        child.kill("SIGHUP");
      },
      stop,
    };
  }
}
