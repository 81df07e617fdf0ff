// What a dashboard server action answers to its form (shown under the form by ActionForm).
export type ActionState = {
  ok: boolean;
  message: string;
  /** Secrets shown in this answer only (recovery codes, a generated password): never stored in clear. */
  shownOnce?: string[];
  /** The action needs the second factor proved again: the form offers the step-up prompt. */
  stepUp?: boolean;
} | null;

export const NOT_SIGNED_IN: ActionState = {
  ok: false,
  message: "Not signed in (or the session ended): sign in again. Nothing was changed.",
};

/** An admin whose role is below what the action needs. */
export function roleRefusal(needed: string, held: string): ActionState {
  return { ok: false, message: `Needs the ${needed} role (yours is ${held}): nothing was changed.` };
}

/** Every dashboard action needs a session that signed in with the second factor: a password alone does nothing. */
export const NEEDS_SECOND_FACTOR_SESSION: ActionState = {
  ok: false,
  message:
    "This session signed in without a second factor (or your two-factor is off): set it up at /admin/two-factor-setup, or sign in again with your code. Nothing was changed.",
};

/** Money and admin changes need the second factor proved within the step-up window. */
export const NEEDS_STEP_UP: ActionState = {
  ok: false,
  stepUp: true,
  message:
    "This change needs your two-factor code from the last 15 minutes: enter a code below, then submit again. Nothing was changed.",
};

/** Dangerous forms send confirmed=yes only from their confirmation step (ActionForm). */
export const NOT_CONFIRMED: ActionState = { ok: false, message: "Not confirmed: nothing was changed." };

// Actions are public endpoints: a hand-made request may send anything as "formData", so the readers
// below treat a non-FormData argument as an empty form instead of throwing.
export function isConfirmed(formData: FormData): boolean {
  return formData instanceof FormData && formData.get("confirmed") === "yes";
}

/** A form field as trimmed text ("" when absent or a file). */
export function textField(formData: FormData, name: string): string {
  const value = formData instanceof FormData ? formData.get(name) : null;
  return typeof value === "string" ? value.trim() : "";
}

/** A positive int4 id from a form field, or undefined. */
export function idField(formData: FormData, name: string): number | undefined {
  const text = textField(formData, name);
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= 2_147_483_647 ? id : undefined;
}

/** The version an edit form was opened on (lib/db/edit-version.ts); undefined when the form has none. */
export function versionField(formData: FormData): string | undefined {
  return textField(formData, "version") || undefined;
}
