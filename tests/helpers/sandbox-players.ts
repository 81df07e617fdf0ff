// Test players for the sandbox supplier, which acts by the ending of a player id
// (lib/suppliers/sandbox-behaviours.ts). Ids made of counters or random digits can end like a rule
// by chance (777: a top-up that never settles), so a served player's id ends in a digit no rule ends in.
import { sandboxBehaviours } from "@/lib/suppliers/sandbox-behaviours";

/** The last digit of a player the sandbox serves: the first digit no rule's ending ends with. */
export const SERVED_SANDBOX_ENDING = [..."0123456789"].find(
  (digit) => !sandboxBehaviours.some((rule) => rule.suffix?.endsWith(digit)),
)!;
