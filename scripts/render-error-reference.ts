// npm run docs:errors: rewrites the README's error reference from the error catalogue.
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../lib/config/env";
import { withErrorReference } from "../lib/http/render-error-reference";

const file = path.join(projectRoot, "README.md");
const before = fs.readFileSync(file, "utf8");
const after = withErrorReference(before);
if (after === before) console.log("README.md error reference is up to date");
else {
  fs.writeFileSync(file, after);
  console.log("README.md error reference rewritten");
}
