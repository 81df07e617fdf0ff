// The sign-in refusals' codes, apart from sign-in itself: the lean host's gate answers with them
// without loading the password and two-factor checks (and their libraries) into every API process.
import type { SignInResult } from "./sign-in-admin";

/** The `error` next-auth hands the sign-in form for each refusal other than a wrong password. */
export const SIGN_IN_ERROR_CODES: Record<Exclude<SignInResult["status"], "signed_in" | "wrong_credentials">, string> = {
  throttled: "SIGN_IN_THROTTLED",
  locked: "SIGN_IN_LOCKED",
  busy: "SIGN_IN_BUSY",
  full: "SIGN_IN_FULL",
  second_factor_locked: "SIGN_IN_SECOND_FACTOR_LOCKED",
};
