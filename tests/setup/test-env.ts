// Environment shared by the test process and the servers it starts, so both derive the same keys.
export const TEST_ENV: Record<string, string> = {
  NODE_ENV: "test",
  APP_SECRET: "test-app-secret",
  CODES_ENCRYPTION_KEY: "test-codes-key",
  NEXTAUTH_SECRET: "test-nextauth-secret",
};
