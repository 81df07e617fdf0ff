// Playwright (the `playwright` package) in the machine's Chromium for the dashboard's end-to-end
// tests. No browser is downloaded (`npx playwright install` cannot reach its CDN here, and the
// package has no install script): the tests drive Debian's Chromium (apt-get install chromium), or
// the executable named by CHROMIUM_PATH, through executablePath.
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright";
import { projectRoot } from "@/lib/config/env";
import { baseUrl } from "./api";

const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

/** The first Chromium found, or undefined (the caller says why its tests are skipped). */
export function findChromium(): string | undefined {
  return CANDIDATES.find((candidate): candidate is string => !!candidate && fs.existsSync(candidate));
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error("no Chromium found: apt-get install chromium, or set CHROMIUM_PATH");
  return chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export async function newDashboardContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: baseUrl(), viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(15_000);
  return context;
}

/** Signs in through the real sign-in page and waits for the overview. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/admin/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/admin");
}

export const SCREENSHOT_DIR = path.join(projectRoot, "test-results", "screenshots");

/** Saves a full-page screenshot as a test artifact (test-results/screenshots/<name>.png). */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
