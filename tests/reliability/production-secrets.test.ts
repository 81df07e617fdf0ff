// Secrets have no default in the code. In production each comes from the environment with at least
// 32 characters, or the process refuses to start; elsewhere the data directory's generated secrets
// (mode 0600) fill in, the same for every process of the checkout.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { freePort } from "../helpers/free-port";
import { assertNextBuilt } from "../helpers/next-start";
import {
  MIN_PRODUCTION_SECRET_LENGTH,
  SECRET_NAMES,
  SECRETS_FILE_NAME,
  loadOrCreateSecretsFile,
  resolveSecrets,
} from "@/lib/config/secrets";
import { keepOutput } from "../helpers/process-logs";
import { suiteDatabaseUrl } from "../helpers/suite";

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-secrets-"));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // Only what is given here: no secret leaks in from the test process's environment.
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: suiteDatabaseUrl(),
    PORT: "0",
    HOST: "127.0.0.1",
    SERVE_DASHBOARD: "0",
    ...env,
  } as unknown as NodeJS.ProcessEnv;
}

function startIn(env: Record<string, string | undefined>, script: string) {
  return spawnSync(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", script)], {
    env: childEnv(env),
    encoding: "utf8",
    timeout: 30_000,
  });
}

const strong = (letter: string) => letter.repeat(MIN_PRODUCTION_SECRET_LENGTH);

describe("production secrets", () => {
  it.each(["serve.ts", "worker.ts"])(
    "%s refuses to start in production without secrets, even with a data directory",
    (script) => {
      const dataDir = tempDir();
      loadOrCreateSecretsFile(dataDir); // generated secrets are for development only
      const result = startIn({ NODE_ENV: "production", DATA_DIR: dataDir }, script);
      expect(result.status).not.toBe(0);
      const output = result.stderr + result.stdout;
      expect(output).toContain("Refusing to start in production");
      expect(output).toMatch(/APP_SECRET \(unset\).*CODES_ENCRYPTION_KEY \(unset\).*NEXTAUTH_SECRET \(unset\)/);
    },
  );

  it("next start refuses to start in production without secrets, exiting before it answers anything", async () => {
    assertNextBuilt();
    const dataDir = tempDir();
    loadOrCreateSecretsFile(dataDir);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        path.join(projectRoot, "node_modules", "next", "dist", "bin", "next"),
        "start",
        "-H",
        "127.0.0.1",
        "-p",
        `${port}`,
      ],
      {
        cwd: projectRoot,
        env: childEnv({ NODE_ENV: "production", DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1" }),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    keepOutput("next-start", child);
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    // Asked all along, from the start to the exit: not one answer, health check or order.
    const answered: string[] = [];
    let running = true;
    const probing = (async () => {
      while (running) {
        for (const [method, pathname] of [
          ["GET", "/healthz"],
          ["POST", "/orders"],
        ] as const) {
          const answer = await fetch(`http://127.0.0.1:${port}${pathname}`, { method }).catch(() => undefined);
          if (answer) answered.push(`${method} ${pathname}: ${answer.status}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    const code = await exited;
    clearTimeout(timer);
    running = false;
    await probing;
    expect(code, output).not.toBe(0);
    expect(code, `next start kept running without its secrets:\n${output}`).not.toBeNull();
    expect(output).toContain("Refusing to start in production");
    expect(output).toMatch(/APP_SECRET \(unset\).*CODES_ENCRYPTION_KEY \(unset\).*NEXTAUTH_SECRET \(unset\)/);
    expect(answered).toEqual([]);
  }, 60_000);

  it("refuses a secret shorter than 32 characters, naming only that one", () => {
    const result = startIn(
      {
        NODE_ENV: "production",
        APP_SECRET: "a".repeat(MIN_PRODUCTION_SECRET_LENGTH - 1),
        CODES_ENCRYPTION_KEY: strong("k"),
        NEXTAUTH_SECRET: strong("n"),
      },
      "serve.ts",
    );
    expect(result.status).not.toBe(0);
    const output = result.stderr + result.stdout;
    expect(output).toContain(`APP_SECRET (only ${MIN_PRODUCTION_SECRET_LENGTH - 1} characters)`);
    expect(output).not.toContain("CODES_ENCRYPTION_KEY");
    expect(output).not.toContain("NEXTAUTH_SECRET");
  });

  it("starts in production with three secrets of 32 characters (the refusal is not unconditional)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", "serve.ts")], {
      env: childEnv({
        NODE_ENV: "production",
        APP_SECRET: strong("a"),
        CODES_ENCRYPTION_KEY: strong("k"),
        NEXTAUTH_SECRET: strong("n"),
        // Verify and redeem at a real supplier, which production also requires (production-suppliers.test.ts).
        SUPPLIER: "h2h",
        H2H_BASE_URL: "http://127.0.0.1:9",
        H2H_PARTNER_ID: "partner",
        H2H_SECRET: "secret",
      }),
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    keepOutput("web", child);
    let output = "";
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`serve.ts exited with ${code}: ${output}`)));
        child.on("message", (message: { type?: string; port?: number }) => {
          if (message?.type === "listening" && message.port) resolve(message.port);
        });
      });
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});

describe("development secrets", () => {
  it("are generated once per data directory, random, 0600, and the environment overrides each one", () => {
    const dataDir = tempDir();
    const first = resolveSecrets({ environment: {}, production: false, dataDir });
    const file = path.join(dataDir, SECRETS_FILE_NAME);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveSecrets({ environment: {}, production: false, dataDir })).toEqual(first);
    const other = resolveSecrets({ environment: {}, production: false, dataDir: tempDir() });
    for (const key of Object.keys(first) as (keyof typeof first)[]) {
      expect(first[key].length).toBeGreaterThanOrEqual(MIN_PRODUCTION_SECRET_LENGTH);
      expect(other[key]).not.toBe(first[key]);
    }
    const overridden = resolveSecrets({
      environment: { APP_SECRET: "from-the-environment" },
      production: false,
      dataDir,
    });
    expect(overridden).toEqual({ ...first, appSecret: "from-the-environment" });
  });

  it("processes starting at once in a fresh data directory all end up with the same secrets", async () => {
    const dataDir = tempDir();
    const script = `import { loadOrCreateSecretsFile } from ${JSON.stringify(path.join(projectRoot, "lib/config/secrets.ts"))};
      process.stdout.write(JSON.stringify(loadOrCreateSecretsFile(process.argv[1])));`;
    const runs = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, dataDir], {
              stdio: ["ignore", "pipe", "inherit"],
            });
            let out = "";
            child.stdout.on("data", (chunk) => (out += chunk));
            // "close", not "exit": at "exit" the last chunk of stdout may not have been read yet.
            child.once("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
          }),
      ),
    );
    expect(new Set(runs).size).toBe(1);
    expect(Object.keys(JSON.parse(runs[0]!)).sort()).toEqual([...SECRET_NAMES].sort());
    expect(fs.readdirSync(dataDir)).toEqual([SECRETS_FILE_NAME]); // no temp file left behind
  });
});
