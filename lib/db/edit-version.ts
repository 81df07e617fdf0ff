// Optimistic concurrency for the dashboard's edit forms: a form carries the version of the row it was
// opened on (its updated_at to the millisecond, the column's precision) and a save applies only while
// the row still has that version (a conditional update: WHERE updated_at = the version). A save over
// another admin's newer save is refused instead of silently undoing it. Callers without a form (the
// bot, the CLI, imports) pass no version and are not checked.

/** The version a form carries for a row last changed at `updatedAt`. */
export function editVersionOf(updatedAt: Date): string {
  return String(updatedAt.getTime());
}

/** The version a form carries for a row that does not exist yet (a setting never saved). */
export const NEVER_SAVED = new Date(0);

/**
 * The row version a save expects: undefined when none was given (no check), else a Date; a version
 * that is not one (a hand-made request) is a date no row has, so the save is refused.
 */
export function expectedVersion(version: string | undefined): Date | undefined {
  if (version === undefined || version === "") return undefined;
  return new Date(/^\d{1,15}$/.test(version) ? Number(version) : -1);
}

/** Whether a row last saved at `current` (undefined: never saved) is still at the version a form expects. */
export function isCurrentVersion(current: Date | undefined, expected: Date | undefined): boolean {
  return !expected || (current ?? NEVER_SAVED).getTime() === expected.getTime();
}

/** Thrown by a save whose result has no refusal of its own; the action answers its message. */
export class StaleEditError extends Error {
  constructor(what: string) {
    super(staleEditMessage(what));
    this.name = "StaleEditError";
  }
}

/** The WHERE part of the conditional update: the row's id and, when a version was given, that version. */
export function whereVersion<Where extends object>(where: Where, expected: Date | undefined) {
  return expected ? { ...where, updatedAt: expected } : where;
}

/**
 * The version a save writes: now, or one millisecond past the expected one when the clock has not
 * moved on, so two saves in one millisecond still read as two versions.
 */
export function nextVersion(expected: Date | undefined, now: Date = new Date()): Date {
  return !expected || now.getTime() > expected.getTime() ? now : new Date(expected.getTime() + 1);
}

/** What a refused stale save answers. */
export function staleEditMessage(what: string): string {
  return `${what} was changed by another admin after you opened this page: nothing was saved. Reload the page to see their change, then save again.`;
}
