// Before each test file: point lib/ at the suite's database and give it the same secrets as the
// server; what lib/ logs in this process is kept with every other process's output (process-logs.ts).
import path from "node:path";
import pino from "pino";
import { sendLogsTo } from "@/lib/observability/logger";
import { TEST_LOG_DIR } from "../helpers/process-logs";
import { TEST_ENV } from "./test-env";
import { suiteDatabaseUrl } from "../helpers/suite";

Object.assign(process.env, TEST_ENV, { DATABASE_URL: suiteDatabaseUrl() });
sendLogsTo(pino.destination({ dest: path.join(TEST_LOG_DIR, `tests-${process.pid}.log`), mkdir: true, sync: true }));
