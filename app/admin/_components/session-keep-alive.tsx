"use client";
// Keeps a used session from its idle timeout: each page shown, and at most once a minute a form
// sent or a key or click, reads the session, which re-issues its cookie (never past its absolute
// lifetime). A session that has ended sends the browser to sign in.
import { usePathname } from "next/navigation";
import { useEffect } from "react";

const AT_MOST_EVERY_MS = 60_000;

export function SessionKeepAlive() {
  const pathname = usePathname();
  useEffect(() => {
    let last = 0;
    const touch = () => {
      const now = Date.now();
      if (now - last < AT_MOST_EVERY_MS) return;
      last = now;
      void fetch("/api/auth/session", { cache: "no-store" })
        .then((res) => res.json() as Promise<{ user?: unknown }>)
        .then((session) => {
          // eslint-disable-next-line @next/next/no-location-assign-relative-destination
          if (!session?.user) window.location.assign("/admin/login");
        })
        .catch(() => {});
    };
    touch();
    const events = ["submit", "keydown", "click"] as const;
    for (const name of events) document.addEventListener(name, touch, { capture: true });
    return () => {
      for (const name of events) document.removeEventListener(name, touch, { capture: true });
    };
  }, [pathname]);
  return null;
}
