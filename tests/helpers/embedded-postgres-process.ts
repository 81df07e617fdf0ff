import { fork } from "node:child_process";
import path from "node:path";
import { projectRoot } from "../../lib/config/env";

/** Starts scripts/embedded-postgres.ts and resolves with its URL and a stop function. */
export async function startEmbeddedPostgresProcess(options: { dataDir: string; port: number; database: string }) {
  const child = fork(path.join(projectRoot, "scripts", "embedded-postgres.ts"), [options.dataDir, String(options.port), options.database], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`embedded PostgreSQL exited with ${code} before it was ready`)));
    child.on("message", (message: { type?: string; url?: string }) => {
      if (message?.type === "ready" && message.url) resolve(message.url);
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
