// The session cookie read and re-issued outside next-auth's endpoints: a server action that proves
// the second factor again (enrolment, step-up) stamps the time into the session it runs in, and the
// auth route keeps every cookie it sets within the session's absolute lifetime.
import { cookies, headers } from "next/headers";
import { decode, encode, type JWT } from "next-auth/jwt";
import { env } from "@/lib/config/env";
import { isHttpsRequest } from "@/lib/http/https-request";
import {
  nowSeconds,
  sessionAlive,
  sessionClaimsOf,
  sessionDeadline,
  tokenMaxAge,
} from "@/lib/admin-sign-in/session-policy";

/** next-auth's session cookie names: plain, or prefixed when NEXTAUTH_URL is https. */
const SESSION_COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

async function decodeToken(value: string): Promise<JWT | undefined> {
  try {
    return (await decode({ token: value, secret: env().nextAuthSecret })) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Re-issues the request's live session with the second factor proved now. False when there is no
 * live session to stamp.
 */
export async function stampSecondFactor(): Promise<boolean> {
  const jar = await cookies();
  const name = SESSION_COOKIE_NAMES.find((candidate) => jar.get(candidate)?.value);
  if (!name) return false;
  const token = await decodeToken(jar.get(name)!.value);
  const claims = sessionClaimsOf(token);
  const now = nowSeconds();
  if (!token || !claims || !sessionAlive(claims, now)) return false;
  const stamped = { ...token, secondFactorAt: now };
  const maxAge = tokenMaxAge(claims, now);
  const header = await headers();
  jar.set(name, await encode({ token: stamped, secret: env().nextAuthSecret, maxAge }), {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: name.startsWith("__Secure-") || isHttpsRequest((key) => header.get(key)),
    expires: new Date((now + maxAge) * 1000),
  });
  return true;
}

/**
 * A Set-Cookie header of next-auth's with a session cookie's expiry brought back to the session's
 * absolute deadline (next-auth sets it its idle timeout from now); other cookies as they are.
 */
export async function capSessionCookie(setCookie: string): Promise<string> {
  const [pair = ""] = setCookie.split(";");
  const eq = pair.indexOf("=");
  const name = pair.slice(0, eq).trim();
  const value = pair.slice(eq + 1).trim();
  if (!SESSION_COOKIE_NAMES.includes(name) || !value) return setCookie;
  const claims = sessionClaimsOf(await decodeToken(value));
  if (!claims) return setCookie;
  const deadline = new Date(sessionDeadline(claims) * 1000);
  const expires = /;\s*expires=([^;]*)/i.exec(setCookie);
  if (expires && new Date(expires[1]!).getTime() <= deadline.getTime()) return setCookie;
  const withoutAge = setCookie.replace(/;\s*(expires|max-age)=[^;]*/gi, "");
  return `${withoutAge}; Expires=${deadline.toUTCString()}`;
}
