// The service's logs: pino's JSON lines, one object per line with `level`, `time`, `process` (web,
// worker, bot, start, dev) and the fields of the call; at LOG_LEVEL (info) and up, on stdout, and
// errors on stderr (where a refusal to start has always gone). Pretty one-line text instead in
// development at a terminal, or wherever LOG_FORMAT=pretty.
// Nothing logged carries an API key or a secret: a request's line names the key by its display
// prefix only (observe-request.ts), and the suite scans every line its processes wrote for keys.
//
// One root logger per process, on globalThis: Next's bundle has its own copy of this module and
// logs through the same root, under the process's name.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { logSettings } from "../config/env";

const SHARED = Symbol.for("topup-api.logger");

interface Shared {
  processName: string;
  root?: Logger;
  destination?: pino.DestinationStream;
}

function shared(): Shared {
  const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };
  holder[SHARED] ??= { processName: "service" };
  return holder[SHARED];
}

function createRoot(destination: pino.DestinationStream | undefined): Logger {
  const settings = logSettings();
  const prettyOutput = settings.format ? settings.format === "pretty" : settings.development && process.stdout.isTTY;
  const options: pino.LoggerOptions = {
    level: settings.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Read per line, so a process named after its modules were loaded still logs its name.
    mixin: () => ({ process: shared().processName }),
  };
  if (destination) return pino(options, destination);
  const stream = (fd: 1 | 2): pino.DestinationStream =>
    prettyOutput
      ? pretty({
          destination: fd,
          sync: true,
          colorize: Boolean(fd === 1 ? process.stdout.isTTY : process.stderr.isTTY),
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,process,component",
          messageFormat: "[{process}{if component}/{component}{end}] {msg}",
          singleLine: true,
        })
      : pino.destination({ dest: fd, sync: true });
  // dedupe: a line goes to the one stream of the highest level it reaches.
  return pino(
    options,
    pino.multistream(
      [
        { level: "trace", stream: stream(1) },
        { level: "error", stream: stream(2) },
      ],
      { dedupe: true },
    ),
  );
}

function root(): Logger {
  const state = shared();
  state.root ??= createRoot(state.destination);
  return state.root;
}

/** Names this process in every line it logs: called first thing by each entry script. */
export function nameProcess(name: string): void {
  shared().processName = name;
}

/** Sends this process's lines to `destination` instead of stdout (the test suite keeps them in files). */
export function sendLogsTo(destination: pino.DestinationStream): void {
  const state = shared();
  state.destination = destination;
  state.root = undefined;
}

type Fields = Record<string, unknown>;

/** A part of the service's logger: `log.warn("message", { field })`; an Error goes under `err`. */
export interface Log {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
  /** Whether a line at `level` would be written. */
  isLevelEnabled(level: "debug" | "info"): boolean;
}

/** The logger of one part of the service (`component` in each line): cheap to make at module level. */
export function logger(component?: string): Log {
  let parent: Logger | undefined;
  let child: Logger | undefined;
  const target = (): Logger => {
    const current = root();
    if (current !== parent) {
      parent = current;
      child = component ? current.child({ component }) : current;
    }
    return child!;
  };
  return {
    debug: (message, fields) => target().debug(fields ?? {}, message),
    info: (message, fields) => target().info(fields ?? {}, message),
    warn: (message, fields) => target().warn(fields ?? {}, message),
    error: (message, fields) => target().error(fields ?? {}, message),
    isLevelEnabled: (level) => target().isLevelEnabled(level),
  };
}

/** An error's message for a log line, when its stack would only repeat a known cause. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
