// The Telegram bot process: long polling against Telegram (or TELEGRAM_API_ROOT). `npm run bot`,
// and `npm start` when TELEGRAM_BOT_TOKEN is set. SIGINT / SIGTERM stop it cleanly. In webhook mode
// (TELEGRAM_WEBHOOK_SECRET set) the web server takes the updates and this process refuses to poll.
import { assertProductionSecrets, env } from "@/lib/config/env";
import { closePool } from "@/lib/db/pool";
import { createBot } from "@/bot";
import { HOLDER_COMMANDS } from "@/bot/commands";
import { pruneProcessedUpdates } from "@/bot/middleware/dedupe-updates";
import { TELEGRAM_WEBHOOK_PATH } from "@/bot/webhook-path";
import { logger, messageOf, nameProcess } from "@/lib/observability/logger";
import { serveMetrics } from "@/lib/observability/serve-metrics";

nameProcess("bot");
const log = logger();
assertProductionSecrets();
const config = env();
if (!config.telegramBotToken) {
  log.error("TELEGRAM_BOT_TOKEN is not set: nothing to run.");
  process.exit(1);
}

if (config.telegramWebhookSecret) {
  // Polling starts with deleteWebhook: it would silently switch a webhook deployment off.
  log.error(
    `TELEGRAM_WEBHOOK_SECRET is set: updates arrive by webhook at ${TELEGRAM_WEBHOOK_PATH} on the web server ` +
      "(register it with `npm run bot:webhook -- <public-url>`), so this process does not poll. To poll instead, " +
      "run `npm run bot:webhook -- --delete` and unset TELEGRAM_WEBHOOK_SECRET.",
  );
  process.exit(1);
}

// BOT_METRICS_PORT: this process's metrics (Node's own: the bot's work is counted where it lands).
const metrics =
  config.metrics.ports.bot === undefined
    ? undefined
    : await serveMetrics(config.metrics.host, config.metrics.ports.bot);

const bot = createBot(config.telegramBotToken, {
  apiRoot: config.telegramApiRoot,
  adminTelegramIds: config.adminTelegramIds,
});

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  log.info(`${signal}: stopping`);
  try {
    // Ends the long poll; launch() below then resolves and the process winds down.
    bot.stop(signal);
  } catch {
    // Polling has not started yet (still connecting): nothing to wind down but the pool.
    void closePool().finally(() => process.exit(0));
  }
};
process.once("SIGINT", () => stop("SIGINT"));
process.once("SIGTERM", () => stop("SIGTERM"));
process.once("disconnect", () => stop("SIGTERM")); // npm start, our parent, is gone

const prune = () =>
  pruneProcessedUpdates().catch((error) => log.warn(`pruning processed updates failed: ${messageOf(error)}`));
const pruneTimer = setInterval(prune, 60 * 60 * 1000);
pruneTimer.unref();
void prune();

try {
  // launch() resolves when polling stops (bot.stop); onLaunch runs once getMe has answered.
  await bot.launch(() => {
    log.info(
      `@${bot.botInfo?.username} is polling for updates${config.telegramApiRoot ? ` from ${config.telegramApiRoot}` : ""}`,
    );
    bot.telegram
      .setMyCommands(HOLDER_COMMANDS.map(({ command, description }) => ({ command, description })))
      .catch((error) => log.warn(`setMyCommands failed: ${messageOf(error)}`));
  });
} catch (error) {
  log.error(`stopped on an error: ${messageOf(error)}`);
  process.exitCode = 1;
} finally {
  clearInterval(pruneTimer);
  await metrics?.close();
  await closePool().catch(() => undefined);
}
// Keep-alive sockets to the Bot API must not hold a stopped bot open.
process.exit(process.exitCode ?? 0);
