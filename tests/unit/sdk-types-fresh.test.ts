// The SDK's generated types and method table are what `npm run sdk:generate` would write now: a
// route added or a route schema changed without regenerating fails here, so the client cannot drift
// from the OpenAPI document the server serves. (tests/integration/sdk-client.test.ts checks that the served /openapi.json is the
// document rendered here, byte for byte.)
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderSdkTypes, SDK_GENERATED_DIR } from "@/lib/openapi/render-sdk-types";

describe("sdk/src/generated", async () => {
  const fresh = await renderSdkTypes();

  it.each(Object.keys(fresh))("%s matches a fresh rendering of the OpenAPI document", (name) => {
    const file = path.join(SDK_GENERATED_DIR, name);
    const checkedIn = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "(missing)";
    // Not toBe on the whole text: a 2,700-line diff hides the point. Name the first differing line.
    if (checkedIn !== fresh[name]) {
      const a = checkedIn.split("\n");
      const b = fresh[name]!.split("\n");
      const line = a.findIndex((text, i) => text !== b[i]);
      expect.fail(
        `sdk/src/generated/${name} is stale: run \`npm run sdk:generate\` and commit the result.\n` +
          `First difference at line ${line + 1}:\n  checked in: ${a[line] ?? "(end of file)"}\n  fresh:      ${b[line] ?? "(end of file)"}`,
      );
    }
  });

  it("holds no file the generator does not write", () => {
    expect(fs.readdirSync(SDK_GENERATED_DIR).sort()).toEqual(Object.keys(fresh).sort());
  });
});
