/**
 * Many navigations in one Chromium tab: a page left for the back/forward cache closes its `/events`
 * stream (a browser allows only six connections per host, and cached pages would hold them all), and a
 * page shown again from the cache opens it again. Every one of the navigations loads; going back shows a
 * live page.
 */
import { promises as fs } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { BROWSER_AVAILABLE, IN_CI, launchBrowser, makeConsoleHome, startTestConsole } from "./helpers.js";

describe.skipIf(!BROWSER_AVAILABLE && !IN_CI)("web console navigation in one tab", () => {
  let home: string;
  let server: ConsoleServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  beforeAll(async () => {
    if (!BROWSER_AVAILABLE) throw new Error("CI must have /usr/bin/chromium; .ci/run installs it.");
    home = await makeConsoleHome(0);
    server = await startTestConsole(home);
    // The back/forward cache on, as in people's browsers (playwright turns it off by default).
    browser = await launchBrowser({ backForwardCache: true });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(server.loginUrl("admin"));
    await page.waitForSelector("#live.on");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (home) await fs.rm(home, { recursive: true, force: true });
  });

  it("loads every one of 9 navigations, and a page shown again from the cache is live again", async () => {
    const route = ["/curator", "/ledger", "/snapshots", "/charts", "/library"];
    for (let step = 0; step < 9; step++) {
      const href = route[step % route.length] as string;
      await page.click(`header nav a[href="${href}"]`, { timeout: 8_000 });
      await page.waitForURL((url) => url.pathname === href, { timeout: 8_000 });
      await page.waitForSelector("#live.on", { timeout: 8_000 });
    }
    // Back and forward restore pages from the cache. Playwright does not follow such a restore (no load
    // event), so the restored page is read through the DevTools protocol directly.
    const cdp = await browser.context.newCDPSession(page);
    const read = async (expression: string) =>
      (
        (await cdp.send("Runtime.evaluate", { expression, returnByValue: true })) as {
          result: { value: unknown };
        }
      ).result.value;
    const until = async (expression: string) => {
      for (let tries = 0; tries < 160; tries++) {
        if ((await read(expression)) === true) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(
        `never true: ${expression} (${JSON.stringify(await read('[location.pathname, window.cachedMark, document.getElementById("live")?.className]'))})`,
      );
    };
    await page.click('header nav a[href="/library"]', { timeout: 8_000 });
    await page.waitForURL((url) => url.pathname === "/library", { timeout: 8_000 });
    await read("window.cachedMark = true");
    await page.click('header nav a[href="/curator"]', { timeout: 8_000 });
    await page.waitForURL((url) => url.pathname === "/curator", { timeout: 8_000 });
    await read("history.back()");
    // The very page from before (its mark is there: restored from the cache), with its stream open again.
    await until(
      `location.pathname === "/library" && window.cachedMark === true && document.getElementById("live").classList.contains("on")`,
    );
    for (const [move, where] of [
      ["back()", "/charts"],
      ["back()", "/snapshots"],
      ["forward()", "/charts"],
      ["forward()", "/library"],
      ["forward()", "/curator"],
    ]) {
      await read(`history.${move}`);
      await until(
        `location.pathname === "${where}" && document.getElementById("live").classList.contains("on")`,
      );
    }
    await read("location.assign('/ledger')");
    await page.waitForURL((url) => url.pathname === "/ledger", { timeout: 8_000 });
    // And a fresh navigation still loads after all that.
    await page.click('header nav a[href="/curator"]', { timeout: 8_000 });
    await page.waitForURL((url) => url.pathname === "/curator", { timeout: 8_000 });
    expect(await page.textContent("h1")).toBe("Curator");
  }, 120_000);

  it("logs out from the header: the session is gone for every page", async () => {
    await page.click('button.session[data-session="logout"]');
    await page.waitForURL((url) => url.pathname === "/logged-out");
    const response = await page.goto(`${server.url}/library`);
    expect(response?.status()).toBe(401);
  });
});
