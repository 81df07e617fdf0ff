// The signed-in dashboard's frame. It refuses a visitor without a session (and sends a session
// without a second factor to the enrolment), but so does every page and action on its own: Next may
// re-render a page without its layout.
import type { ReactNode } from "react";
import Link from "next/link";
import { requireAdminPage } from "../_lib/session";
import { NavLinks } from "../_components/nav-links";
import { SignOutButton } from "../_components/sign-out-button";
import { SessionKeepAlive } from "../_components/session-keep-alive";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const admin = await requireAdminPage();
  return (
    <div className="admin-shell">
      <nav className="admin-nav" aria-label="Dashboard">
        <div className="brand">Top-up ops</div>
        <NavLinks />
        <div className="who">
          Signed in as
          <br />
          <strong data-testid="signed-in-as">{admin.email}</strong>
          <br />
          <span className="muted small" data-testid="signed-in-role">
            {admin.role}
          </span>{" "}
          · <Link href="/admin/account">Your account</Link>
          <br />
          <SignOutButton />
        </div>
      </nav>
      <main className="admin-main">
        {children}
        <SessionKeepAlive />
      </main>
    </div>
  );
}
