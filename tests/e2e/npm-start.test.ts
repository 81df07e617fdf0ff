// `npm start` as a new user runs it: no DATABASE_URL, no NODE_ENV and no secret in the environment.
// One start (one embedded PostgreSQL) serves every check in order: generated secrets and database
// password, a foreign data directory refused on the port, the dashboard refusing sessions signed
// with any string of the repository, a worker and a web process killed under load and restarted
// with every order finished, and a Ctrl-C that stops the database last and prints no error.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot, pointAtDatabase } from "@/lib/config/env";
import { SECRET_NAMES, SECRETS_FILE_NAME } from "@/lib/config/secrets";
import { closePool } from "@/lib/db/pool";
import { checkLedger } from "@/lib/wallet/sql/check-ledger";
import { startEmbeddedPostgresProcess } from "../helpers/embedded-postgres-process";
import { mintSessionCookie } from "../helpers/admin-session";
import { freePort } from "../helpers/free-port";
import { repositoryStrings } from "../helpers/repository-strings";
import { keepOutput, logMessages } from "../helpers/process-logs";
import { readAnswer } from "../helpers/read-answer";

// Defaults this project once shipped for its secrets: written here so they stay among the strings
// the dashboard test tries.
const FORMER_DEFAULTS = [
  "dev-only-app-secret-change-me",
  "dev-only-codes-encryption-key-change-me",
  "dev-only-nextauth-secret-change-me",
  "embedded-local",
];
const PG_PASSWORD_FILE = "pg-password"; // lib/db/embedded.ts (not imported: it installs exit hooks)
const ADMIN_EMAIL = "owner@example.com";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-start-"));
fs.chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
let pgPort = 0;
let startEnv: NodeJS.ProcessEnv = { ...process.env };
let npm: ChildProcess | undefined;
let stdout = "";
let stderr = "";
let base = "";
let demoKey = "";

function processes(): { pid: number; ppid: number; args: string }[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] ?? "" }));
}

/** Our process of `scripts/<script>`: a descendant of npm start (children live in groups of their own). */
function childRunning(script: string): number | undefined {
  const table = processes();
  const ours = new Set([npm!.pid!]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of table)
      if (ours.has(row.ppid) && !ours.has(row.pid)) {
        ours.add(row.pid);
        grew = true;
      }
  }
  return table.find((row) => ours.has(row.pid) && row.args.includes(path.join("scripts", script)))?.pid;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function api(pathname: string, init: RequestInit & { key?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("x-api-key", init.key);
  if (init.body) headers.set("content-type", "application/json");
  const answer = await readAnswer(await fetch(`${base}${pathname}`, { ...init, headers, redirect: "manual" }));
  return { ...answer, location: answer.headers.get("location") };
}

async function embeddedUrl(database = "topup"): Promise<string> {
  const password = fs.readFileSync(path.join(dataDir, PG_PASSWORD_FILE), "utf8").trim();
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/${database}`;
}

beforeAll(async () => {
  pgPort = await freePort();
  startEnv = { ...process.env, DATABASE_URL: "", DATA_DIR: dataDir, PORT: "0", EMBEDDED_PG_PORT: String(pgPort) };
  // As a new user's shell would have it (the test harness sets these for its own server).
  for (const name of ["NODE_ENV", ...SECRET_NAMES]) delete startEnv[name];
  npm = spawn("npm", ["start"], { cwd: projectRoot, env: startEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  keepOutput("npm-start", npm);
  npm.stdout!.on("data", (chunk) => (stdout += chunk));
  npm.stderr!.on("data", (chunk) => (stderr += chunk));
  // A first start may build the dashboard (next build) before it serves.
  await until("npm start to say it is ready", () => stdout.includes("Press Ctrl-C") || npm!.exitCode !== null, 540_000);
  expect(npm.exitCode, `npm start exited early\n${stdout}\n${stderr}`).toBeNull();
  base = stdout.match(/API:\s+(http:\/\/localhost:\d+)/)![1]!.replace("localhost", "127.0.0.1");
  demoKey = stdout.match(/Demo key:\s+(svc_[A-Za-z0-9]{40})/)?.[1] ?? "";
}, 600_000);

afterAll(async () => {
  if (npm && npm.exitCode === null && npm.signalCode === null) {
    process.kill(-npm.pid!, "SIGKILL");
    for (const row of processes()) if (row.args.includes(dataDir)) process.kill(row.pid, "SIGKILL");
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("generates its secrets and the database password into the data directory (0600) and serves", async () => {
    for (const file of [SECRETS_FILE_NAME, PG_PASSWORD_FILE])
      expect(fs.statSync(path.join(dataDir, file)).mode & 0o777, file).toBe(0o600);
    const generated = JSON.parse(fs.readFileSync(path.join(dataDir, SECRETS_FILE_NAME), "utf8"));
    for (const name of SECRET_NAMES) expect(generated[name].length, name).toBeGreaterThanOrEqual(32);
    expect((await api("/healthz")).json.ok).toBe(true);
    expect(demoKey, stdout).toMatch(/^svc_/);
    expect((await api("/balance", { key: demoKey })).status).toBe(200);
    // Without a bot token, the banner says how to get a key, fund a wallet and add a webhook.
    expect(stdout).toContain("npm run bot:console -- --as 1001 --username you");
    expect(stdout).toContain("/credit @you 50, Confirm");

    const wrong = new pg.Client({ connectionString: (await embeddedUrl()).replace(/:[^:@]+@/, ":embedded-local@") });
    await expect(wrong.connect()).rejects.toMatchObject({ code: "28P01" });
    const right = new pg.Client({ connectionString: await embeddedUrl() });
    await right.connect();
    await right.end();
  });

  it("refuses to use the port's PostgreSQL for another data directory, with PostgreSQL's reason", async () => {
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "topup-intruder-"));
    try {
      await expect(
        startEmbeddedPostgresProcess({ dataDir: otherDir, port: pgPort, database: "intruder" }),
      ).rejects.toThrow(
        `A server on 127.0.0.1:${pgPort} is not this data directory's PostgreSQL: it does not accept this data directory's password`,
      );
    } finally {
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
    const admin = new pg.Client({ connectionString: await embeddedUrl("postgres") });
    await admin.connect();
    const { rowCount } = await admin.query("select 1 from pg_database where datname = 'intruder'");
    await admin.end();
    expect(rowCount).toBe(0);
  });

  it("the dashboard refuses a session signed with any string of the repository, and accepts the generated secret's", async () => {
    const created = spawn(
      process.execPath,
      ["--import", "tsx", path.join(projectRoot, "scripts", "admin-create.ts"), ADMIN_EMAIL],
      {
        cwd: projectRoot,
        env: startEnv,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    keepOutput("admin-create", created);
    let said = "";
    created.stdout!.on("data", (chunk) => (said += chunk));
    created.stderr!.on("data", (chunk) => (said += chunk));
    expect(await new Promise((resolve) => created.once("exit", resolve)), said).toBe(0);

    // The new owner has no two-factor yet: a session of theirs opens the enrolment and nothing else.
    expect(said).toContain("first sign-in sets up two-factor");
    const present = async (secret: string) =>
      api("/admin/two-factor-setup", {
        headers: { cookie: await mintSessionCookie({ email: ADMIN_EMAIL, secret }) },
      });

    const generated = JSON.parse(fs.readFileSync(path.join(dataDir, SECRETS_FILE_NAME), "utf8"))
      .NEXTAUTH_SECRET as string;
    const accepted = await present(generated);
    expect(accepted.status, accepted.text.slice(0, 300)).toBe(200);
    expect(accepted.text).toContain(ADMIN_EMAIL);

    // The dashboard reads every session with one secret (env().nextAuthSecret), and that is the
    // generated one (accepted above): a session signed with another string cannot decode. So no
    // string of the repository may be that secret...
    const everyString = [...new Set([...repositoryStrings(projectRoot, 8), ...FORMER_DEFAULTS])];
    expect(everyString.length).toBeGreaterThan(1000);
    expect(everyString).not.toContain(generated);
    // ...and the strings of the code where a fallback secret would be written (configuration,
    // sign-in, the database and the entry scripts), with the former defaults, are refused over HTTP.
    const nearSecrets = [
      ...new Set([
        ...repositoryStrings(projectRoot, 8, [
          "lib/config",
          "lib/admin-sign-in",
          "lib/db",
          "app/admin/_lib",
          "app/api/auth",
          "proxy.ts",
          "scripts",
        ]),
        ...FORMER_DEFAULTS,
      ]),
    ];
    expect(nearSecrets.length).toBeGreaterThan(100);
    const admitted: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < nearSecrets.length) {
          const secret = nearSecrets[next++]!;
          const answer = await present(secret);
          if (answer.status !== 307 || !answer.location?.includes("/admin/login"))
            admitted.push(`${answer.status} ${JSON.stringify(secret)}`);
        }
      }),
    );
    expect(admitted).toEqual([]);
    console.log(
      `[npm-start] ${everyString.length} strings of the repository are not the secret; ${nearSecrets.length} tried as NEXTAUTH_SECRET: every session refused`,
    );
  }, 120_000);

  it("a worker killed with SIGKILL under a burst of orders is restarted; the API keeps answering and every order finishes", async () => {
    const worker = await until("the worker process", () => childRunning("worker.ts"));
    const place = (i: number) =>
      api("/orders", {
        method: "POST",
        key: demoKey,
        body: JSON.stringify(
          i % 10 === 0
            ? { pid: "SVCGKINDIE", trxid: `kill-${i}` }
            : { pid: "SVCBR60", trxid: `kill-${i}`, userId: `51${i}` },
        ),
      });
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => place(i)));
    process.kill(worker, "SIGKILL");
    const second = await Promise.all(Array.from({ length: 20 }, (_, i) => place(20 + i)));
    const answers = [...first, ...second];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.orderCreated).toBe(true);
    }
    await until("a restarted worker", () => childRunning("worker.ts") !== worker && childRunning("worker.ts"));
    expect(
      logMessages(stdout, "start").some((line) =>
        line.startsWith("worker stopped unexpectedly (killed by SIGKILL); restarting it"),
      ),
    ).toBe(true);

    const finished = await until("every order to finish", async () => {
      const invoices = await Promise.all(
        answers.map((answer) => api(`/orders/${answer.json.orderId}`, { key: demoKey })),
      );
      return invoices.every((invoice) => ["completed", "cancelled"].includes(invoice.json?.status))
        ? invoices
        : undefined;
    });
    for (const invoice of finished) expect(invoice.json.status, invoice.text).toBe("completed");
    // Codes were encrypted by npm start's seed and are decrypted by the web process: one secret.
    for (const invoice of finished.filter((invoice) => invoice.json.orderId.includes("-GK-"))) {
      expect(invoice.json.codes).toEqual([expect.stringMatching(/^DEMO-GKINDIE-/)]);
    }

    const suiteDatabase = process.env.DATABASE_URL!;
    await closePool();
    pointAtDatabase(await embeddedUrl());
    try {
      expect(await checkLedger()).toEqual([]);
    } finally {
      await closePool();
      pointAtDatabase(suiteDatabase);
    }
  }, 180_000);

  it("a killed web process is restarted on the same port", async () => {
    const web = await until("the web process", () => childRunning("serve.ts"));
    process.kill(web, "SIGKILL");
    await until(
      "the web process to be back",
      async () => (await api("/healthz").catch(() => undefined))?.json?.ok === true && childRunning("serve.ts") !== web,
    );
    expect(
      logMessages(stdout, "start").some((line) =>
        line.startsWith("web stopped unexpectedly (killed by SIGKILL); restarting it"),
      ),
    ).toBe(true);
    expect((await api("/balance", { key: demoKey })).status).toBe(200);
  }, 120_000);

  it("Ctrl-C stops the web server and the worker, then the database, and nothing it printed is an error", async () => {
    process.kill(-npm!.pid!, "SIGINT"); // what a terminal's Ctrl-C does: the whole foreground process group
    const ended = await new Promise<string>((resolve) =>
      npm!.exitCode !== null || npm!.signalCode !== null
        ? resolve(String(npm!.exitCode ?? npm!.signalCode))
        : npm!.once("exit", (code, signal) => resolve(String(code ?? signal))),
    );
    // npm itself ends by the signal it was sent (as after a real Ctrl-C); what it ran ended cleanly.
    expect(["0", "SIGINT"], `${stdout}\n${stderr}`).toContain(ended);
    const started = logMessages(stdout, "start");
    expect(logMessages(`${stdout}\n${stderr}`, "start").filter((line) => /failed|crashed/.test(line))).toEqual([]);

    const childrenStopped = started.indexOf("web, worker stopped");
    const databaseStopped = started.indexOf("embedded PostgreSQL stopped");
    expect(childrenStopped, stdout).toBeGreaterThan(0);
    expect(databaseStopped).toBeGreaterThan(childrenStopped);

    // Only what a user can act on: no library noise, no error on the way in or out.
    const everything = stdout + stderr;
    expect(everything).not.toContain("error handlers");
    expect(everything).not.toContain("crontab");
    expect(everything).not.toContain("DeprecationWarning");
    expect(everything).not.toMatch(/\bundefined\b/);
    expect(stderr.split("\n").filter((line) => /error|exception|fatal|unhandled/i.test(line))).toEqual([]);

    await until(
      "every process of this start to be gone",
      () => processes().every((row) => !row.args.includes(dataDir)) || undefined,
      30_000,
    );
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 120_000);
});
