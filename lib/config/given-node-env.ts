// NODE_ENV as the environment gave it. Loading a production build of Next sets the loading process's
// NODE_ENV to "production", whatever the environment said, and Next's bundle reads the value compiled
// into it; so the web process holds the given value before it loads Next (scripts/serve.ts), on
// globalThis, where the bundle's own copy of lib/config finds it (as with the secrets: secrets.ts).
// Not an environment variable: nobody can set it to make production look like development.
const HELD = Symbol.for("topup-api.given-node-env");
type WithHeld = typeof globalThis & { [HELD]?: { value: string | undefined } };

/** Holds this process's NODE_ENV as given, for good: call it before anything loads Next. */
export function holdGivenNodeEnv(): void {
  (globalThis as WithHeld)[HELD] ??= { value: Reflect.get(process.env, "NODE_ENV") };
}

/** NODE_ENV as this process was given it: held before Next loaded, or read now where nothing was held. */
export function givenNodeEnv(): string | undefined {
  const held = (globalThis as WithHeld)[HELD];
  // Reflect.get: a bundler replaces `process.env.NODE_ENV` with the value it built with.
  return held ? held.value : Reflect.get(process.env, "NODE_ENV");
}
