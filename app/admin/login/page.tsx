// The only dashboard page without a session. An admin who is already signed in goes to the overview.
import { redirect } from "next/navigation";
import { currentAdmin } from "../_lib/session";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Top-up operations" };

export default async function LoginPage() {
  if (await currentAdmin()) redirect("/admin");
  return (
    <main className="login">
      <div className="panel">
        <h1>Top-up operations</h1>
        <p className="muted">Sign in with your admin account.</p>
        <LoginForm />
        <p className="muted small last">
          No account yet? An operator with shell access runs <code>npm run admin:create -- you@example.com</code>.
        </p>
      </div>
    </main>
  );
}
