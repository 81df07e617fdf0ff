// `npm run dev` with no DATABASE_URL: Next's dev server on embedded PostgreSQL serves the API
// through the route files (/balance with the printed demo key) and the dashboard's login page, and
// Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops every process it started.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { findFreePort, processesWithEnv } from "../helpers/processes";

describe("npm run dev", () => {
  it("serves /balance with the demo key and the dashboard's login page, and Ctrl-C stops everything", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-dev-"));
    fs.chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      EMBEDDED_PG_PORT: String(await findFreePort()),
    };
    delete (env as Record<string, string | undefined>).NODE_ENV; // as a new user's shell would have it
    const child = spawn("npm", ["run", "dev"], {
      cwd: projectRoot,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    let base = "";
    try {
      await expect.poll(() => output, { timeout: 150_000, interval: 250 }).toContain("Press Ctrl-C");
      base = `http://127.0.0.1:${output.match(/Dev server: http:\/\/localhost:(\d+)/)?.[1]}`;
      const key = output.match(/Demo key:\s+(svc_[A-Za-z0-9]{40})/)?.[1];
      expect(key, output).toBeDefined();

      // The dev server compiles each route on its first request: no short timeouts here.
      const balance = await fetch(`${base}/balance`, { headers: { "x-api-key": key! } });
      expect(balance.status, output).toBe(200);
      expect(await balance.json()).toEqual({ success: true, balanceUsd: 100, currency: "USD" });
      const refused = await fetch(`${base}/api/balance`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ success: false, code: "MISSING_API_KEY" });

      const login = await fetch(`${base}/admin/login`);
      expect(login.status, output).toBe(200);
      const page = await login.text();
      expect(page).toContain('type="password"');
      expect(processesWithEnv("DATA_DIR", dataDir).length).toBeGreaterThan(2); // npm, dev.ts, next dev, worker ...
    } finally {
      if (child.exitCode === null) {
        process.kill(-child.pid!, "SIGINT");
        await new Promise((resolve) => child.once("exit", resolve));
      }
    }
    await expect.poll(() => processesWithEnv("DATA_DIR", dataDir), { timeout: 30_000, interval: 250 }).toEqual([]);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 240_000);
});
