// `npm run test:unit`: the pure unit tests alone — no database, no server, no Next build, so no
// global setup. `npm test` runs them too, with everything else.
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/unit/**/*.test.ts"],
    testTimeout: 30_000,
    // The unit tests keep no state between files, so each worker imports the shared modules (zod
    // schemas, the route table, the OpenAPI builder) once rather than once per file.
    isolate: false,
  },
});
