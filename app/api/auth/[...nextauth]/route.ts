// next-auth's endpoints (/api/auth/csrf, /session, /callback/credentials, /signout ...) for the
// dashboard. The lean host routes /api/auth to Next (lib/http/lean-host.ts).
import NextAuth from "next-auth";
import { authOptions } from "@/app/admin/_lib/auth-options";

const handler = NextAuth(authOptions);

export { handler as GET, handler as POST };
