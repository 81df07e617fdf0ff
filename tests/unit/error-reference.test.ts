// The error reference is complete and generated: every code of the catalogue has its entry (status,
// when, retryable, what to do), the table in docs/errors.md is exactly the catalogue's rendering, and the
// OpenAPI document carries every code in `x-error-codes` and in the Error schema.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { errorBody, errorCatalogue, type ErrorReference } from "@/lib/http/errors";
import {
  ERROR_REFERENCE_FILE,
  ERROR_REFERENCE_MARKERS,
  listErrorCodes,
  renderErrorReferenceMarkdown,
} from "@/lib/http/render-error-reference";
import { buildOpenApiDocument } from "@/lib/openapi/build-openapi-document";
import { publicRoutes } from "@/app/api/public-routes";

const catalogue = Object.entries(errorCatalogue) as [string, ErrorReference][];
const reference = fs.readFileSync(path.join(projectRoot, ERROR_REFERENCE_FILE), "utf8");
const document = buildOpenApiDocument(publicRoutes) as any;

// Codes whose name is not the documented string with underscores, and why.
const NAMED_OTHERWISE: Record<string, string> = {
  RATE_LIMIT: "the contract pairs code RATE_LIMIT with error TOO MANY REQUESTS",
  IDEMPOTENCY_MISMATCH: "our own code; the error string explains it",
  CODE_USED: "our own code; the error string explains it",
};

function referenceSection(): string {
  const start = reference.indexOf(ERROR_REFERENCE_MARKERS.start);
  const end = reference.indexOf(ERROR_REFERENCE_MARKERS.end);
  expect(start, `${ERROR_REFERENCE_FILE} has the error-reference markers`).toBeGreaterThan(-1);
  return reference.slice(start + ERROR_REFERENCE_MARKERS.start.length, end).trim();
}

describe.each(catalogue)("%s", (code, entry) => {
  it("has a complete reference entry", () => {
    expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
    expect([400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 501, 503]).toContain(entry.status);
    expect(entry.error.trim(), "error").not.toBe("");
    expect(entry.when.trim().length, "when").toBeGreaterThan(10);
    expect(entry.action.trim().length, "action").toBeGreaterThan(5);
    expect(typeof entry.retryable, "retryable").toBe("boolean");
  });

  if (/^[A-Z_ ]+$/.test(entry.error) && !NAMED_OTHERWISE[code])
    it("is the documented string joined by underscores, that string being a code-like phrase", () => {
      expect(code).toBe(entry.error.replace(/ /g, "_"));
    });

  it("is in every failure body built for it", () => {
    expect(errorBody(code as keyof typeof errorCatalogue)).toEqual({ success: false, error: entry.error, code });
  });

  it("has its row in the error reference (docs/errors.md)", () => {
    const row = referenceSection()
      .split("\n")
      .find((line) => line.includes(`| \`${code}\` |`));
    expect(row, `docs/errors.md row for ${code} (run npm run docs:errors)`).toBeDefined();
    expect(row).toContain(`| ${entry.status} |`);
    expect(row).toContain(`| ${entry.retryable ? "yes" : "no"} |`);
  });

  it("has its entry in the OpenAPI document", () => {
    expect(document["x-error-codes"][code]).toEqual({
      status: entry.status,
      error: entry.error,
      when: entry.when,
      retryable: entry.retryable,
      action: entry.action,
      ...("retryAfter" in entry ? { retryAfter: true } : {}),
    });
    expect(document.components.schemas.Error.properties.code.enum).toContain(code);
  });
});

describe("the generated references", () => {
  it("the table in docs/errors.md is exactly the catalogue's rendering (regenerate with npm run docs:errors)", () => {
    expect(referenceSection()).toBe(renderErrorReferenceMarkdown());
  });

  it("lists no code the catalogue does not have, in docs/errors.md or the OpenAPI document", () => {
    const codes = new Set(catalogue.map(([code]) => code));
    const documentedCodes = [...referenceSection().matchAll(/^\| \d{3} \| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(documentedCodes.sort()).toEqual([...codes].sort());
    expect(Object.keys(document["x-error-codes"]).sort()).toEqual([...codes].sort());
    expect(
      listErrorCodes()
        .map((e) => e.code)
        .sort(),
    ).toEqual([...codes].sort());
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const code of operation["x-error-codes"]) expect(codes.has(code), `${method} ${path}: ${code}`).toBe(true);
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (status === "200") continue;
          const listed = operation["x-error-codes"].filter(
            (c: string) => String(errorCatalogue[c as keyof typeof errorCatalogue].status) === status,
          );
          expect(listed.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const c of listed) expect(response.description).toContain(`\`${c}\``);
        }
      }
    }
  });
});
