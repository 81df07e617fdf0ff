// Environment shared by the test process and the servers it starts, so both derive the same keys.
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: "test",
  // At least 32 characters: `next start` runs as production, which refuses shorter secrets.
  APP_SECRET: "test-app-secret-for-the-suite-only-0001",
  CODES_ENCRYPTION_KEY: "test-codes-key-for-the-suite-only-00001",
  NEXTAUTH_SECRET: "test-nextauth-secret-for-the-suite-only-1",
  // The shared test server hammers single keys and fails authentication on purpose; the documented
  // limits are tested on servers of their own (tests/e2e/rate-limit-http.test.ts).
  RATE_LIMIT_KEY_BURST: "1000000",
  RATE_LIMIT_KEY_PER_MINUTE: "1000000",
  RATE_LIMIT_AUTH_FAILURES: "1000000",
  // On a busy machine Redis answers can arrive later than the 300 ms default, which the races here
  // would read as failures; that bound is tested in tests/integration/ratelimit-availability.test.ts.
  RATE_LIMIT_TIMEOUT_MS: "5000",
  RATE_LIMIT_PREFIX: `rl-test-${process.pid}-${Date.now()}`,
  SETTINGS_CACHE_MS: "1000",
};
