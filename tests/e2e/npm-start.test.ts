// Acceptance of the Foundation: `npm start` with no DATABASE_URL brings the service up on embedded
// PostgreSQL, prints the demo key, and Ctrl-C leaves no process of ours running.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";

function processesMentioning(text: string): string[] {
  return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(text) && !line.includes("ps -eo"));
}

describe("npm start", () => {
  it("serves /healthz on embedded PostgreSQL, prints the demo key, and Ctrl-C stops everything", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-start-"));
    fs.chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
    const port = 3900 + Math.floor(Math.random() * 90);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: String(port),
      EMBEDDED_PG_PORT: String(port + 50000 - 3900),
    };
    delete (env as Record<string, string | undefined>).NODE_ENV; // as a new user's shell would have it
    const child = spawn("npm", ["start"], { cwd: projectRoot, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 90_000;
      let health: any;
      while (Date.now() < deadline && !output.includes("Press Ctrl-C")) await new Promise((r) => setTimeout(r, 250));
      expect(output, "npm start never said it was ready").toContain("Press Ctrl-C");
      health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
      expect(health.ok, output).toBe(true);
      const key = output.match(/Demo key:\s+(svc_[A-Za-z0-9]{40})/)?.[1];
      expect(key, output).toBeDefined();
      expect(processesMentioning(dataDir).length).toBeGreaterThan(0);
    } finally {
      if (child.exitCode === null) {
        process.kill(-child.pid!, "SIGINT"); // what a terminal's Ctrl-C does: the whole process group
        await new Promise((resolve) => child.once("exit", resolve));
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(processesMentioning(dataDir)).toEqual([]);
    expect(processesMentioning(`PORT=${port}`)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);
});
