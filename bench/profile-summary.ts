// Summarises a V8 .cpuprofile (node --cpu-prof): where the process spent its CPU, by function
// (self time) and by area (a package in node_modules, a project folder, node internals, GC, idle).
//   node --import tsx bench/profile-summary.ts bench/profiles/<file>.cpuprofile [top=25]
import fs from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function areaOf(url: string, name: string): string {
  if (name === "(garbage collector)") return "(garbage collector)";
  if (name === "(idle)" || name === "(program)" || name === "(root)") return name;
  if (!url) return "(native / V8 builtins)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[0]}`;
  const project =
    /\/work\/[^/]+\/(lib\/[^/]+|app|scripts|bench)/.exec(url) ?? /\/((?:lib\/[^/]+)|app|scripts|bench)\//.exec(url);
  return project ? project[1]! : url;
}

function main(): void {
  const [file, topArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
  const top = Number(topArg ?? 25);
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfUs]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)")
    .reduce((a, [, us]) => a + us, 0);
  const busy = total - idle;

  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const label = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url
      ? `${url.replace(/^file:\/\/.*?\/(node_modules|lib|app|scripts|bench)\//, "$1/")}:${lineNumber + 1}`
      : "";
    return `${functionName || "(anonymous)"} ${where}`.trim();
  };
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    const key = label(id);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const area = areaOf(url, functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(
    `${file}: ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (percentages of busy time)\n`,
  );
  console.log("By area (self time):");
  for (const [area, us] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${area}`);
  console.log("\nBy function (self time):");
  const ranked = [...byFunction].sort((a, b) => b[1] - a[1]);
  for (const [name, us] of ranked.slice(0, top)) console.log(`  ${pct(us)}  ${name}`);

  // Inclusive time: each sample counts once for every distinct function on its stack. Async
  // functions only show the synchronous stretch of each continuation, so read these as lower bounds.
  const inclusive = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parentOf.get(id)) {
      const { url, functionName } = byId.get(id)!.callFrame;
      if (!url || url.startsWith("node:") || functionName === "") continue;
      seen.add(label(id));
    }
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  console.log("\nBy function, inclusive (named functions in project code and packages):");
  for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${pct(us)}  ${name}`);

  // Who calls the heaviest functions: the nearest project or package frame above each sample,
  // which is what tells "writev from the HTTP response" from "writev from the pg client".
  console.log("\nCallers of the 5 heaviest functions (nearest frames in project code or a package):");
  for (const [name] of ranked.slice(0, 5)) {
    const callers = new Map<string, number>();
    for (const [id, us] of selfUs) {
      if (label(id) !== name) continue;
      const chain: string[] = [];
      for (let parent = parentOf.get(id); parent !== undefined && chain.length < 3; parent = parentOf.get(parent)) {
        const { url } = byId.get(parent)!.callFrame;
        if (url && !url.startsWith("node:")) chain.push(label(parent));
      }
      const key = chain.join(" <- ") || "(node internals only)";
      callers.set(key, (callers.get(key) ?? 0) + us);
    }
    console.log(`  ${name}:`);
    for (const [chain, us] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, 4))
      console.log(`    ${pct(us)}  ${chain}`);
  }
}

main();
