// The sandbox: in-process, behaving by the player id's ending (sandbox-supplier.ts). Not a real
// supplier: production never lets it serve a live order; test keys use it everywhere.
import { z } from "zod";
import { createSandboxSupplier } from "../sandbox-supplier";
import type { SupplierKind } from "./supplier-kind";

/** The stand-in that test keys use everywhere, and SUPPLIER when unset. */
export const SANDBOX_KIND = "sandbox";

const SandboxSettings = z
  .object({
    latencyMs: z.number().int().min(0).max(60_000).optional(),
    down: z.boolean().optional(),
    refuseSkus: z.array(z.string()).optional(),
    outOfStockSkus: z.array(z.string()).optional(),
  })
  .strict();

export const sandboxKind: SupplierKind<z.infer<typeof SandboxSettings>> = {
  name: SANDBOX_KIND,
  real: false,
  description: "In-process, answering by the player id's ending; the account's own behaviours try out routing rules.",
  settings: SandboxSettings,
  fields: [
    {
      name: "latencyMs",
      label: "Latency (ms)",
      type: "integer",
      help: "Added to every call; empty: SANDBOX_LATENCY_MS.",
    },
    { name: "down", label: "Down: refuses every top-up", type: "boolean" },
    { name: "refuseSkus", label: "SKUs it refuses", type: "list", placeholder: "br-60, br-325" },
    { name: "outOfStockSkus", label: "SKUs out of stock", type: "list" },
  ],
  sealedSecret: false,
  create: (settings, account, config) => createSandboxSupplier({ ...config.sandbox, ...settings, name: account.name }),
};
