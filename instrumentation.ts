// Next runs register() once per server process before it serves a request (`next start`, `next dev`
// and the dashboard inside the lean host): a configuration the service cannot run with stops the
// process here, naming what is missing, as the lean host and the worker do at their start.
export async function register(): Promise<void> {
  // Set by Next itself, not configuration: the Edge runtime has no secrets and no process to stop.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { exitUnlessConfigured } = await import("./lib/config/start-check");
  exitUnlessConfigured("web");
}
