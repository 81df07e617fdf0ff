// `npm run dev` with no DATABASE_URL and no HOST, as a new user runs it: Next's dev server on
// embedded PostgreSQL serves the API through the route files (/balance with the printed demo key)
// and the dashboard's login page, whose dev assets and HMR socket answer a page opened at 127.0.0.1
// or the machine's own address (and no other site), and Ctrl-C (SIGINT to the whole process group,
// as a terminal sends it) stops every process it started.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { findFreePort, processesWithEnv } from "../helpers/processes";
import { keepOutput } from "../helpers/process-logs";

/** Opens Next's HMR WebSocket at `url` as a page of `origin` would: 101, another status, or "refused". */
function openHmrSocket(url: string, origin: string): Promise<number | "refused"> {
  return new Promise((resolve) => {
    const request = http.get(`${url}/_next/hmr`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": crypto.randomBytes(16).toString("base64"),
        origin,
      },
    });
    request.once("upgrade", (response, socket) => {
      socket.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.once("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    // Next answers a refused upgrade with a bare "Unauthorized" on the socket, not an HTTP response.
    request.once("error", () => resolve("refused"));
  });
}

describe("npm run dev", () => {
  it("serves /balance with the demo key and the dashboard's login page, and Ctrl-C stops everything", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-dev-"));
    fs.chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: "0",
      EMBEDDED_PG_PORT: String(await findFreePort()),
    };
    // As a new user's shell would have it: HOST unset listens on every address.
    delete (env as Record<string, string | undefined>).NODE_ENV;
    delete (env as Record<string, string | undefined>).HOST;
    const child = spawn("npm", ["run", "dev"], {
      cwd: projectRoot,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    keepOutput("npm-run-dev", child);
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
      expect(await balance.json()).toEqual({ success: true, balanceUsd: 100, currency: "USD", livemode: true });
      const refused = await fetch(`${base}/api/balance`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ success: false, code: "MISSING_API_KEY" });

      const login = await fetch(`${base}/admin/login`);
      expect(login.status, output).toBe(200);
      const page = await login.text();
      expect(page).toContain('type="password"');
      expect(output).toContain("npm run bot:console -- --as");

      // The page, opened at 127.0.0.1 or at this machine's own address, loads its dev scripts
      // and opens the HMR socket; a page of another site is refused both.
      const port = new URL(base).port;
      const lan = Object.values(os.networkInterfaces())
        .flat()
        .find((address) => address && address.family === "IPv4" && !address.internal)?.address;
      const script = page.match(/<script[^>]+src="(\/_next\/[^"]+)"/)?.[1];
      expect(script, page).toBeDefined();
      for (const origin of [`http://127.0.0.1:${port}`, ...(lan ? [`http://${lan}:${port}`] : [])]) {
        const asset = await fetch(`${origin}${script}`, { headers: { origin, "sec-fetch-site": "same-origin" } });
        expect(asset.status, `${origin}${script}\n${output}`).toBe(200);
        expect(await openHmrSocket(origin, origin), output).toBe(101);
      }
      const foreign = await fetch(`${base}${script}`, { headers: { origin: "http://attacker.example" } });
      expect(foreign.status).toBe(403);
      expect(await openHmrSocket(base, "http://attacker.example")).toBe("refused");
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
