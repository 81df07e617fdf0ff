// The configuration check every process makes before it serves, for the processes Next starts
// (instrumentation.ts). Next only logs an error thrown by register() and serves on, so this exits.
import { assertProductionSecrets } from "./env";

export function exitUnlessConfigured(processName: string): void {
  try {
    assertProductionSecrets();
  } catch (error) {
    console.error(`[${processName}] failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
