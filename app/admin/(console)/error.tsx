"use client";
// What a dashboard page shows when it or one of its actions fails unexpectedly (database down, a
// bug): the error's reference for the logs and a retry, inside the dashboard's frame.
import { useEffect } from "react";

export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <section className="panel" role="alert">
      <h1>Something went wrong</h1>
      <p>
        The page could not be loaded or the action could not finish. Retrying is safe: every dashboard action sets a
        state rather than toggling one, codes already stored are refused, and an order is settled only once.
      </p>
      {error.digest ? (
        <p className="muted">
          Reference for the server log: <code>{error.digest}</code>
        </p>
      ) : null}
      <button type="button" className="primary" onClick={reset}>
        Try again
      </button>
    </section>
  );
}
