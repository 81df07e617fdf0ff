// The bench's switch (replaceCallerAuthenticationForBench) turns off key lookup and rate limits:
// production must refuse it, nothing but the bench's own host may call it, and nothing else swaps
// the wrapper's caller authentication.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

async function loadSwitch(nodeEnv: string) {
  vi.stubEnv("NODE_ENV", nodeEnv);
  vi.resetModules();
  return (await import("@/bench/replace-caller-authentication")).replaceCallerAuthenticationForBench;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(full);
    return /\.(ts|tsx|mts|mjs)$/.test(entry.name) ? [full] : [];
  });
}

describe("the bench's auth-off switch", () => {
  it("is refused in production", async () => {
    const replace = await loadSwitch("production");
    expect(() => replace(async () => Promise.reject(new Error("never called")))).toThrow(/production/);
  });

  it("is called from bench/serve-auth-off.ts alone, and is the only code that swaps the wrapper's authentication", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const files = ["lib", "app", "scripts", "bot", "bench"]
      .filter((dir) => fs.existsSync(path.join(root, dir)))
      .flatMap((dir) => sourceFiles(path.join(root, dir)));
    const containing = (text: string) =>
      files
        .filter((file) => fs.readFileSync(file, "utf8").includes(text))
        .map((file) => path.relative(root, file))
        .sort();
    expect(containing("replaceCallerAuthenticationForBench(")).toEqual([
      "bench/replace-caller-authentication.ts",
      "bench/serve-auth-off.ts",
    ]);
    expect(containing("callerAuthentication.authenticate =")).toEqual(["bench/replace-caller-authentication.ts"]);
  });
});
