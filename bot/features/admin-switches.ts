// /maintenance and /ordersoff: the service-wide order switches, shared with the dashboard through
// lib/settings (which writes the audit entry). Without an argument they show the current state.
import { Composer } from "telegraf";
import { setSwitch } from "@/lib/settings/set-switch";
import { readSwitchStates } from "@/lib/settings/read-switch-states";
import { usageOf } from "../commands";
import { senderOf, type BotContext } from "../context";
import { escapeHtml, formatTime, parseArgs, replyHtml } from "../format";

export const adminSwitches = new Composer<BotContext>();

const SWITCHES = [
  {
    command: "maintenance",
    name: "MAINTENANCE",
    on: "🛠 Maintenance is ON: new orders answer 503 MAINTENANCE.",
    off: "Maintenance is off: orders are accepted.",
  },
  {
    command: "ordersoff",
    name: "API_ORDER_DISABLED",
    on: "⏸ Orders are OFF for everyone: new orders answer 503 API_ORDER_DISABLED (reads still work).",
    off: "Orders are on again (API_ORDER_DISABLED is off).",
  },
] as const;

for (const entry of SWITCHES) {
  adminSwitches.command(entry.command, async (ctx) => {
    const sender = senderOf(ctx);
    const { words } = parseArgs(ctx.payload);
    const choice = words.length === 1 ? words[0]?.toLowerCase() : undefined;
    if (choice !== "on" && choice !== "off") {
      const state = (await readSwitchStates())[entry.name];
      const since = state.updatedBy ? ` (set by ${escapeHtml(state.updatedBy)}, ${formatTime(state.updatedAt)})` : "";
      await replyHtml(
        ctx,
        `${state.value ? entry.on : entry.off}${since}\nUsage: ${escapeHtml(usageOf(entry.command))}`,
      );
      return;
    }
    const change = await setSwitch(entry.name, choice === "on", sender.actor);
    const unchanged =
      change.previous === change.value || (change.previous === null && !change.value) ? " (it already was)" : "";
    await replyHtml(ctx, `${change.value ? entry.on : entry.off}${unchanged}`);
  });
}
