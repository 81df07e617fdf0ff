// The page of any path Next answers without a page of its own (/admin/…, /docs/…, /_next/…).
// Next's built-in one sets style attributes, which the pages' Content-Security-Policy refuses.
export const metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <main className="not-found">
      <h1>404</h1>
      <p>This page could not be found.</p>
    </main>
  );
}
