// The last file of every run (vitest.config.ts): no line any process of the suite wrote
// holds an API key, a webhook secret or one of the suite's secrets. Keys appear in logs by their
// display prefix only. The one place a whole key is printed on purpose is the development banner
// of `npm start` and `npm run dev` (its "Demo key" and "Try" lines), which is not a log line.
import { describe, expect, it } from "vitest";
import { MIN_PRODUCTION_SECRET_LENGTH } from "@/lib/config/secrets";
import { readKeptLines } from "../helpers/process-logs";
import { TEST_ENV } from "../setup/test-env";
import { TEST_METRICS_TOKEN } from "../helpers/prometheus";

const KEY = /svc_(test_)?[A-Za-z0-9]{40}/;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=]{16,}/;
const BANNER = /^\s+(Demo key|Try):\s/;
const SECRETS = [
  TEST_ENV.APP_SECRET!,
  TEST_ENV.CODES_ENCRYPTION_KEY!,
  TEST_ENV.NEXTAUTH_SECRET!,
  // tests/helpers/production-start.ts's production secrets.
  ..."akn".split("").map((letter) => letter.repeat(MIN_PRODUCTION_SECRET_LENGTH)),
  TEST_METRICS_TOKEN,
];

describe("the suite's logs", () => {
  it("hold no API key, webhook secret or secret of the suite", () => {
    const lines = readKeptLines();
    // The suite's web server has at least said where it listens.
    expect(lines.some(({ line }) => line.includes('"msg":"listening on'))).toBe(true);
    const leaks = lines.filter(
      ({ line }) =>
        !BANNER.test(line) &&
        (KEY.test(line) || WEBHOOK_SECRET.test(line) || SECRETS.some((secret) => line.includes(secret))),
    );
    expect(leaks.map(({ file, line }) => `${file}: ${line.slice(0, 300)}`)).toEqual([]);
  });
});
