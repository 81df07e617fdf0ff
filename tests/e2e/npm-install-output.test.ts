// The install step of `npm start` and `npm test` (scripts/bootstrap.mjs) on the Node the README
// names: npm's dry run of the same install, on this repository's package.json and lockfile, shows
// nothing once filtered as bootstrap filters it: no engine warning of the browser-only packages, no
// notice about install scripts. Other engine warnings still reach the user.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { withoutKnownEngineWarnings } from "../../scripts/npm-install-output.mjs";

describe("npm install as npm start runs it", () => {
  it("prints no engine warning and no install-script notice", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-install-"));
    try {
      for (const file of ["package.json", "package-lock.json"])
        fs.copyFileSync(path.join(projectRoot, file), path.join(dir, file));
      // Offline and with an empty cache: the lockfile alone decides what would be installed.
      const result = spawnSync("npm", ["install", "--dry-run", "--offline", "--no-audit", "--no-fund"], {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_cache: path.join(dir, "cache") },
      });
      expect(result.status, result.stderr).toBe(0);
      expect(withoutKnownEngineWarnings(result.stderr).trim()).toBe("");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("keeps any other package's engine warning and every other line", () => {
    const block = (pkg: string) =>
      [
        "npm warn EBADENGINE Unsupported engine {",
        `npm warn EBADENGINE   package: '${pkg}',`,
        "npm warn EBADENGINE   required: { node: '>=22' },",
        "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
        "npm warn EBADENGINE }",
      ].join("\n");
    const stderr = [block("@scalar/api-client@3.21.1"), block("pg@9.0.0"), "npm warn deprecated old@1.0.0"].join("\n");
    expect(withoutKnownEngineWarnings(stderr)).toBe([block("pg@9.0.0"), "npm warn deprecated old@1.0.0"].join("\n"));
  });
});
