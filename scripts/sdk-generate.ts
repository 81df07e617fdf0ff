// npm run sdk:generate: rewrites the SDK's generated types and method table (sdk/src/generated/)
// from the OpenAPI document the server serves. Run it after adding a route or changing a route's
// schema; the suite fails until you do.
import fs from "node:fs";
import path from "node:path";
import { renderSdkTypes, SDK_GENERATED_DIR } from "@/lib/openapi/render-sdk-types";

const files = await renderSdkTypes();
fs.mkdirSync(SDK_GENERATED_DIR, { recursive: true });
for (const [name, contents] of Object.entries(files)) {
  const file = path.join(SDK_GENERATED_DIR, name);
  const changed = !fs.existsSync(file) || fs.readFileSync(file, "utf8") !== contents;
  if (changed) fs.writeFileSync(file, contents);
  console.log(`[sdk:generate] ${path.relative(process.cwd(), file)} ${changed ? "written" : "unchanged"}`);
}
