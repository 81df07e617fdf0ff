// /docs (rendered from /openapi.json) and the README's quickstart name the same environment
// variables: every curl sample of the served document reads $TOPUP_API_URL and $TOPUP_API_KEY, every
// client sample process.env.TOPUP_API_URL and process.env.TOPUP_API_KEY, the introduction names
// both, and they are what the README's quickstart exports.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { api } from "../helpers/api";

const README_NAMES = (() => {
  const readme = fs.readFileSync(path.join(projectRoot, "README.md"), "utf8");
  const exported = /^export (.+?)\s+#/m.exec(readme)?.[1] ?? "";
  return exported.split(/\s+/).map((assignment) => assignment.split("=")[0]);
})();

describe("the variable names of /docs", () => {
  it("are the README's quickstart's", async () => {
    expect(README_NAMES).toEqual(["TOPUP_API_URL", "TOPUP_API_KEY"]);
    const document = (await api("/openapi.json")).json;
    const samples = Object.values(document.paths as Record<string, Record<string, any>>)
      .flatMap((item) => Object.values(item))
      .flatMap((operation) => (operation["x-codeSamples"] ?? []) as { lang: string; source: string }[]);
    expect(samples.length).toBeGreaterThan(10);
    for (const { lang, source } of samples) {
      const used =
        lang === "Shell"
          ? [...source.matchAll(/\$([A-Z_]+)/g)].map((match) => match[1])
          : [...source.matchAll(/process\.env\.([A-Z_]+)/g)].map((match) => match[1]);
      expect([...new Set(used)].sort(), source).toEqual([...README_NAMES].sort());
    }
    const introduction: string = document.info.description;
    for (const name of README_NAMES) expect(introduction).toContain(`\`${name}\``);
    expect(introduction).not.toMatch(/`(BASE_URL|API_KEY)`/);
  });
});
