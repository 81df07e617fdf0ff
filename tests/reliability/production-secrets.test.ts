// Secrets come only from the environment: in production the service refuses to start on the
// development defaults that anyone can read in this repository.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { projectRoot } from "@/lib/config/env";

function startIn(env: Record<string, string | undefined>, script: string) {
  // Only what is given here: no secret leaks in from the test process's environment.
  const childEnv: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: inject("databaseUrl"),
    PORT: "0",
    SERVE_DASHBOARD: "0",
    ...env,
  };
  return spawnSync(process.execPath, ["--import", "tsx", path.join(projectRoot, "scripts", script)], {
    env: childEnv as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 20_000,
  });
}

describe("production secrets", () => {
  it.each(["serve.ts", "worker.ts"])("%s refuses to start with the development defaults", (script) => {
    const result = startIn({ NODE_ENV: "production" }, script);
    expect(result.status).not.toBe(0);
    expect(result.stderr + result.stdout).toContain("Refusing to start in production with development secrets");
    expect(result.stderr + result.stdout).toMatch(/APP_SECRET.*CODES_ENCRYPTION_KEY.*NEXTAUTH_SECRET/);
  });

  it("refuses a secret left at its development value, naming only that one", () => {
    const result = startIn(
      { NODE_ENV: "production", APP_SECRET: "dev-only-app-secret-change-me", CODES_ENCRYPTION_KEY: "k".repeat(32), NEXTAUTH_SECRET: "n".repeat(32) },
      "serve.ts",
    );
    expect(result.status).not.toBe(0);
    const output = result.stderr + result.stdout;
    expect(output).toContain("APP_SECRET");
    expect(output).not.toContain("CODES_ENCRYPTION_KEY");
  });
});
