import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/**/*.test.ts"],
    // Test files share one database and one server; each starts from a clean state.
    fileParallelism: false,
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ["default", "./tests/setup/summary-reporter.ts"],
  },
});
