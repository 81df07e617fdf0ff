// The set-up nearly every integration file shares, registered once: the suite's database emptied
// before the file's tests (with the demo catalog unless told otherwise), optionally the books
// checked after every test, and the file's connections closed after everything else.
//
// Call it before the file's own hooks. beforeAll hooks run in the order they were registered, so the
// file's own set-up (a worker, a receiver) finds the clean database; after-hooks run as a stack
// (vitest's default `sequence.hooks`), so the file's own tear-down runs before the pools close.
import { afterAll, afterEach, beforeAll } from "vitest";
import { seedDemoCatalog } from "@/lib/seed/seed-demo-data";
import { closeSql, resetDatabase } from "./db";
import { expectBooksBalance } from "./orders";

export function useCleanDatabase(options: { catalog?: boolean; checkBooks?: boolean } = {}): void {
  const { catalog = true, checkBooks = false } = options;
  beforeAll(async () => {
    await resetDatabase();
    if (catalog) await seedDemoCatalog();
  });
  if (checkBooks) afterEach(expectBooksBalance);
  afterAll(closeSql);
}
