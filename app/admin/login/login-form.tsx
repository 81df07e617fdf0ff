"use client";
// Signs in through next-auth's credentials endpoint without letting next-auth redirect: without
// NEXTAUTH_URL it would send the browser to http://localhost:3000. The form goes to the overview.
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";

// One answer whichever part was wrong: it must not tell a guesser that the password was right.
const WRONG_CREDENTIALS = "Wrong email or password, or a wrong two-factor code.";

function messageFor(error: string | null | undefined, status: number | undefined): string {
  switch (error) {
    case "SIGN_IN_THROTTLED":
      return "Too many failed attempts. Wait a few seconds, then try again.";
    case "SIGN_IN_LOCKED":
      return "Too many failed attempts: sign-in is locked for 15 minutes.";
    case "SIGN_IN_FULL":
      return "Too many addresses are failing to sign in right now, so sign-in from an address not seen before is refused. Try again in a few minutes.";
    case "SIGN_IN_SECOND_FACTOR_LOCKED":
      return "Too many wrong two-factor codes for this account: its two-factor step is locked for up to 15 minutes, and the owners have been told.";
    case "SIGN_IN_BUSY":
      return "The server is busy checking sign-ins. Try again in a moment.";
    case "CredentialsSignin":
      return WRONG_CREDENTIALS;
    default:
      return status === 401 ? WRONG_CREDENTIALS : "Sign-in failed. Try again.";
  }
}

export function LoginForm() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      code: String(form.get("code") ?? ""),
      redirect: false,
    }).catch(() => undefined);
    if (result?.ok && !result.error) {
      // A full page load, so every server component reads the new session cookie.
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination
      window.location.assign("/admin");
      return;
    }
    setBusy(false);
    setError(messageFor(result?.error, result?.status));
  }

  return (
    <form onSubmit={onSubmit} method="post" aria-label="Sign in">
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <label>
        Email
        <input name="email" type="email" autoComplete="username" required autoFocus />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {/* Always asked for: showing it only for admins with two-factor on would tell who they are. */}
      <label>
        Two-factor code (if turned on)
        <input name="code" type="text" inputMode="text" autoComplete="one-time-code" maxLength={24} />
      </label>
      <button type="submit" className="primary" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
