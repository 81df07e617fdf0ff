// Every environment variable is read and validated in lib/config/ (README: Configuration); this
// fails on any other read of process.env in the service's code, apart from the exceptions below.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ConfigError, loadEnv } from "@/lib/config/env";

const root = path.resolve(import.meta.dirname, "../..");
const SCANNED = [
  "lib",
  "app",
  "bot",
  "scripts",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "prisma.config.ts",
];
const SKIPPED = ["lib/config/", "lib/generated/"];

/** Files that may read process.env, each with the reason it is not configuration. */
const EXCEPTIONS: Record<string, string> = {
  "scripts/bootstrap.mjs":
    "runs before packages are installed, so it cannot load lib/config; it hands its environment to the commands it starts",
  "proxy.ts": "NODE_ENV is compiled into Next's proxy bundle by Next",
  "instrumentation.ts": "NEXT_RUNTIME is set by Next to say which runtime loads the file, not by whoever deploys",
  "prisma.config.ts": "read by the Prisma CLI, not by the service",
};

function sourceFiles(entry: string): string[] {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [entry];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((child) => {
    const relative = `${entry}/${child.name}`;
    if (SKIPPED.some((skip) => `${relative}/`.startsWith(skip))) return [];
    if (child.isDirectory()) return sourceFiles(relative);
    return /\.(ts|tsx|mts|js|mjs|cjs)$/.test(child.name) ? [relative] : [];
  });
}

const isProcess = (node: ts.Node) => ts.isIdentifier(node) && node.text === "process";

/** Lines that reach process.env: `process.env`, `process["env"]`, `const { env } = process`, `import { env } from "process"`. */
function environmentReads(file: string, text = fs.readFileSync(path.join(root, file), "utf8")): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const hit = (node: ts.Node) => lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && isProcess(node.expression) && node.name.text === "env") hit(node);
    if (
      ts.isElementAccessExpression(node) &&
      isProcess(node.expression) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === "env"
    )
      hit(node);
    if (
      ts.isVariableDeclaration(node) &&
      node.initializer &&
      isProcess(node.initializer) &&
      ts.isObjectBindingPattern(node.name)
    )
      hit(node);
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      /^(node:)?process$/.test(node.moduleSpecifier.text)
    )
      hit(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe("configuration", () => {
  it("is read from the environment in lib/config alone", () => {
    const files = SCANNED.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const reads = files
      .filter((file) => !(file in EXCEPTIONS))
      .flatMap((file) => environmentReads(file).map((line) => `${file}:${line}`));
    expect(reads).toEqual([]);
  });

  it("lists only exceptions that still read the environment", () => {
    for (const file of Object.keys(EXCEPTIONS)) expect(environmentReads(file), file).not.toEqual([]);
  });

  it("catches each form of read", () => {
    const probe = [
      'import { env as e } from "node:process";',
      "const a = process.env.X;",
      'const b = process["env"];',
      "const { env } = process;",
      'const c = "process.env.IN_A_STRING"; // process.env in a comment',
    ].join("\n");
    expect(environmentReads("probe.ts", probe)).toEqual([1, 2, 3, 4]);
  });

  it("applies the defaults, and refuses a bad value naming the variable (and never a secret)", () => {
    const defaults = loadEnv({});
    expect(defaults).toMatchObject({
      nodeEnv: "development",
      port: 3000,
      pgPoolMax: 10,
      settingsCacheMs: 1000,
      serveDashboard: true,
      webhooksAllowPrivate: false,
      supplier: "sandbox",
      worker: { concurrency: 10, sweepIntervalMs: 5000, webhookConcurrency: 10, webhookPollIntervalMs: undefined },
      fulfilment: { pollBaseMs: 2000, pollMaxMs: 60_000, deadlineMs: 600_000 },
      rateLimit: { prefix: "rl", timeoutMs: 300, burst: { tokens: 10, windowSeconds: 1 } },
    });
    expect(loadEnv({ PG_POOL_MAX: " 4 ", SERVE_DASHBOARD: "0", TRUSTED_PROXIES: "10.0.0.1, 10.0.0.2" })).toMatchObject({
      pgPoolMax: 4,
      serveDashboard: false,
      trustedProxies: ["10.0.0.1", "10.0.0.2"],
    });
    expect(loadEnv({ SUPPLIER_POLL_MS: "" }).fulfilment.pollBaseMs).toBe(2000);

    for (const [name, value] of [
      ["SUPPLIER_POLL_MS", "2s"],
      ["PG_POOL_MAX", "0"],
      ["PORT", "70000"],
      ["NODE_ENV", "prod"],
      ["WEBHOOKS_ALLOW_PRIVATE", "yes"],
      ["WORKER_CONCURRENCY", "1.5"],
    ] as const) {
      expect(() => loadEnv({ [name]: value }), name).toThrow(ConfigError);
      expect(() => loadEnv({ [name]: value }), name).toThrow(new RegExp(`${name}: .*\\(got "${value}"\\)`));
    }
    expect(() => loadEnv({ PG_POOL_MAX: "x", WEBHOOK_CONCURRENCY: "-1" })).toThrow(
      /PG_POOL_MAX.*\n.*WEBHOOK_CONCURRENCY/,
    );
    expect(() => loadEnv({ UPSTASH_REDIS_REST_URL: "https://redis.example" })).toThrow(/UPSTASH_REDIS_REST_TOKEN/);
    expect(() => loadEnv({ H2H_BASE_URL: "ftp://user:hunter2@x" })).toThrow(/H2H_BASE_URL: must be an http\(s\) URL$/m);
    expect(() => loadEnv({ H2H_BASE_URL: "ftp://user:hunter2@x" })).not.toThrow(/hunter2/);
  });
});
