// Module-resolution hooks (node:module register): any import of the modules below, from anywhere
// in the service, resolves to the bench's stand-in instead; the stand-in itself imports the real
// module (its own imports pass through untouched) and re-exports everything it does not replace.
const AVAILABLE: Record<string, Record<string, string>> = {
  auth: { "/lib/auth/authenticate-api-key.ts": new URL("./stub-authenticate-api-key.ts", import.meta.url).href },
  ratelimit: {
    "/lib/http/access-policies.ts": new URL("./stub-access-policies.ts", import.meta.url).href,
    "/lib/ratelimit/index.ts": new URL("./stub-ratelimit.ts", import.meta.url).href,
  },
};

let STUBS: Record<string, string> = {};
let stubUrls = new Set<string>();

/** Called once by register() with the stubs to apply. */
export function initialize(data: { stubs: string[] }): void {
  STUBS = Object.assign({}, ...data.stubs.map((name) => AVAILABLE[name] ?? {}));
  stubUrls = new Set(Object.values(STUBS));
}

interface ResolveContext {
  parentURL?: string;
}
interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: (specifier: string, context: ResolveContext) => Promise<ResolveResult>,
): Promise<ResolveResult> {
  const resolved = await nextResolve(specifier, context);
  if (context.parentURL && stubUrls.has(context.parentURL)) return resolved;
  for (const [suffix, stub] of Object.entries(STUBS)) {
    if (resolved.url.endsWith(suffix)) return { ...resolved, url: stub, shortCircuit: true };
  }
  return resolved;
}
