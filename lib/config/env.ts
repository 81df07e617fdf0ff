// Every environment variable the service reads, parsed and validated here and nowhere else
// (README: Configuration). Secrets resolve through secrets() (lib/config/secrets.ts), never from a
// default written in the code.
import path from "node:path";
import { z } from "zod";
import {
  AUTH_FAILURE_QUOTA,
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  KEY_BURST_QUOTA,
  KEY_MINUTE_QUOTA,
} from "../ratelimit/config";
import { SANDBOX_DEFAULTS } from "../suppliers/sandbox-supplier";
import { parseTrustedProxies } from "../net/ip";
import { givenNodeEnv } from "./given-node-env";
import { processSecrets, type Secrets } from "./secrets";
import { assertRealVerifySupplier } from "../suppliers/assert-real-verify-supplier";
import { SANDBOX_KIND, supplierKind, supplierKindNames } from "../suppliers/kinds";

export type EnvSource = Record<string, string | undefined>;

/** pino's levels, quietest last; LOG_LEVEL takes one. */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

// Unset and empty mean the same: the default.
const blank = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

const text = () => z.preprocess(blank, z.string().trim().optional());

const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const int = (min: number, fallback: number, max?: number) =>
  z.preprocess(blank, wholeNumber(min, max).optional()).transform((value) => value ?? fallback);

/** Unset leaves the choice to the code that uses it. */
const optionalInt = (min: number) => z.preprocess(blank, wholeNumber(min).optional());

/** "0" or "1"; anything else is a typo worth stopping for. */
const flag = (fallback: boolean) =>
  z
    .preprocess(blank, z.enum(["0", "1"], "must be 0 or 1").optional())
    .transform((value) => (value === undefined ? fallback : value === "1"));

const list = () =>
  z.preprocess(
    blank,
    z
      .string()
      .optional()
      .transform((value) =>
        (value ?? "")
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean),
      ),
  );

const httpUrl = () =>
  z.preprocess(
    blank,
    z
      .string()
      .trim()
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http(s) URL")
      .optional(),
  );

const schema = z
  .object({
    NODE_ENV: z.preprocess(blank, z.enum(["development", "production", "test"]).default("development")),
    PORT: int(0, 3000, 65_535),
    HOST: z.preprocess(blank, z.string().trim().default("0.0.0.0")),
    DATA_DIR: z.preprocess(blank, z.string().default(".data")),
    DATABASE_URL: text(),
    EMBEDDED_PG_PORT: int(1, 54_329, 65_535),
    PG_POOL_MAX: int(1, 10),
    PG_CONNECT_TIMEOUT_MS: int(1, 5000),
    REDIS_URL: text(),
    UPSTASH_REDIS_REST_URL: httpUrl(),
    UPSTASH_REDIS_REST_TOKEN: text(),
    // Checked here, so a bad entry stops every process at start (lib/http/client-address.ts normalises).
    TRUSTED_PROXIES: list().superRefine((entries, ctx) => {
      try {
        parseTrustedProxies(entries);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message.replace(/^TRUSTED_PROXIES: /, "") });
      }
    }),
    CLIENT_IP_HEADER: z.preprocess(
      blank,
      z
        .string()
        .trim()
        .toLowerCase()
        .regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name")
        .optional(),
    ),
    MAX_BODY_BYTES: int(1, 16 * 1024),
    SERVE_DASHBOARD: flag(true),
    DEMO_API_KEY: text(),
    TELEGRAM_BOT_TOKEN: text(),
    TELEGRAM_API_ROOT: httpUrl(),
    TELEGRAM_WEBHOOK_SECRET: text(),
    ADMIN_TELEGRAM_IDS: list(),
    SETTINGS_CACHE_MS: int(0, 1000),
    WEBHOOKS_ALLOW_PRIVATE: flag(false),
    SUPPLIERS_ALLOW_PRIVATE: flag(false),
    WORKER_CONCURRENCY: int(1, 10),
    WORKER_SWEEP_MS: int(1, 5000),
    WEBHOOK_CONCURRENCY: int(0, 10),
    // Deliveries in flight at once, over every worker: per endpoint, and per account (its share).
    WEBHOOK_ENDPOINT_CONCURRENCY: int(1, 4),
    WEBHOOK_ACCOUNT_CONCURRENCY: int(1, 5),
    // Unset: the dispatcher's own default (lib/webhooks/sql/dispatch-webhooks.ts, 250 ms).
    WEBHOOK_POLL_MS: optionalInt(1),
    // A supplier kind (lib/suppliers/kinds/), asked when parsing: the kinds' modules import this one.
    SUPPLIER: z.preprocess(
      (value) => (typeof blank(value) === "string" ? (value as string).trim().toLowerCase() : SANDBOX_KIND),
      z.string().refine((name) => supplierKind(name) !== undefined, {
        error: () => `must be one of ${supplierKindNames()}`,
      }),
    ),
    // On by default: a free account could otherwise spend supplier calls without limit (README: Configuration).
    SUPPLIER_CALLS_REQUIRE_FUNDING: flag(true),
    // Test keys and test wallets (README: Test mode); 0 refuses test keys with TEST_MODE_OFF.
    TEST_MODE: flag(true),
    SUPPLIER_POLL_MS: int(1, 2000),
    SUPPLIER_POLL_MAX_MS: int(1, 60_000),
    SUPPLIER_DEADLINE_MS: int(1, 10 * 60_000),
    SANDBOX_LATENCY_MS: int(0, SANDBOX_DEFAULTS.latencyMs),
    SANDBOX_SLOW_MS: int(0, SANDBOX_DEFAULTS.slowMs),
    H2H_BASE_URL: httpUrl(),
    H2H_PARTNER_ID: text(),
    H2H_SECRET: text(),
    H2H_TIMEOUT_MS: int(1, 5000),
    RATE_LIMIT_PREFIX: z.preprocess(blank, z.string().default(DEFAULT_PREFIX)),
    RATE_LIMIT_TIMEOUT_MS: int(1, DEFAULT_TIMEOUT_MS),
    RATE_LIMIT_KEY_BURST: int(1, KEY_BURST_QUOTA.tokens),
    RATE_LIMIT_KEY_PER_MINUTE: int(1, KEY_MINUTE_QUOTA.tokens),
    RATE_LIMIT_AUTH_FAILURES: int(1, AUTH_FAILURE_QUOTA.tokens),
    RATE_LIMIT_AUTH_WINDOW_SECONDS: int(1, AUTH_FAILURE_QUOTA.windowSeconds),
    LOG_LEVEL: z.preprocess(
      (value) => (typeof blank(value) === "string" ? (value as string).trim().toLowerCase() : undefined),
      z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`).default("info"),
    ),
    // Unset: pretty in development at a terminal, JSON lines everywhere else (lib/observability/logger.ts).
    LOG_FORMAT: z.preprocess(blank, z.enum(["json", "pretty"], "must be json or pretty").optional()),
    // Long enough not to be guessed: the bearer token of the web process's /metrics.
    METRICS_TOKEN: z.preprocess(blank, z.string().trim().min(16, "must be at least 16 characters").optional()),
    METRICS_HOST: z.preprocess(blank, z.string().trim().default("127.0.0.1")),
    METRICS_PORT: z.preprocess(blank, wholeNumber(0, 65_535).optional()),
    WORKER_METRICS_PORT: z.preprocess(blank, wholeNumber(0, 65_535).optional()),
    BOT_METRICS_PORT: z.preprocess(blank, wholeNumber(0, 65_535).optional()),
  })
  .superRefine((vars, context) => {
    if (Boolean(vars.UPSTASH_REDIS_REST_URL) !== Boolean(vars.UPSTASH_REDIS_REST_TOKEN))
      context.addIssue({
        code: "custom",
        path: ["UPSTASH_REDIS_REST_URL"],
        message: "set it and UPSTASH_REDIS_REST_TOKEN, or neither",
      });
  });

// Values that may hold credentials are never echoed in an error.
const SENSITIVE = /SECRET|TOKEN|API_KEY|_URL$|PARTNER/;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

// Under tsx this file knows where it is; inside Next's server bundle it does not, and Next runs
// from the project root, so the working directory is the answer there.
export const projectRoot = import.meta.dirname ? path.resolve(import.meta.dirname, "../..") : process.cwd();

/** The variables of `source` checked and converted, or a ConfigError naming every bad one (never a secret's value). */
function parseVariables(source?: EnvSource) {
  // NODE_ENV as given to the process, not as Next rewrites it (given-node-env.ts).
  const parsed = schema.safeParse(source ?? { ...process.env, NODE_ENV: givenNodeEnv() });
  if (parsed.success) return parsed.data;
  const input = source ?? process.env;
  const lines = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "environment");
    const raw = input[name];
    const shown = raw === undefined || SENSITIVE.test(name) ? "" : ` (got "${raw}")`;
    return `  ${name}: ${issue.message}${shown}`;
  });
  throw new ConfigError(`Invalid configuration (README: Configuration):\n${lines.join("\n")}`);
}

/**
 * Parses `source` (this process's environment unless given). Throws ConfigError naming every bad
 * variable at once, so a misconfigured process stops at start.
 */
export function loadEnv(source?: EnvSource) {
  const vars = parseVariables(source);
  const dataDir = path.resolve(projectRoot, vars.DATA_DIR);
  return {
    nodeEnv: vars.NODE_ENV,
    port: vars.PORT,
    host: vars.HOST,
    databaseUrl: vars.DATABASE_URL,
    dataDir,
    embeddedPgPort: vars.EMBEDDED_PG_PORT,
    pgPoolMax: vars.PG_POOL_MAX,
    pgConnectTimeoutMs: vars.PG_CONNECT_TIMEOUT_MS,
    redisUrl: vars.REDIS_URL,
    upstashUrl: vars.UPSTASH_REDIS_REST_URL,
    upstashToken: vars.UPSTASH_REDIS_REST_TOKEN,
    trustedProxies: vars.TRUSTED_PROXIES,
    clientIpHeader: vars.CLIENT_IP_HEADER,
    maxBodyBytes: vars.MAX_BODY_BYTES,
    serveDashboard: vars.SERVE_DASHBOARD,
    demoApiKey: vars.DEMO_API_KEY,
    // Getters: a secret is resolved when first used, so `next build` (NODE_ENV=production, no
    // secrets) never asks for one.
    get appSecret() {
      return processSecrets(dataDir).appSecret;
    },
    get codesEncryptionKey() {
      return processSecrets(dataDir).codesEncryptionKey;
    },
    get nextAuthSecret() {
      return processSecrets(dataDir).nextAuthSecret;
    },
    telegramBotToken: vars.TELEGRAM_BOT_TOKEN,
    telegramApiRoot: vars.TELEGRAM_API_ROOT,
    telegramWebhookSecret: vars.TELEGRAM_WEBHOOK_SECRET,
    adminTelegramIds: vars.ADMIN_TELEGRAM_IDS,
    settingsCacheMs: vars.SETTINGS_CACHE_MS,
    webhooksAllowPrivate: vars.WEBHOOKS_ALLOW_PRIVATE,
    suppliersAllowPrivate: vars.SUPPLIERS_ALLOW_PRIVATE,
    worker: {
      concurrency: vars.WORKER_CONCURRENCY,
      sweepIntervalMs: vars.WORKER_SWEEP_MS,
      webhookConcurrency: vars.WEBHOOK_CONCURRENCY,
      webhookCaps: { perEndpoint: vars.WEBHOOK_ENDPOINT_CONCURRENCY, perAccount: vars.WEBHOOK_ACCOUNT_CONCURRENCY },
      webhookPollIntervalMs: vars.WEBHOOK_POLL_MS,
    },
    supplier: vars.SUPPLIER,
    supplierCallsRequireFunding: vars.SUPPLIER_CALLS_REQUIRE_FUNDING,
    testMode: vars.TEST_MODE,
    fulfilment: {
      pollBaseMs: vars.SUPPLIER_POLL_MS,
      pollMaxMs: vars.SUPPLIER_POLL_MAX_MS,
      deadlineMs: vars.SUPPLIER_DEADLINE_MS,
    },
    sandbox: { latencyMs: vars.SANDBOX_LATENCY_MS, slowMs: vars.SANDBOX_SLOW_MS },
    h2h: {
      baseUrl: vars.H2H_BASE_URL,
      partnerId: vars.H2H_PARTNER_ID,
      secret: vars.H2H_SECRET,
      timeoutMs: vars.H2H_TIMEOUT_MS,
    },
    rateLimit: {
      prefix: vars.RATE_LIMIT_PREFIX,
      timeoutMs: vars.RATE_LIMIT_TIMEOUT_MS,
      burst: { tokens: vars.RATE_LIMIT_KEY_BURST, windowSeconds: KEY_BURST_QUOTA.windowSeconds },
      minute: { tokens: vars.RATE_LIMIT_KEY_PER_MINUTE, windowSeconds: KEY_MINUTE_QUOTA.windowSeconds },
      authFailures: { tokens: vars.RATE_LIMIT_AUTH_FAILURES, windowSeconds: vars.RATE_LIMIT_AUTH_WINDOW_SECONDS },
    },
    log: { level: vars.LOG_LEVEL, format: vars.LOG_FORMAT },
    metrics: {
      token: vars.METRICS_TOKEN,
      host: vars.METRICS_HOST,
      /** The internal port of each kind of process (unset: none; 0: a free one, logged). */
      ports: { web: vars.METRICS_PORT, worker: vars.WORKER_METRICS_PORT, bot: vars.BOT_METRICS_PORT },
    },
  };
}

export type Env = ReturnType<typeof loadEnv>;

let cached: Env | undefined;

/** This process's configuration, parsed on first use. */
export function env(): Env {
  cached ??= loadEnv();
  return cached;
}

/**
 * The logger's settings, read without failing: a process whose configuration is bad still logs
 * why it stops (with the defaults), after the full check (env()) named the bad variables.
 */
export function logSettings(): Env["log"] & { development: boolean } {
  try {
    const config = env();
    return { ...config.log, development: config.nodeEnv === "development" };
  } catch {
    return { level: "info", format: undefined, development: false };
  }
}

/**
 * Whether this is a production deployment: NODE_ENV=production as the environment gave it, in every
 * process (the web process with Next loaded too). Every rule that differs in production asks this.
 */
export function isProduction(config: Pick<Env, "nodeEnv"> = env()): boolean {
  return config.nodeEnv === "production";
}

/**
 * Points this process, and the processes it starts, at a database found at run time (the embedded
 * PostgreSQL that `npm start` runs when DATABASE_URL is unset).
 */
export function pointAtDatabase(url: string): void {
  process.env.DATABASE_URL = url;
  cached = undefined;
}

/**
 * A secret in the variable an admin named for it (an h2h supplier account's `secretEnv`): names that
 * are not configuration of the service itself, so they are read here, at the moment they are needed.
 */
export function namedSecret(name: string): string | undefined {
  return process.env[name] || undefined;
}

/** The environment for a child process: this one's, plus `extra`. */
export function childEnvironment(extra: EnvSource = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** This process's secrets (lib/config/secrets.ts). */
function secrets(): Secrets {
  return processSecrets(env().dataDir);
}

/**
 * Resolves the secrets at a process's start, so a missing or short production secret stops the
 * start instead of failing the first request that needs it. Production also refuses the webhooks'
 * development switch, and verify and redeem answered by the sandbox.
 */
export function assertProductionSecrets(current: Env = env()): void {
  if (isProduction(current) && current.webhooksAllowPrivate) {
    throw new Error(
      "Refusing to start in production with WEBHOOKS_ALLOW_PRIVATE=1: it lets webhooks reach private addresses.",
    );
  }
  secrets();
  assertRealVerifySupplier(current);
}
