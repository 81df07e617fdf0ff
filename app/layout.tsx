import type { ReactNode } from "react";
import { connection } from "next/server";
import "./global.css";

export const metadata = { title: "Top-up API" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: Next stamps the response's CSP nonce (proxy.ts) on the page's
  // scripts only while rendering it, and a page built ahead of time would have none.
  await connection();
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
