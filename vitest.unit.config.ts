// `npm run test:unit`: the pure unit tests alone — no database, no server, no Next build, so no
// global setup. `npm test` runs them too, with everything else.
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/unit/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
