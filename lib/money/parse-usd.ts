// Strict USD amount parsing for admin money commands. The text is converted to integer cents by
// string arithmetic only: "19.99" must become exactly 1999, which a float round trip cannot promise.

/** The largest single credit or debit an admin can enter: $100,000.00. A typo beyond it is refused. */
export const MAX_ADJUSTMENT_CENTS = 10_000_000;

export type ParseUsdResult = { ok: true; cents: number } | { ok: false; error: string };

// Digits, optionally a dot and one or two decimals. No sign, exponent, separators or currency
// symbols: every accepted string has exactly one meaning.
const AMOUNT_PATTERN = /^(\d{1,9})(?:\.(\d{1,2}))?$/;

export function parseUsd(input: string, maxCents: number = MAX_ADJUSTMENT_CENTS): ParseUsdResult {
  const text = input.trim();
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) {
    return {
      ok: false,
      error: "Amount must be a positive number of dollars with at most two decimals, e.g. 25 or 19.99",
    };
  }
  const [, whole = "", fraction = ""] = match;
  // "007" is refused rather than guessed at: a leading zero is allowed only as the single "0" of "0.50".
  if (whole.length > 1 && whole.startsWith("0")) {
    return { ok: false, error: "Amount must not have leading zeros" };
  }
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  if (cents <= 0) return { ok: false, error: "Amount must be greater than zero" };
  if (cents > maxCents) return { ok: false, error: `Amount must be at most ${formatUsd(maxCents)}` };
  return { ok: true, cents };
}

/** Integer cents to "$1,234.56" for messages, with integer arithmetic only. */
export function formatUsd(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const absolute = Math.abs(Math.trunc(cents));
  const whole = Math.floor(absolute / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (absolute % 100).toString().padStart(2, "0");
  return `${sign}$${whole}.${fraction}`;
}
