// The only dashboard page without a session. An admin who is already signed in goes to the overview
// (or, signed in without a second factor they have yet to set up, to the enrolment). An admin whose
// session lacks the second factor they have on sees the form, to sign in again with it.
import { redirect } from "next/navigation";
import { hasTwoFactor } from "@/lib/admin-users/admin-user-record";
import { currentAdmin, dashboardOpen, TWO_FACTOR_SETUP_PATH } from "../_lib/session";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Top-up operations" };

export default async function LoginPage() {
  const admin = await currentAdmin();
  if (admin && dashboardOpen(admin)) redirect("/admin");
  if (admin && !hasTwoFactor(admin)) redirect(TWO_FACTOR_SETUP_PATH);
  return (
    <main className="login">
      <div className="panel">
        <h1>Top-up operations</h1>
        <p className="muted">Sign in with your admin account.</p>
        <LoginForm />
        <p className="muted small last">
          No account yet? An operator with shell access runs <code>npm run admin:create -- you@example.com</code>; the
          first sign-in sets up two-factor.
        </p>
      </div>
    </main>
  );
}
