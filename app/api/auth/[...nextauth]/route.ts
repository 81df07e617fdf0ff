// next-auth's endpoints (/api/auth/csrf, /session, /callback/credentials, /signout ...) for the
// dashboard, with the API's body limit (a sign-in form is a few hundred bytes) and its security
// headers. Over HTTPS (a trusted proxy says so) the cookies are Secure and HSTS is sent; on plain
// http they cannot be, or the browser would drop the session.
import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { authOptions } from "@/app/admin/_lib/auth-options";
import { capSessionCookie } from "@/app/admin/_lib/session-token";
import { env } from "@/lib/config/env";
import { isHttpsRequest } from "@/lib/http/https-request";
import { API_SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from "@/lib/http/security-headers";
import { withBodyLimit } from "@/lib/http/with-body-limit";

type Context = { params: Promise<{ nextauth: string[] }> };

const plain = NextAuth(authOptions) as (request: NextRequest, context: Context) => Promise<Response>;
// The options' descriptors, not a spread: a spread would read the secret getter at build time.
const secure = NextAuth(
  Object.defineProperties(
    { cookies: secureCookies() },
    Object.getOwnPropertyDescriptors(authOptions),
  ) as typeof authOptions,
) as typeof plain;

/** next-auth's own cookie names (the dashboard reads them by these), with the Secure flag. */
function secureCookies() {
  const options = { httpOnly: true, sameSite: "lax" as const, path: "/", secure: true };
  return {
    sessionToken: { name: "next-auth.session-token", options },
    callbackUrl: { name: "next-auth.callback-url", options },
    csrfToken: { name: "next-auth.csrf-token", options },
  };
}

async function handle(request: NextRequest, context: Context): Promise<Response> {
  const https = isHttpsRequest((name) => request.headers.get(name));
  const answer = await (https ? secure : plain)(request, context);
  const response = new Response(answer.body, answer);
  // Every read of the session re-issues its cookie: never past the session's absolute lifetime.
  const setCookies = answer.headers.getSetCookie();
  if (setCookies.length) {
    response.headers.delete("set-cookie");
    for (const cookie of setCookies) response.headers.append("set-cookie", await capSessionCookie(cookie));
  }
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) response.headers.set(name, value);
  if (https) response.headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  return response;
}

const handler = withBodyLimit(handle, env().maxBodyBytes);

export { handler as GET, handler as POST };
