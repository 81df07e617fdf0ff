"use client";
// The enrolment's steps in one place: the password again, then the secret (shown only in that
// answer) and its first code, then the recovery codes once and the way on to the dashboard.
import Link from "next/link";
import { useActionState } from "react";
import { ActionResult } from "../_components/action-form";
import { confirmEnrolmentAction, startEnrolmentAction } from "./actions";

export function EnrolmentForm({ enrolled }: { enrolled: boolean }) {
  const [started, startAction, starting] = useActionState(startEnrolmentAction, null);
  const [confirmed, confirmAction, confirming] = useActionState(confirmEnrolmentAction, null);

  if (confirmed?.ok || enrolled) {
    return (
      <div>
        <ActionResult state={confirmed} />
        {confirmed?.shownOnce?.length ? (
          <ul className="shown-once mono" aria-label="Shown once">
            {confirmed.shownOnce.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        ) : (
          <p data-testid="two-factor-state">Two-factor is on.</p>
        )}
        <p>
          <Link href="/admin" prefetch={false}>
            Continue to the dashboard
          </Link>
        </p>
      </div>
    );
  }

  return (
    <div>
      <form action={startAction} aria-label="Confirm your password" className="action-form stacked">
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <div className="row">
          <button type="submit" className={started?.secret ? undefined : "primary"} disabled={starting}>
            {starting ? "Checking…" : started?.secret ? "Start again with a new secret" : "Set up two-factor"}
          </button>
        </div>
        {started?.secret ? null : <ActionResult state={started} />}
      </form>
      {started?.secret ? (
        <div className="two-factor-setup">
          <p>{started.message}</p>
          {/* A data: URL of the SVG: the page's CSP allows data: images, and no markup is injected. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img className="qr" src={started.qrDataUrl} alt="QR code of the two-factor secret" width={200} height={200} />
          <p>
            Key: <code data-testid="totp-secret">{started.secret}</code>
          </p>
          <form action={confirmAction} aria-label="Confirm two-factor" className="action-form">
            <label>
              Code{" "}
              <input name="code" inputMode="numeric" autoComplete="one-time-code" size={8} maxLength={8} required />
            </label>
            <div className="row">
              <button type="submit" className="primary" disabled={confirming}>
                {confirming ? "Checking…" : "Turn two-factor on"}
              </button>
            </div>
            <ActionResult state={confirmed} />
          </form>
        </div>
      ) : null}
      <p className="muted small">
        Or <Link href="/admin/login">sign in as someone else</Link>.
      </p>
    </div>
  );
}
