// Every /admin page, the sign-in page included: the dashboard's stylesheet and page frame. Access
// control is in (console)/layout.tsx and in each page and action, not here.
import type { ReactNode } from "react";
import "./admin.css";

export const metadata = { title: "Top-up operations", robots: { index: false, follow: false } };

export default function AdminRootLayout({ children }: { children: ReactNode }) {
  return <div className="admin">{children}</div>;
}
