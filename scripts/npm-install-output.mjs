// What `npm install` prints, less repeats of one engine warning. On the Node versions package.json's
// `engines` names, npm prints none. On an older Node, npm warns once that this project wants a newer
// one (kept), then again for each package here that wants Node 22 (dropped): Scalar's (the /docs
// page's code, bundled for the browser by `next build`) and @prisma/streams-local (for `prisma dev`,
// which this project does not use). Any other engine warning, and everything else npm says, is kept.
// Plain JavaScript with no dependencies: scripts/bootstrap.mjs uses it before packages exist.

/** Packages whose engine warnings are dropped (README: the Node versions). */
export const NOT_RUN_ON_NODE = /^'?(@scalar\/[^@']+|@prisma\/streams-local)@/;

/** `stderr` of npm install without the EBADENGINE blocks of NOT_RUN_ON_NODE's packages. */
export function withoutKnownEngineWarnings(stderr) {
  const kept = [];
  let block = [];
  for (const line of stderr.split("\n")) {
    const warning = /^npm warn EBADENGINE (.*)$/.exec(line);
    if (!warning) {
      kept.push(line);
      continue;
    }
    block.push(line);
    // A block runs from "Unsupported engine {" to its closing "}".
    if (warning[1].trim() !== "}") continue;
    const pkg = block.map((entry) => /package:\s*(\S+)/.exec(entry)?.[1]).find(Boolean) ?? "";
    if (!NOT_RUN_ON_NODE.test(pkg)) kept.push(...block);
    block = [];
  }
  kept.push(...block);
  return kept.join("\n");
}
