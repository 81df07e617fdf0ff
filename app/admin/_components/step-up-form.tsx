"use client";
// The step-up prompt, under a form whose action asked for it: a code from the authenticator app (or
// a recovery code) re-stamps the session, then the admin submits the change again.
import { useActionState } from "react";
import { stepUpAction } from "../_lib/step-up-actions";
import { ActionResult } from "./action-form";

export function StepUpForm() {
  const [state, formAction, pending] = useActionState(stepUpAction, null);
  if (state?.ok) return <ActionResult state={state} />;
  return (
    <form action={formAction} aria-label="Confirm with two-factor" className="action-form step-up">
      <label>
        Two-factor code <input name="code" autoComplete="one-time-code" size={20} maxLength={24} required autoFocus />
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={pending}>
          {pending ? "Checking…" : "Confirm with two-factor"}
        </button>
      </div>
      <ActionResult state={state} />
    </form>
  );
}
