// The lines of the `npm start` and `npm run dev` banners that say how to do, without a Telegram bot
// token, what only the bot does: take a key, fund a wallet, register a webhook (README: The bot
// without Telegram).
export function botConsoleHint(): string[] {
  return [
    "  No bot token? The bot runs in a terminal (development only):",
    "    npm run bot:console -- --as 1001 --username you     then /start, /api on, /newkey (an API key),",
    "                                                         /newkey test, /testcredit 50 (a test key, play money),",
    "                                                         /webhook add <https-url> [test] (a webhook)",
    "    npm run bot:console -- --as 1002 --admin            then /credit @you 50, Confirm (funds your live wallet)",
  ];
}
