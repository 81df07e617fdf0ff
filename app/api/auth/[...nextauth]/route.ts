// next-auth's endpoints (/api/auth/csrf, /session, /callback/credentials, /signout ...) for the
// dashboard, with the API's body limit (a sign-in form is a few hundred bytes).
import NextAuth from "next-auth";
import { authOptions } from "@/app/admin/_lib/auth-options";
import { env } from "@/lib/config/env";
import { withBodyLimit } from "@/lib/http/with-body-limit";

const handler = withBodyLimit(NextAuth(authOptions), env().maxBodyBytes);

export { handler as GET, handler as POST };
