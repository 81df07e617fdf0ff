// The configuration check every process makes before it serves, for the processes Next starts
// (instrumentation.ts). Next only logs an error thrown by register() and serves on, so this exits.
import { assertProductionSecrets } from "./env";
import { logger, messageOf, nameProcess } from "../observability/logger";

export function exitUnlessConfigured(processName: string): void {
  // Next's process logs under this name too.
  nameProcess(processName);
  try {
    assertProductionSecrets();
  } catch (error) {
    logger().error(`failed to start: ${messageOf(error)}`);
    process.exit(1);
  }
}
