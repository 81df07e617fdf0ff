// Dashboard sign-in over real HTTP, through next-auth's CSRF flow and credentials callback, as the
// sign-in form does it: what a test needs to act as an admin without a browser.
import { encode } from "next-auth/jwt";
import { TEST_ENV } from "../setup/test-env";
import { suiteBaseUrl } from "./suite";

export interface SignInAnswer {
  status: number;
  /** next-auth's `error` (CredentialsSignin for wrong credentials), or "" when signed in. */
  error: string;
  /** "next-auth.session-token=..." when signed in. */
  sessionCookie?: string;
}

/** next-auth's double-submit CSRF token: the cookie and the form field must match. */
async function fetchCsrf(base = suiteBaseUrl()): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith("next-auth.csrf-token="))!
    .split(";")[0]!;
  return { token: csrfToken, cookie };
}

export async function signInOverHttp(input: {
  email: string;
  password: string;
  code?: string;
  base?: string;
  csrf?: { token: string; cookie: string };
  /** E.g. X-Forwarded-For, on a server that trusts the test as a proxy. */
  headers?: Record<string, string>;
}): Promise<SignInAnswer> {
  const base = input.base ?? suiteBaseUrl();
  const csrf = input.csrf ?? (await fetchCsrf(base));
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.cookie, ...input.headers },
    body: new URLSearchParams({
      csrfToken: csrf.token,
      email: input.email,
      password: input.password,
      ...(input.code === undefined ? {} : { code: input.code }),
      json: "true",
      callbackUrl: `${base}/admin`,
    }),
  });
  const body = (await res.json()) as { url: string };
  const session = res.headers.getSetCookie().find((c) => c.startsWith("next-auth.session-token="));
  return {
    status: res.status,
    error: new URL(body.url).searchParams.get("error") ?? "",
    sessionCookie: session?.split(";")[0],
  };
}

/**
 * A session cookie as the server issues it, signed with the suite's NEXTAUTH_SECRET (or `secret`):
 * how a session looks that signed in at `signedInAt` (Unix seconds, default now) and proved the
 * second factor at `secondFactorAt` (default: at sign-in; null for a password-only session). An
 * older time is how a session that old really looks, without waiting for it.
 */
export async function mintSessionCookie(input: {
  email: string;
  signedInAt?: number;
  secondFactorAt?: number | null;
  secret?: string;
  /** Seconds until the token expires as next-auth would issue it (the idle timeout); negative for past. */
  expiresIn?: number;
}): Promise<string> {
  const signedInAt = input.signedInAt ?? Math.floor(Date.now() / 1000);
  const token = {
    email: input.email,
    signedInAt,
    secondFactorAt: input.secondFactorAt === undefined ? signedInAt : input.secondFactorAt,
  };
  const value = await encode({
    token,
    secret: input.secret ?? TEST_ENV.NEXTAUTH_SECRET!,
    maxAge: input.expiresIn ?? 30 * 60,
  });
  return `next-auth.session-token=${value}`;
}
