// npm run docs:errors: rewrites the error reference (docs/errors.md) from the error catalogue.
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../lib/config/env";
import { ERROR_REFERENCE_FILE, withErrorReference } from "../lib/http/render-error-reference";

const file = path.join(projectRoot, ERROR_REFERENCE_FILE);
const before = fs.readFileSync(file, "utf8");
const after = withErrorReference(before);
if (after === before) console.log(`${ERROR_REFERENCE_FILE} is up to date`);
else {
  fs.writeFileSync(file, after);
  console.log(`${ERROR_REFERENCE_FILE} rewritten`);
}
