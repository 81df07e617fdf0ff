// npm run lint:openapi: the OpenAPI document as GET /openapi.json serves it, linted by Redocly
// (`recommended`, no warnings) and Spectral (`spectral:oas`, no warnings). Both linters' settings are
// here, beside the one exception they share: POST /balance has no success answer by design (it is
// always 501 on this build), which both rulesets would otherwise flag.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { servedOpenApiJson } from "@/lib/openapi/render-sdk-types";
import { projectRoot } from "@/lib/config/env";

const NO_SUCCESS_ANSWER = "#/paths/~1balance/post/responses";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openapi-lint-"));
const document = path.join(dir, "openapi.json");
fs.writeFileSync(document, servedOpenApiJson());
// telemetry: off, so a lint sends no usage data anywhere.
fs.writeFileSync(path.join(dir, "redocly.yaml"), "extends:\n  - recommended\ntelemetry: off\n");
fs.writeFileSync(
  path.join(dir, ".redocly.lint-ignore.yaml"),
  `openapi.json:\n  operation-2xx-response:\n    - '${NO_SUCCESS_ANSWER}'\n`,
);
fs.writeFileSync(
  path.join(dir, ".spectral.yaml"),
  [
    "extends: ['spectral:oas']",
    "overrides:",
    `  - files: ['openapi.json${NO_SUCCESS_ANSWER}']`,
    "    rules:",
    "      operation-success-response: 'off'",
    "",
  ].join("\n"),
);

function run(bin: string, args: string[]) {
  const result = spawnSync(path.join(projectRoot, "node_modules", ".bin", bin), args, { cwd: dir, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

let failed = false;

const redocly = run("redocly", ["lint", "--config", "redocly.yaml", "--format", "json", "openapi.json"]);
const redoclyTotals = /"totals":\s*(\{[^}]*\})/.exec(redocly.output);
const totals = redoclyTotals ? (JSON.parse(redoclyTotals[1]!) as { errors: number; warnings: number }) : undefined;
if (redocly.status !== 0 || !totals || totals.errors > 0 || totals.warnings > 0) {
  failed = true;
  console.error(run("redocly", ["lint", "--config", "redocly.yaml", "openapi.json"]).output);
  console.error("[lint:openapi] redocly lint (recommended): problems above");
} else {
  console.log("[lint:openapi] redocly lint (recommended): no errors, no warnings");
}

const spectral = run("spectral", ["lint", "--ruleset", ".spectral.yaml", "--fail-severity", "warn", "openapi.json"]);
if (spectral.status !== 0) {
  failed = true;
  console.error(spectral.output);
  console.error("[lint:openapi] spectral lint (spectral:oas): problems above");
} else {
  console.log("[lint:openapi] spectral lint (spectral:oas): no errors, no warnings");
}

fs.rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
