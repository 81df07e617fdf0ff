// Every environment variable the service reads, parsed once. Secrets come only from here, through
// secrets() (lib/config/secrets.ts): the environment, or in development the data directory's
// generated ones; never a default written in the code.
import path from "node:path";
import { processSecrets, type Secrets } from "./secrets";

function readInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

function readList(name: string): string[] {
  return (process.env[name] ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

// Under tsx this file knows where it is; inside Next's server bundle it does not, and Next runs
// from the project root, so the working directory is the answer there.
export const projectRoot = import.meta.dirname ? path.resolve(import.meta.dirname, "../..") : process.cwd();

export function loadEnv() {
  const dataDir = path.resolve(projectRoot, process.env.DATA_DIR ?? ".data");
  return {
    nodeEnv: process.env.NODE_ENV ?? "development",
    port: readInt("PORT", 3000),
    host: process.env.HOST ?? "0.0.0.0",
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir,
    embeddedPgPort: readInt("EMBEDDED_PG_PORT", 54329),
    redisUrl: process.env.REDIS_URL || undefined,
    upstashUrl: process.env.UPSTASH_REDIS_REST_URL || undefined,
    upstashToken: process.env.UPSTASH_REDIS_REST_TOKEN || undefined,
    trustedProxies: readList("TRUSTED_PROXIES"),
    // Getters: a secret is resolved when first used, so `next build` (which loads these modules
    // with NODE_ENV=production and no secrets) never asks for one.
    get appSecret() {
      return processSecrets(dataDir).appSecret;
    },
    get codesEncryptionKey() {
      return processSecrets(dataDir).codesEncryptionKey;
    },
    get nextAuthSecret() {
      return processSecrets(dataDir).nextAuthSecret;
    },
    telegramBotToken: process.env.TELEGRAM_BOT_TOKEN || undefined,
    telegramApiRoot: process.env.TELEGRAM_API_ROOT || undefined,
    telegramWebhookSecret: process.env.TELEGRAM_WEBHOOK_SECRET || undefined,
    adminTelegramIds: readList("ADMIN_TELEGRAM_IDS"),
    demoApiKey: process.env.DEMO_API_KEY || undefined,
    maxBodyBytes: readInt("MAX_BODY_BYTES", 16 * 1024),
  };
}

export type Env = ReturnType<typeof loadEnv>;

let cached: Env | undefined;
export function env(): Env {
  cached ??= loadEnv();
  return cached;
}

/** This process's secrets (lib/config/secrets.ts). */
export function secrets(): Secrets {
  return processSecrets(env().dataDir);
}

/**
 * Resolves the secrets now, at a process's start, so a missing or short production secret stops
 * the start with a clear message instead of failing the first request that needs it. Production
 * also refuses the webhooks' development switch.
 */
export function assertProductionSecrets(current: Env = env()): void {
  if (current.nodeEnv === "production" && process.env.WEBHOOKS_ALLOW_PRIVATE === "1") {
    throw new Error(
      "Refusing to start in production with WEBHOOKS_ALLOW_PRIVATE=1: it lets webhooks reach private addresses.",
    );
  }
  secrets();
}
