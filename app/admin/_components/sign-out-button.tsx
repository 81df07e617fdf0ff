"use client";
// Sign-out is next-auth's POST /api/auth/signout (with its CSRF token); then the sign-in page.
import { signOut } from "next-auth/react";
import { useState } from "react";

export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        await signOut({ redirect: false });
        // A full page load, so no client-side cache keeps a page rendered for the ended session.
        // eslint-disable-next-line @next/next/no-location-assign-relative-destination
        window.location.assign("/admin/login");
      }}
    >
      Sign out
    </button>
  );
}
