// The one "below cost" rule of the dashboard: a price under the cheapest cost among the suppliers that
// carry the pack. The catalog page flags list prices with it, the tiers page tier prices (and asks to
// confirm one before it is saved). No supplier, no cost to be below.

export function isBelowCost(priceCents: number, cheapestCostCents: number | null): boolean {
  return cheapestCostCents !== null && priceCents < cheapestCostCents;
}
