// Every environment variable the service reads, parsed once. Secrets come only from here; in
// production the development defaults are refused (see assertProductionSecrets).
import path from "node:path";

const DEV_SECRET_DEFAULTS = {
  APP_SECRET: "dev-only-app-secret-change-me",
  CODES_ENCRYPTION_KEY: "dev-only-codes-encryption-key-change-me",
  NEXTAUTH_SECRET: "dev-only-nextauth-secret-change-me",
} as const;

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
  return {
    nodeEnv: process.env.NODE_ENV ?? "development",
    port: readInt("PORT", 3000),
    host: process.env.HOST ?? "0.0.0.0",
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: path.resolve(projectRoot, process.env.DATA_DIR ?? ".data"),
    embeddedPgPort: readInt("EMBEDDED_PG_PORT", 54329),
    redisUrl: process.env.REDIS_URL || undefined,
    upstashUrl: process.env.UPSTASH_REDIS_REST_URL || undefined,
    upstashToken: process.env.UPSTASH_REDIS_REST_TOKEN || undefined,
    trustedProxies: readList("TRUSTED_PROXIES"),
    appSecret: process.env.APP_SECRET || DEV_SECRET_DEFAULTS.APP_SECRET,
    codesEncryptionKey: process.env.CODES_ENCRYPTION_KEY || DEV_SECRET_DEFAULTS.CODES_ENCRYPTION_KEY,
    nextAuthSecret: process.env.NEXTAUTH_SECRET || DEV_SECRET_DEFAULTS.NEXTAUTH_SECRET,
    telegramBotToken: process.env.TELEGRAM_BOT_TOKEN || undefined,
    telegramApiRoot: process.env.TELEGRAM_API_ROOT || undefined,
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

/** Throws when production would run on a secret anyone can read in this repository. */
export function assertProductionSecrets(current: Env = env()): void {
  if (current.nodeEnv !== "production") return;
  const weak = Object.entries(DEV_SECRET_DEFAULTS)
    .filter(([name, fallback]) => !process.env[name] || process.env[name] === fallback)
    .map(([name]) => name);
  if (weak.length > 0) {
    throw new Error(
      `Refusing to start in production with development secrets: set ${weak.join(", ")} in the environment.`,
    );
  }
}
