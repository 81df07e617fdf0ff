// next-auth for the dashboard: one credentials provider checked against admin_users (scrypt
// hashes), JWT sessions signed with NEXTAUTH_SECRET. next-auth's own POST endpoints (sign-in,
// sign-out) carry its double-submit CSRF token; the dashboard's own changes are server actions,
// which Next only runs when the request's Origin matches its Host (Next's built-in CSRF check).
//
// NEXTAUTH_URL is optional. Without it next-auth cannot know the public URL, so nothing here
// depends on one: the sign-in form asks for no redirect (redirect: false) and navigates itself,
// and sessions are read from the cookie alone. next-auth still logs a NEXTAUTH_URL warning at
// start-up; behind HTTPS, set NEXTAUTH_URL=https://<host> so the session cookie is marked Secure.
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "@/lib/config/env";
import { verifyAdminPassword } from "@/lib/admin-users/verify-admin-password";

/** An operator's working day; after it they sign in again. */
const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

export const authOptions: NextAuthOptions = {
  secret: env().nextAuthSecret,
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  jwt: { maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/admin/login", error: "/admin/login" },
  providers: [
    CredentialsProvider({
      id: "credentials",
      name: "Email and password",
      credentials: {
        email: { label: "Email", type: "email" },
        password: { label: "Password", type: "password" },
      },
      async authorize(credentials) {
        const email = credentials?.email;
        const password = credentials?.password;
        if (typeof email !== "string" || typeof password !== "string" || !email || !password) return null;
        const admin = await verifyAdminPassword(email, password);
        return admin ? { id: String(admin.id), email: admin.email } : null;
      },
    }),
  ],
  callbacks: {
    // The token carries only the admin's id and email; every page and action looks the admin up
    // again (session.ts), so a disabled admin is locked out at once.
    jwt({ token, user }) {
      if (user) {
        token.sub = user.id;
        token.email = user.email;
      }
      return token;
    },
    session({ session, token }) {
      session.user = { email: token.email ?? null };
      return session;
    },
  },
};
