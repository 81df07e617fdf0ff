// What each admin may do in the dashboard. Each role can do everything the roles before it can:
// - viewer: reads every page;
// - operator: settles orders, flips switches, changes account states, redelivers webhooks;
// - owner: the catalog, prices, tiers, suppliers and the admins themselves.
export const ADMIN_ROLES = ["viewer", "operator", "owner"] as const;

export type AdminRole = (typeof ADMIN_ROLES)[number];

export function isAdminRole(value: unknown): value is AdminRole {
  return typeof value === "string" && (ADMIN_ROLES as readonly string[]).includes(value);
}

/** Whether an admin of role `held` may do what needs `needed`. */
export function roleAllows(held: string, needed: AdminRole): boolean {
  return isAdminRole(held) && ADMIN_ROLES.indexOf(held) >= ADMIN_ROLES.indexOf(needed);
}
