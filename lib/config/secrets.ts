// The service's three secrets, resolved once per process by one function. No secret has a default
// in the code: in production each must come from the environment (at least 32 characters); on any
// other machine a secret the environment does not set is read from <DATA_DIR>/secrets.json, which
// the first process to need it fills with random values (mode 0600). Every process of one checkout
// (web, worker, bot, seed, admin scripts) therefore agrees without anyone choosing a secret, and no
// string anyone can read in the repository ever signs a session or keys a hash.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { givenNodeEnv } from "./given-node-env";

export const SECRET_NAMES = ["APP_SECRET", "CODES_ENCRYPTION_KEY", "NEXTAUTH_SECRET"] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

/** Shorter than this is refused in production: a secret must not be guessable or brute-forced. */
export const MIN_PRODUCTION_SECRET_LENGTH = 32;

export interface Secrets {
  /** Keys the hash part of public order ids. */
  appSecret: string;
  /** Encrypts game-key and gift-card codes at rest. */
  codesEncryptionKey: string;
  /** Signs dashboard sessions. */
  nextAuthSecret: string;
}

export const SECRETS_FILE_NAME = "secrets.json";

/**
 * Next's server bundle holds its own copy of this module (with NODE_ENV compiled in), so the
 * resolved secrets live on globalThis: the web process resolves them before it loads Next, and the
 * bundle's copy finds them there instead of deciding again.
 */
const RESOLVED = Symbol.for("topup-api.secrets");
type WithResolved = typeof globalThis & { [RESOLVED]?: Secrets };

class SecretsError extends Error {}

/**
 * Reads a private (0600) file, creating it with create() when it is missing. Creation is atomic (a
 * private temp file hard-linked into place), so processes starting at once all end up with the one
 * file that won.
 */
export function readOrCreatePrivateFile(file: string, create: () => string): string {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`;
    fs.writeFileSync(temp, create(), { mode: 0o600, flag: "wx" });
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      fs.unlinkSync(temp);
    }
  }
  // Written 0600; someone loosened it: tighten it back rather than keep serving a readable secret.
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return fs.readFileSync(file, "utf8");
}

/** A random secret of 256 bits (43 characters). */
export function randomSecret(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** <dataDir>/secrets.json, created with fresh random secrets when it is missing. */
export function loadOrCreateSecretsFile(dataDir: string): Record<SecretName, string> {
  const file = path.join(dataDir, SECRETS_FILE_NAME);
  const text = readOrCreatePrivateFile(
    file,
    () => `${JSON.stringify(Object.fromEntries(SECRET_NAMES.map((name) => [name, randomSecret()])), null, 2)}\n`,
  );
  let stored: Partial<Record<SecretName, string>>;
  try {
    stored = JSON.parse(text);
  } catch (error) {
    throw new SecretsError(
      `${file} is not valid JSON (${(error as Error).message}); fix or delete it to generate new secrets`,
    );
  }
  const missing = SECRET_NAMES.filter(
    (name) => typeof stored[name] !== "string" || stored[name]!.length < MIN_PRODUCTION_SECRET_LENGTH,
  );
  if (missing.length > 0) {
    throw new SecretsError(
      `${file} lacks ${missing.join(", ")} (or holds one shorter than ${MIN_PRODUCTION_SECRET_LENGTH} characters); delete it to generate new secrets`,
    );
  }
  return stored as Record<SecretName, string>;
}

/**
 * The rule, without caching: environment first; in production nothing else, and nothing short;
 * elsewhere the data directory's generated secrets fill the gaps.
 */
export function resolveSecrets(options: {
  environment: Record<string, string | undefined>;
  production: boolean;
  dataDir: string;
}): Secrets {
  const fromEnv = (name: SecretName) => options.environment[name] || undefined;
  let values: Record<SecretName, string>;
  if (options.production) {
    const unusable = SECRET_NAMES.filter((name) => (fromEnv(name)?.length ?? 0) < MIN_PRODUCTION_SECRET_LENGTH);
    if (unusable.length > 0) {
      const detail = unusable.map(
        (name) => `${name} (${fromEnv(name) ? `only ${fromEnv(name)!.length} characters` : "unset"})`,
      );
      throw new SecretsError(
        `Refusing to start in production: ${detail.join(", ")}. Set each in the environment to a random value of at least ` +
          `${MIN_PRODUCTION_SECRET_LENGTH} characters (for example: openssl rand -base64 32).`,
      );
    }
    values = Object.fromEntries(SECRET_NAMES.map((name) => [name, fromEnv(name)!])) as Record<SecretName, string>;
  } else {
    const generated = SECRET_NAMES.every(fromEnv) ? undefined : loadOrCreateSecretsFile(options.dataDir);
    values = Object.fromEntries(SECRET_NAMES.map((name) => [name, fromEnv(name) ?? generated![name]])) as Record<
      SecretName,
      string
    >;
  }
  return {
    appSecret: values.APP_SECRET,
    codesEncryptionKey: values.CODES_ENCRYPTION_KEY,
    nextAuthSecret: values.NEXTAUTH_SECRET,
  };
}

/** This process's secrets, resolved on first use (see resolveSecrets) and then fixed. */
export function processSecrets(dataDir: string): Secrets {
  const holder = globalThis as WithResolved;
  holder[RESOLVED] ??= resolveSecrets({
    environment: process.env,
    production: givenNodeEnv() === "production",
    dataDir,
  });
  return holder[RESOLVED];
}
