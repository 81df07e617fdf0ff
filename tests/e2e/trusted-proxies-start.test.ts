// A bad TRUSTED_PROXIES entry stops the start with a message naming it, before anything listens,
// rather than answering 500 to every request. Both entry points are real processes.
import { fork } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { TEST_ENV } from "../setup/test-env";
import { keepOutput, logMessages } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

function run(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = fork(path.join(projectRoot, "scripts", script), [], {
    env: { ...process.env, ...TEST_ENV, ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  keepOutput(script, child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  child.on("message", (message: { type?: string }) => {
    // Listening despite the bad entry is the failure this test exists for: stop it and report.
    if (message?.type === "listening") child.kill("SIGTERM");
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("TRUSTED_PROXIES is validated at start", () => {
  it.each(["serve.ts", "start.ts"])("scripts/%s refuses a bad entry and names it", async (script) => {
    const result = await run(script, {
      DATABASE_URL: suiteDatabaseUrl(),
      PORT: "0",
      HOST: "127.0.0.1",
      SERVE_DASHBOARD: "0",
      TRUSTED_PROXIES: "10.0.0.0/8, 10.0.0.1:8080",
    });
    expect(result.code, result.stdout + result.stderr).toBe(1);
    // Thrown before the logger runs (serve.ts), or logged as an error line (start.ts): on stderr either way.
    const said = [result.stderr, ...logMessages(result.stderr)].join("\n");
    expect(said).toContain('TRUSTED_PROXIES: "10.0.0.1:8080" is not an IP address or CIDR range');
    expect(result.stdout).not.toContain("listening");
  });
});
