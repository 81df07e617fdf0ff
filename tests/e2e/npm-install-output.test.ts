// The install step of `npm start` and `npm test` (scripts/bootstrap.mjs): npm's dry run of the same
// install, on this repository's package.json and lockfile, filtered as bootstrap filters it, shows
// nothing on a Node that package.json's engines name (CI runs this file under Node 24 too: .ci/run),
// and on an older Node only npm's warning that this project wants a newer one: no repeat of it per
// package, no notice about install scripts. Other engine warnings still reach the user.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { withoutKnownEngineWarnings } from "../../scripts/npm-install-output.mjs";

/** Whether `range` (caret ranges joined by ||, as package.json's engines writes it) accepts this Node. */
function acceptsThisNode(range: string): boolean {
  expect(range, "engines.node in a form this test reads").toMatch(/^\^\d+(\.\d+)?( \|\| \^\d+(\.\d+)?)*$/);
  const [major, minor] = process.versions.node.split(".").map(Number);
  return range.split("||").some((part) => {
    const [wantMajor, wantMinor = 0] = part.trim().slice(1).split(".").map(Number);
    return major === wantMajor && minor! >= wantMinor;
  });
}

const npmVersion = () => spawnSync("npm", ["--version"], { encoding: "utf8" }).stdout.trim();

describe("npm install as npm start runs it", () => {
  it("prints nothing on a supported Node, and on an older one only that the project wants a newer one", () => {
    const { name, version, engines } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8"));
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
      const shown = withoutKnownEngineWarnings(result.stderr).trim();
      if (acceptsThisNode(engines.node)) expect(shown).toBe("");
      else
        expect(shown).toBe(
          [
            "npm warn EBADENGINE Unsupported engine {",
            `npm warn EBADENGINE   package: '${name}@${version}',`,
            `npm warn EBADENGINE   required: { node: '${engines.node}' },`,
            `npm warn EBADENGINE   current: { node: '${process.version}', npm: '${npmVersion()}' }`,
            "npm warn EBADENGINE }",
          ].join("\n"),
        );
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
