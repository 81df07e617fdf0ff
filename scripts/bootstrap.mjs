#!/usr/bin/env node
// Entry point of `npm start`, `npm run dev`, `npm test`, `npm run fuzz`, `npm run build`, `npm run bench`: plain JavaScript with no dependencies, so
// it runs on a fresh clone. It installs packages when missing, generates the Prisma client
// offline, builds Next when sources changed, then hands over to the TypeScript command.
// It runs before packages exist, so it reads its few switches (SKIP_BUILD, FUZZ_CASES_PER_ENDPOINT,
// PRISMA_SCHEMA_ENGINE_BINARY) itself rather than through lib/config, and passes its environment on.
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withoutKnownEngineWarnings } from "./npm-install-output.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const command = process.argv[2];
const rest = process.argv.slice(3);

function run(cmd, args, extraEnv = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...extraEnv } });
  if (result.status !== 0) {
    console.error(`[bootstrap] ${cmd} ${args.join(" ")} failed`);
    process.exit(result.status ?? 1);
  }
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function newestIn(dir, skip) {
  let newest = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip.some((s) => full.startsWith(s))) continue;
    newest = Math.max(newest, entry.isDirectory() ? newestIn(full, skip) : mtime(full));
  }
  return newest;
}

function npmInstall() {
  // stderr through the filter: on an older Node than package.json's engines, npm's warning that the
  // project wants a newer one is said once, not again per package (scripts/npm-install-output.mjs).
  const result = spawnSync("npm", ["install", "--no-audit", "--no-fund"], {
    cwd: root,
    stdio: ["inherit", "inherit", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stderr.write(withoutKnownEngineWarnings(result.stderr ?? ""));
  if (result.status !== 0) {
    console.error("[bootstrap] npm install failed");
    process.exit(result.status ?? 1);
  }
}

function ensureInstalled() {
  const installed = path.join(root, "node_modules", ".package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (!fs.existsSync(installed)) {
    console.log("[bootstrap] installing packages (first run)...");
    // `npm install` rather than `npm ci`: it honours the lockfile's versions, and npm ci rejects a
    // lockfile that lacks other platforms' optional packages (Next's @next/swc-* builds).
    npmInstall();
  } else if (mtime(lock) > mtime(installed) || mtime(path.join(root, "package.json")) > mtime(installed)) {
    console.log("[bootstrap] package.json changed: installing packages...");
    npmInstall();
  }
}

function ensurePrismaClient() {
  const schema = path.join(root, "prisma", "schema.prisma");
  const client = path.join(root, "lib", "generated", "prisma", "client.ts");
  if (mtime(client) >= mtime(schema) && mtime(client) > 0) return;
  console.log("[bootstrap] generating the Prisma client...");
  // Prisma's CLI wants a schema-engine binary before it will generate, and cannot download one
  // offline; generation itself does not use it, so any executable satisfies the check.
  run(process.execPath, [path.join(root, "node_modules", "prisma", "build", "index.js"), "generate"], {
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  });
}

function ensureBuilt() {
  const buildId = path.join(root, ".next", "BUILD_ID");
  const sources = Math.max(
    newestIn(path.join(root, "app"), []),
    newestIn(path.join(root, "lib"), [path.join(root, "lib", "generated")]),
    mtime(path.join(root, "next.config.ts")),
    mtime(path.join(root, "package-lock.json")),
  );
  if (mtime(buildId) >= sources && mtime(buildId) > 0) return;
  console.log("[bootstrap] building the dashboard (next build)...");
  run(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
    NEXT_TELEMETRY_DISABLED: "1",
  });
}

function handOver(args) {
  const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit", env: process.env });
  // Ctrl-C reaches the child through the terminal's process group; wait for it to finish cleanly.
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const tsx = ["--import", "tsx"];
switch (command) {
  case "start":
    ensureInstalled();
    ensurePrismaClient();
    ensureBuilt();
    handOver([...tsx, path.join(root, "scripts", "start.ts"), ...rest]);
    break;
  case "dev":
    ensureInstalled();
    ensurePrismaClient();
    handOver([...tsx, path.join(root, "scripts", "dev.ts"), ...rest]);
    break;
  case "build":
    ensureInstalled();
    ensurePrismaClient();
    ensureBuilt();
    break;
  case "generate":
    ensureInstalled();
    ensurePrismaClient();
    break;
  case "test":
    ensureInstalled();
    ensurePrismaClient();
    if (process.env.SKIP_BUILD !== "1") ensureBuilt();
    handOver([path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...rest]);
    break;
  case "fuzz": {
    // `npm run fuzz -- 10000`: the generated hostile-input suite alone, with that many cases per
    // endpoint (or FUZZ_CASES_PER_ENDPOINT), on the same setup as `npm test`.
    const vitestArgs = [...rest];
    if (vitestArgs[0] !== undefined && !vitestArgs[0].startsWith("-")) {
      const count = vitestArgs.shift();
      if (!/^[1-9][0-9]*$/.test(count)) {
        console.error("usage: npm run fuzz [-- <cases per endpoint> [vitest options]]");
        process.exit(2);
      }
      process.env.FUZZ_CASES_PER_ENDPOINT = count;
    }
    console.log(`[fuzz] ${process.env.FUZZ_CASES_PER_ENDPOINT ?? "the default number of"} cases per endpoint`);
    ensureInstalled();
    ensurePrismaClient();
    if (process.env.SKIP_BUILD !== "1") ensureBuilt();
    handOver([
      path.join(root, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "tests/reliability/hostile-input.test.ts",
      ...vitestArgs,
    ]);
    break;
  }
  case "bench":
    ensureInstalled();
    ensurePrismaClient();
    handOver([...tsx, path.join(root, "bench", "run.ts"), ...rest]);
    break;
  default:
    console.error("usage: bootstrap.mjs start|dev|test|fuzz|build|generate|bench");
    process.exit(2);
}
