// Environment shared by the test process and the servers it starts, so both derive the same keys.
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: "test",
  APP_SECRET: "test-app-secret",
  CODES_ENCRYPTION_KEY: "test-codes-key",
  NEXTAUTH_SECRET: "test-nextauth-secret",
  // The shared test server hammers single keys (50 parallel duplicates of one order) and fails
  // authentication on purpose hundreds of times; the spec's limits are tested on servers of their
  // own (tests/e2e/rate-limit-http.test.ts), so here they are out of the way.
  RATE_LIMIT_KEY_BURST: "1000000",
  RATE_LIMIT_KEY_PER_MINUTE: "1000000",
  RATE_LIMIT_AUTH_FAILURES: "1000000",
  RATE_LIMIT_PREFIX: `rl-test-${process.pid}-${Date.now()}`,
  SETTINGS_CACHE_MS: "1000",
};
