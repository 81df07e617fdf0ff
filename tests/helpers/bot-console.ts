// `npm run bot:console` as a developer runs it: a real process typed into through stdin, its
// replies read from stdout.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { expect } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { keepOutput } from "./process-logs";

export class BotConsole {
  output = "";
  errors = "";
  readonly child: ChildProcessWithoutNullStreams;

  /** `env` is the console's whole environment (its database, its data directory). */
  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn("npm", ["run", "-s", "bot:console", "--", ...args], {
      cwd: projectRoot,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    keepOutput("bot-console", this.child, ["stderr"]);
    this.child.stdout.on("data", (chunk) => (this.output += chunk));
    this.child.stderr.on("data", (chunk) => (this.errors += chunk));
  }

  /** Types `line` and returns what the console printed until `until` appeared (the bot handles lines in order). */
  async type(line: string, until: string | RegExp): Promise<string> {
    const mark = this.output.length;
    this.child.stdin.write(`${line}\n`);
    const printed = () => this.output.slice(mark);
    await expect
      .poll(() => (typeof until === "string" ? printed().includes(until) : until.test(printed())), {
        timeout: 60_000,
        interval: 100,
        message: `after "${line}" the console printed:\n${printed()}\n--- stderr\n${this.errors}`,
      })
      .toBe(true);
    return printed();
  }

  /** Ctrl-D: the console leaves by itself. */
  async leave(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    return exited;
  }

  exited(): Promise<number | null> {
    if (this.child.exitCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.once("exit", resolve));
  }
}
