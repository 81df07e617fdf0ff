// Playwright (the `playwright` package) in the machine's Chromium for the dashboard's end-to-end
// tests. No browser is downloaded (`npx playwright install` cannot reach its CDN here, and the
// package has no install script): the tests drive Debian's Chromium (apt-get install chromium), or
// the executable named by CHROMIUM_PATH, through executablePath.
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright";
import { projectRoot } from "@/lib/config/env";
import { suiteBaseUrl } from "./suite";
import { freshTotpCode, knownTotpSecret } from "./two-factor";

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

interface PageProblems {
  /** What the pages' Content-Security-Policy blocked (or would have), from either report. */
  cspViolations: string[];
  /** Every console error of every page. */
  consoleErrors: string[];
}

const problems = new WeakMap<BrowserContext, PageProblems>();

/**
 * A browser context on the shared server that records, for every page it opens, each
 * Content-Security-Policy violation (the document's `securitypolicyviolation` event and Chromium's
 * "Refused to ..." console error) and each console error: pageProblems(context) reads them.
 */
/** The narrowest window the dashboard is made for: every page fits it without scrolling sideways. */
export const DASHBOARD_WIDTH = 1280;

export async function newDashboardContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: suiteBaseUrl(),
    viewport: { width: DASHBOARD_WIDTH, height: 900 },
  });
  context.setDefaultTimeout(15_000);
  const seen: PageProblems = { cspViolations: [], consoleErrors: [] };
  problems.set(context, seen);
  await context.exposeBinding("reportCspViolation", ({ page }, violation: string) =>
    seen.cspViolations.push(`${page.url()}: ${violation}`),
  );
  // Playwright runs init scripts outside the page's CSP, before any script of the page.
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { reportCspViolation(violation: string): void }).reportCspViolation;
      report(
        `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`,
      );
    });
  });
  context.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = `${message.page()?.url() ?? "?"}: ${message.text()}`;
    seen.consoleErrors.push(text);
    if (/Content Security Policy/i.test(message.text())) seen.cspViolations.push(text);
  });
  return context;
}

/** What newDashboardContext recorded for this context so far. */
export function pageProblems(context: BrowserContext): PageProblems {
  const seen = problems.get(context);
  if (!seen) throw new Error("not a context of newDashboardContext");
  return seen;
}

/**
 * Signs in through the real sign-in page and waits for the overview. It types a fresh code from the
 * admin's TOTP secret (`totpSecret`, or the one enableTwoFactor gave them, tests/helpers/two-factor.ts);
 * an admin without two-factor lands on the enrolment instead (`landing`).
 */
export async function signIn(
  page: Page,
  email: string,
  password: string,
  options: { totpSecret?: string; landing?: string } = {},
): Promise<void> {
  const secret = options.totpSecret ?? knownTotpSecret(email);
  await page.goto("/admin/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  if (secret) await page.getByLabel("Two-factor code").fill(await freshTotpCode(email, secret));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === (options.landing ?? "/admin"));
}

/**
 * What makes the page itself scroll sideways in its window: the elements that reach past its right
 * edge out of a parent that does not, outside any scrolling box (a table scrolling inside its card
 * is fine). Empty when the page fits.
 */
export async function pageOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const scrolls = (element: Element) => /auto|scroll|hidden|clip/.test(getComputedStyle(element).overflowX);
    const sticksOut = (element: Element) => element.getBoundingClientRect().right > width + 1;
    const offenders: string[] = [];
    for (const element of document.querySelectorAll("body *")) {
      if (!sticksOut(element)) continue;
      // Where the overflow begins: an element that sticks out of a parent that does not.
      const parent = element.parentElement;
      if (parent && sticksOut(parent)) continue;
      let inside = element.parentElement;
      while (inside && !scrolls(inside)) inside = inside.parentElement;
      if (inside && inside !== document.documentElement && inside !== document.body) continue;
      const name = `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).split(" ").join(".")}` : ""}`;
      offenders.push(`${name} reaches ${Math.round(element.getBoundingClientRect().right)} px of ${width}`);
    }
    return offenders.length > 0
      ? offenders.slice(0, 10)
      : [`the page is ${document.documentElement.scrollWidth} px wide`];
  });
}

export const SCREENSHOT_DIR = path.join(projectRoot, "test-results", "screenshots");

/** Saves a full-page screenshot as a test artifact (test-results/screenshots/<name>.png). */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
