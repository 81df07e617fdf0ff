// What a supplier kind declares (one module per kind, listed in kinds/index.ts). Everything else
// reads it from there: the names SUPPLIER and an account's kind may take, the settings an account
// stores and the Suppliers page's inputs for them, whether production lets the kind serve live
// orders (supplier_kinds.real, which the migrate command keeps in step), and how a Supplier is built.
import type { z } from "zod";
import type { Env } from "../../config/env";
import type { DestinationPolicy } from "../../webhooks/check-destination";
import type { Supplier } from "../types";
import type { SettingsField } from "./settings-fields";

export interface SupplierKind<Settings extends Record<string, unknown> = Record<string, unknown>> {
  /** SUPPLIER's value and an account's kind: lower-case letters, digits and dashes. */
  readonly name: string;
  /** May serve live orders in production; false for a stand-in such as the sandbox (README: Production). */
  readonly real: boolean;
  /** What an account of this kind is, for the Suppliers page. */
  readonly description: string;
  /** An account's settings as stored, its sealed secret apart; strict, so a mistyped key is refused. */
  readonly settings: z.ZodType<Settings>;
  /** The page's inputs: one per setting of `settings`. */
  readonly fields: readonly SettingsField<Extract<keyof Settings, string>>[];
  /** Takes a secret that the page seals at rest (CODES_ENCRYPTION_KEY) and never shows again. */
  readonly sealedSecret: boolean;
  /** What SUPPLIER=<name> needs in the environment, for the production start check's advice. */
  readonly environment?: string;
  /** A save's refusal that the schema cannot say (it may look up names: it runs before the write). */
  refuseSettings?(settings: Settings, policy: DestinationPolicy): Promise<string | undefined>;
  /** A save's refusal about the secret, once it is known whether the account keeps a sealed one. */
  refuseSecret?(settings: Settings, hasSealedSecret: boolean): string | undefined;
  /**
   * The Supplier an account stands for: its name, its settings and its opened sealed secret. SUPPLIER
   * is built the same way, as an account named after the kind with no settings.
   */
  create(settings: Settings, account: { name: string; secret?: string }, config: Env): Supplier;
}
