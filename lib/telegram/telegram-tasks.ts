// The worker's bot-message tasks in graphile-worker (lib/fulfilment/sql/run-job-generations.ts registers
// them): a message is added as a job in the transaction that decided it, and sent off that path.
import type { TaskList } from "graphile-worker";
import { notifyOwners } from "./notify-owners";
import { tellChat } from "./tell-chat";

export const NOTIFY_OWNERS_TASK = "notify_owners";
export const TELL_CHAT_TASK = "tell_chat";

export const telegramTasks: TaskList = {
  [NOTIFY_OWNERS_TASK]: async (payload) => {
    await notifyOwners((payload as { text: string }).text);
  },
  [TELL_CHAT_TASK]: async (payload) => {
    const { chatId, text } = payload as { chatId: string; text: string };
    await tellChat(chatId, text);
  },
};
