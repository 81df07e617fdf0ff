// next-auth for the dashboard: one credentials provider checked against admin_users (scrypt
// hashes, and a TOTP or recovery code for admins with two-factor on), JWT sessions signed with
// NEXTAUTH_SECRET. next-auth's own POST endpoints (sign-in,
// sign-out) carry its double-submit CSRF token; the dashboard's own changes are server actions,
// which Next only runs when the request's Origin matches its Host (Next's built-in CSRF check).
//
// NEXTAUTH_URL is optional. Without it next-auth cannot know the public URL, so nothing here
// depends on one: the sign-in form asks for no redirect (redirect: false) and navigates itself,
// and sessions are read from the cookie alone. next-auth still logs a NEXTAUTH_URL warning at
// start-up; behind HTTPS, set NEXTAUTH_URL=https://<host> so the session cookie is marked Secure.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { encode } from "next-auth/jwt";
import { headers } from "next/headers";
import { env } from "@/lib/config/env";
import { resolveRequestClientIp } from "@/lib/http/client-address";
import { SIGN_IN_ERROR_CODES, signInAdmin } from "@/lib/admin-sign-in/sign-in-admin";
import { hasTwoFactor } from "@/lib/admin-users/admin-user-record";
import {
  nowSeconds,
  sessionAlive,
  sessionClaimsOf,
  SESSION_IDLE_TIMEOUT_SECONDS,
  tokenMaxAge,
  type SessionClaims,
} from "@/lib/admin-sign-in/session-policy";
import { logger, messageOf } from "@/lib/observability/logger";

const log = logger("next-auth");

declare module "next-auth" {
  interface Session {
    /** How this session signed in (lib/admin-sign-in/session-policy.ts). */
    claims?: SessionClaims;
  }
}

/** The client IP, resolved as the API resolves it (lib/http/client-address.ts). */
function clientIpOf(headers: Record<string, unknown> | undefined): string {
  const text = (name: string) => {
    const value = headers?.[name];
    return Array.isArray(value) ? value.join(",") : typeof value === "string" ? value : null;
  };
  try {
    return resolveRequestClientIp(text);
  } catch {
    // No stamp: only the lean host can have handed the request over, and it wrote the resolved
    // address as the last X-Forwarded-For entry.
    return text("x-forwarded-for")?.split(",").at(-1)?.trim() || "unknown";
  }
}

/** The client IP of a server action's request, resolved as sign-in resolves it. */
export async function actionClientIp(): Promise<string> {
  return clientIpOf(Object.fromEntries(await headers()));
}

export const authOptions: NextAuthOptions = {
  // Read when a request needs it, not when `next build` loads this module (it has no secrets).
  get secret() {
    return env().nextAuthSecret;
  },
  // next-auth re-issues the token (and its cookie) for its idle timeout on every read of
  // /api/auth/session; the absolute lifetime is the sign-in time in the token, checked in the jwt
  // callback and capping every re-issued token (encode below) and cookie (the auth route).
  session: { strategy: "jwt", maxAge: SESSION_IDLE_TIMEOUT_SECONDS },
  // Only what an operator can act on. A cookie that does not decrypt (forged, or from before the
  // secret changed) sends its visitor to sign in; logged, every such request would flood stderr.
  // The missing NEXTAUTH_URL is explained in the README, not on every start.
  logger: {
    error(code, metadata) {
      // The code and the error's message only: metadata can carry what a visitor sent.
      if (code !== "JWT_SESSION_ERROR")
        log.error(code, { message: messageOf(metadata instanceof Error ? metadata : (metadata?.error ?? code)) });
    },
    warn(code) {
      if (code !== "NEXTAUTH_URL") log.warn(code);
    },
    debug() {},
  },
  jwt: {
    maxAge: SESSION_IDLE_TIMEOUT_SECONDS,
    encode(params) {
      const claims = sessionClaimsOf(params.token);
      return encode({ ...params, maxAge: claims ? tokenMaxAge(claims) : params.maxAge });
    },
  },
  pages: { signIn: "/admin/login", error: "/admin/login" },
  providers: [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
        code: { label: "Two-factor code", type: "text" },
      },
      async authorize(credentials, req) {
        const email = credentials?.email;
        const password = credentials?.password;
        if (typeof email !== "string" || typeof password !== "string" || !email || !password) return null;
        const code = typeof credentials?.code === "string" ? credentials.code : "";
        const result = await signInAdmin({ email, password, code, clientIp: clientIpOf(req?.headers) });
        // An admin with two-factor on got here only with a right code (lib/admin-users/verify-admin-password.ts).
        if (result.status === "signed_in")
          return { id: String(result.admin.id), email: result.admin.email, secondFactor: hasTwoFactor(result.admin) };
        if (result.status === "wrong_credentials") return null;
        // next-auth answers 401 with this message as the `error` the sign-in form receives.
        throw new Error(SIGN_IN_ERROR_CODES[result.status]);
      },
    }),
  ],
  callbacks: {
    // The token carries the admin's id and email and how the session signed in; every page and
    // action looks the admin up again (session.ts), so a disabled admin is locked out at once. A
    // token past its absolute lifetime, or without the sign-in time, throws: next-auth then clears
    // the cookie and answers no session.
    jwt({ token, user }) {
      if (user) {
        const now = nowSeconds();
        token.sub = user.id;
        token.email = user.email;
        token.signedInAt = now;
        token.secondFactorAt = (user as { secondFactor?: boolean }).secondFactor ? now : null;
      }
      const claims = sessionClaimsOf(token);
      if (!claims || !sessionAlive(claims)) throw new Error("session past its lifetime");
      return token;
    },
    session({ session, token }) {
      session.user = { email: token.email ?? null };
      session.claims = sessionClaimsOf(token);
      return session;
    },
  },
};
