/** Integer cents to the USD number shown in JSON. Arithmetic stays in cents; this is display only. */
export function centsToUsd(cents: number): number {
  return Math.round(cents) / 100;
}
