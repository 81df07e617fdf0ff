// The service's logs: pino's JSON lines, one object per line with `level`, `time`, `process` (web,
// worker, bot, start, dev) and the fields of the call; at LOG_LEVEL (info) and up, on stdout, and
// errors on stderr (where a refusal to start has always gone). Pretty one-line text instead in
// development at a terminal, or wherever LOG_FORMAT=pretty.
// Nothing logged carries an API key or a secret: a request's line names the key by its display
// prefix only (observe-request.ts), and the suite scans every line its processes wrote for keys.
//
// One pair of root loggers per process (stdout, stderr), on globalThis: Next's bundle has its own
// copy of this module and logs through the same ones, under the process's name.
import os from "node:os";
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { logSettings } from "../config/env";

const SHARED = Symbol.for("topup-api.logger");

interface Shared {
  processName: string;
  /** The loggers of stdout (every level) and stderr (errors), made on first use. */
  roots?: { out: Logger; err: Logger };
  destination?: pino.DestinationStream;
}

function shared(): Shared {
  const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };
  holder[SHARED] ??= { processName: "service" };
  return holder[SHARED];
}

function createRoots(state: Shared): { out: Logger; err: Logger } {
  const settings = logSettings();
  const prettyOutput = settings.format ? settings.format === "pretty" : settings.development && process.stdout.isTTY;
  const options: pino.LoggerOptions = {
    level: settings.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    base: { pid: process.pid, hostname: os.hostname(), process: state.processName },
  };
  if (state.destination) {
    const one = pino(options, state.destination);
    return { out: one, err: one };
  }
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
      : // stdout asynchronously: lines logged while a write is under way go out together in the
        // next one (one write per batch, not one per request under load), and pino flushes what is
        // left when the process exits. Errors are written at once.
        pino.destination({ dest: fd, sync: fd === 2 });
  return { out: pino(options, stream(1)), err: pino(options, stream(2)) };
}

function roots(): { out: Logger; err: Logger } {
  const state = shared();
  state.roots ??= createRoots(state);
  return state.roots;
}

/** Names this process in every line it logs: called first thing by each entry script. */
export function nameProcess(name: string): void {
  const state = shared();
  if (state.processName === name) return;
  state.processName = name;
  state.roots = undefined;
}

/** Sends this process's lines to `destination` instead of stdout (the test suite keeps them in files). */
export function sendLogsTo(destination: pino.DestinationStream): void {
  const state = shared();
  state.destination = destination;
  state.roots = undefined;
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
  let parents: { out: Logger; err: Logger } | undefined;
  let children: { out: Logger; err: Logger } | undefined;
  const target = (): { out: Logger; err: Logger } => {
    const current = roots();
    if (current !== parents) {
      parents = current;
      children = component ? { out: current.out.child({ component }), err: current.err.child({ component }) } : current;
    }
    return children!;
  };
  return {
    debug: (message, fields) => target().out.debug(fields ?? {}, message),
    info: (message, fields) => target().out.info(fields ?? {}, message),
    warn: (message, fields) => target().out.warn(fields ?? {}, message),
    error: (message, fields) => target().err.error(fields ?? {}, message),
    isLevelEnabled: (level) => target().out.isLevelEnabled(level),
  };
}

/** An error's message for a log line, when its stack would only repeat a known cause. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
