// What a dashboard server action answers to its form (shown under the form by ActionForm).
export type ActionState = {
  ok: boolean;
  message: string;
  /** Secrets shown in this answer only (recovery codes, a generated password): never stored in clear. */
  shownOnce?: string[];
} | null;

export const NOT_SIGNED_IN: ActionState = {
  ok: false,
  message: "Not signed in (or the session ended): sign in again. Nothing was changed.",
};

/** An admin whose role is below what the action needs. */
export function roleRefusal(needed: string, held: string): ActionState {
  return { ok: false, message: `Needs the ${needed} role (yours is ${held}): nothing was changed.` };
}

/** Owner actions need two-factor sign-in: an owner's password alone must not change the catalog or the admins. */
export const OWNER_NEEDS_TWO_FACTOR: ActionState = {
  ok: false,
  message: "Owner actions need two-factor sign-in: set it up under Your account (/admin/account). Nothing was changed.",
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
