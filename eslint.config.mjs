import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

export default defineConfig([
  // Next's rules (React, hooks, a11y, import, @next/next) and typescript-eslint's recommended set.
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // Omitting a field by rest destructuring (`const { secret: _, ...rest } = row`) is how this code
      // drops columns; stubs keep their parameters (`_ip`) to match the signature they stand in for.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", ignoreRestSiblings: true }],
      // A handler built before the object it calls (a test server and its fake) needs `let` for that.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ["tests/**", "bench/**"],
    rules: {
      // `use*` there names vitest/bench helpers (useCleanDatabase registers hooks), not React hooks.
      "react-hooks/rules-of-hooks": "off",
    },
  },
  {
    files: ["tests/**"],
    rules: {
      // Tests read response bodies and the OpenAPI document as untyped JSON; their asserts are the check.
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  // Last, so formatting belongs to prettier alone.
  prettier,
  globalIgnores([
    ".next/**",
    ".data/**",
    "node_modules/**",
    "lib/generated/**",
    "sdk/src/generated/**",
    "sdk/dist/**",
    "bench/floor/node_modules/**",
    "test-results/**",
    "next-env.d.ts",
  ]),
]);
