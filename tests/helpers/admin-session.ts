// Dashboard sign-in over real HTTP, through next-auth's CSRF flow and credentials callback, as the
// sign-in form does it: what a test needs to act as an admin without a browser.
import { baseUrl } from "./api";

export interface SignInAnswer {
  status: number;
  /** next-auth's `error` (CredentialsSignin for wrong credentials), or "" when signed in. */
  error: string;
  /** "next-auth.session-token=..." when signed in. */
  sessionCookie?: string;
}

/** next-auth's double-submit CSRF token: the cookie and the form field must match. */
export async function fetchCsrf(base = baseUrl()): Promise<{ token: string; cookie: string }> {
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
  const base = input.base ?? baseUrl();
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
