// `next start` as a real process on a free port, from the existing build (`npm test` builds once;
// tests never build again).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/config/env";
import { keepOutput } from "./process-logs";

export function assertNextBuilt(): void {
  if (!fs.existsSync(path.join(projectRoot, ".next", "BUILD_ID"))) {
    throw new Error("no Next build (.next/BUILD_ID): run `npm run build` (npm test does it unless SKIP_BUILD=1)");
  }
}

export interface NextServer {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts `next start` on 127.0.0.1, port 0, and resolves with the port it prints once it is
 * ready ("- Local: http://127.0.0.1:<port>", then "Ready in").
 */
export async function startNextServer(env: Record<string, string | undefined>): Promise<NextServer> {
  assertNextBuilt();
  const child = spawn(
    process.execPath,
    [path.join(projectRoot, "node_modules", "next", "dist", "bin", "next"), "start", "-H", "127.0.0.1", "-p", "0"],
    {
      cwd: projectRoot,
      env: { ...process.env, ...env, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  keepOutput("next-start", child);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`next start exited with ${code} before it was ready:\n${output}`));
    child.once("exit", onExit);
    const onData = () => {
      const local = /Local:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (local && /Ready in/.test(output)) {
        child.off("exit", onExit);
        resolve(Number(local[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  return { child, baseUrl: `http://127.0.0.1:${port}`, output: () => output, stop };
}
