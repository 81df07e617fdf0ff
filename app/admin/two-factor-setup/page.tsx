// Two-factor enrolment, outside the console: every session that signed in without a second factor,
// or whose admin has two-factor off, is sent here (requireAdminPage) and reaches no other dashboard
// page. An admin without two-factor sets it up (password again, then a code); an admin with it on,
// in a session that signed in without it, signs in again.
import { redirect } from "next/navigation";
import { hasTwoFactor } from "@/lib/admin-users/admin-user-record";
import { dashboardOpen, readSignedInAdmin, signedInWithSecondFactor } from "../_lib/session";
import { SignOutButton } from "../_components/sign-out-button";
import { EnrolmentForm } from "./enrolment-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Set up two-factor · Top-up operations" };

export default async function TwoFactorSetupPage() {
  const admin = await readSignedInAdmin();
  if (!admin) redirect("/admin/login");
  const stamped = signedInWithSecondFactor(admin);
  if (hasTwoFactor(admin) && !stamped) {
    return (
      <main className="login">
        <div className="panel">
          <h1>Sign in again</h1>
          <p data-testid="sign-in-again">
            Two-factor is on for <strong>{admin.email}</strong>, but this session signed in without it. Sign out, then
            sign in with a code from your authenticator app.
          </p>
          <SignOutButton />
        </div>
      </main>
    );
  }
  return (
    <main className="login">
      <div className="panel">
        <h1>Set up two-factor</h1>
        <p className="muted">
          Every admin signs in with a second factor: <strong>{admin.email}</strong> needs one before any dashboard page.
          Confirm your password, add the secret to an authenticator app, and enter the code it shows.
        </p>
        <EnrolmentForm enrolled={dashboardOpen(admin)} />
      </div>
    </main>
  );
}
