// Environment shared by the test process and the servers it starts, so both derive the same keys.
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: "test",
  // At least 32 characters: `next start` runs as production, which refuses shorter secrets.
  APP_SECRET: "test-app-secret-for-the-suite-only-0001",
  CODES_ENCRYPTION_KEY: "test-codes-key-for-the-suite-only-00001",
  NEXTAUTH_SECRET: "test-nextauth-secret-for-the-suite-only-1",
  // The shared test server hammers single keys (50 parallel duplicates of one order) and fails
  // authentication on purpose hundreds of times; the spec's limits are tested on servers of their
  // own (tests/e2e/rate-limit-http.test.ts), so here they are out of the way.
  RATE_LIMIT_KEY_BURST: "1000000",
  RATE_LIMIT_KEY_PER_MINUTE: "1000000",
  RATE_LIMIT_AUTH_FAILURES: "1000000",
  // The limiter answers 503 RATE_LIMIT_UNAVAILABLE when its store has not answered in 300 ms. With
  // the suite beside other work (load average 17 on 2 cores measured) whole batches of Redis answers
  // arrive 570 ms late, and the races here would read those 503s as failures of their own. The
  // 300 ms bound is tested on limiters of its own (tests/integration/ratelimit-availability.test.ts).
  RATE_LIMIT_TIMEOUT_MS: "5000",
  RATE_LIMIT_PREFIX: `rl-test-${process.pid}-${Date.now()}`,
  SETTINGS_CACHE_MS: "1000",
};
