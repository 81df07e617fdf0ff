// Before each test file: point lib/ at the suite's database and give it the same secrets as the server.
import { inject } from "vitest";
import { TEST_ENV } from "./test-env";

Object.assign(process.env, TEST_ENV, { DATABASE_URL: inject("databaseUrl") });
