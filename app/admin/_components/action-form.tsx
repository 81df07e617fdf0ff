"use client";
// A form bound to a dashboard server action, showing the action's answer under it. With `confirm`,
// the first click (or Enter) only opens a confirmation step that says what will happen; the form
// sends confirmed=yes from that step alone, and the actions that change money or access refuse
// without it, so nothing happens from a stray click.
import { useActionState, useState, type ReactNode } from "react";
import type { ActionState } from "../_lib/action-state";
import { StepUpForm } from "./step-up-form";

export interface ActionFormProps {
  action: (state: ActionState, formData: FormData) => Promise<ActionState>;
  submitLabel: string;
  /** What will happen, in plain words; asked before the action runs. */
  confirm?: string;
  tone?: "primary" | "danger" | "plain";
  /** Fields of the form (inputs, hidden ids). */
  children?: ReactNode;
  layout?: "inline" | "stacked";
  /** Accessible name of the form, for tests and screen readers. */
  label?: string;
  /** Clear the inputs after a successful action (uploads, lists). */
  resetOnSuccess?: boolean;
}

export function ActionForm({
  action,
  submitLabel,
  confirm,
  tone = "plain",
  children,
  layout = "inline",
  label,
  resetOnSuccess,
}: ActionFormProps) {
  const [state, formAction, pending] = useActionState(action, null);
  const [confirming, setConfirming] = useState(false);
  const [formKey, setFormKey] = useState(0);

  // Each answer closes the confirmation step (and clears the inputs on success), adjusted during
  // render rather than in an effect so the form never paints once with the stale step.
  const [answered, setAnswered] = useState(state);
  const [answers, setAnswers] = useState(0);
  if (state !== answered) {
    setAnswered(state);
    setAnswers((count) => count + 1);
    setConfirming(false);
    if (state?.ok && resetOnSuccess) setFormKey((key) => key + 1);
  }

  const buttonClass = tone === "plain" ? undefined : tone;
  return (
    <>
      <form
        key={formKey}
        action={formAction}
        aria-label={label}
        className={`action-form${layout === "stacked" ? " stacked" : ""}`}
        onSubmit={(event) => {
          if (confirm && !confirming) {
            event.preventDefault();
            setConfirming(true);
          }
        }}
      >
        {children}
        {confirm && confirming ? (
          <>
            <p className="confirm" role="alert">
              {confirm}
            </p>
            <input type="hidden" name="confirmed" value="yes" />
            <div className="row">
              <button type="submit" className={buttonClass ?? "primary"} disabled={pending}>
                {pending ? "Working…" : `Confirm: ${submitLabel}`}
              </button>{" "}
              <button type="button" onClick={() => setConfirming(false)} disabled={pending}>
                Back
              </button>
            </div>
          </>
        ) : (
          <div className="row">
            <button type="submit" className={buttonClass} disabled={pending}>
              {pending ? "Working…" : confirm ? `${submitLabel}…` : submitLabel}
            </button>
          </div>
        )}
        <ActionResult state={state} />
        {state?.shownOnce?.length ? (
          <ul className="shown-once mono" aria-label="Shown once">
            {state.shownOnce.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        ) : null}
      </form>
      {/* Outside the form: forms do not nest. A new answer asking again shows a fresh prompt. */}
      {state?.stepUp ? <StepUpForm key={answers} /> : null}
    </>
  );
}

/** An action's answer under its form: what happened, or why nothing did. */
export function ActionResult({ state }: { state: ActionState }) {
  return state ? (
    <p className={`result ${state.ok ? "ok" : "error"}`} role="status">
      {state.message}
    </p>
  ) : null;
}
