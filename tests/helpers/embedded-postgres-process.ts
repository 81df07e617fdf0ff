// The test harness starts embedded PostgreSQL exactly as npm start does.
export { startEmbeddedPostgresProcess } from "../../lib/db/embedded-process";
