/**
 * The web console in Chinese, in Debian's headless Chromium started with `--lang=zh-CN` (so it sends
 * `Accept-Language: zh-CN`): every page, its title, tooltips, dialogs, toasts, chart legends and empty
 * states, the error and login pages are Chinese (no English word, single words included, outside data
 * marked `translate="no"`, the home's own data and an allow-list of names); the language switch is remembered across reloads and
 * new pages. Screenshots of every page at desktop and 390 px phone width go to
 * `$SKILLGATE_SCREENSHOTS` (default test-artifacts/console/zh-CN).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { englishLeft as englishLeftInCatalog } from "../i18n/complete-support.js";
import {
  ARTIFACTS,
  BROWSER_AVAILABLE,
  cli,
  closeBrowserTest,
  eachPageAtBothSizes,
  IN_CI,
  launchBrowser,
  makeConsoleHome,
  startTestConsole,
} from "./helpers.js";

const SHOTS = process.env.SKILLGATE_SCREENSHOTS ?? path.join(ARTIFACTS, "zh-CN");

/**
 * Words that stay as they are on a Chinese page: a protocol, a file name, the platforms' names (in
 * full, and run together where their icons' labels meet), the search box's example query, the name of
 * a SKILL.md's metadata block.
 */
const CONSOLE_ALLOWED = [
  /\bHTTP\b/g,
  /\bSKILL\.md\b/g,
  /(?:Telegram|Feishu|Discord)+/gi,
  /\bnginx\b/g,
  /\bfrontmatter\b/g,
];

/** The home's data shown on the pages: skill names, their category, a snapshot's reason, a missing name. */
const DATA_NAMES = ["tool-0", "tool-1", "tool-2", "tools", "before", "nope"];

/**
 * The first English word (single words count) left on a Chinese page once names, data and the console's
 * own allow-list are removed: the completeness sweep's check, applied to what the browser shows.
 */
function englishLeft(text: string): string | null {
  let rest = text;
  for (const pattern of CONSOLE_ALLOWED) rest = rest.replace(pattern, " ");
  return englishLeftInCatalog(rest, DATA_NAMES);
}

/** The page's readable text (title, text, tooltips, placeholders, labels), data marked `translate="no"` left out. */
async function readableText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    for (const element of body.querySelectorAll('[translate="no"], [lang="en"], script, style'))
      element.remove();
    const attributes = [...body.querySelectorAll("[title], [placeholder], [aria-label]")].flatMap((element) =>
      ["title", "placeholder", "aria-label"].map((name) => element.getAttribute(name) ?? ""),
    );
    return [document.title, body.textContent ?? "", ...attributes].join("\n");
  });
}

describe.skipIf(!BROWSER_AVAILABLE && !IN_CI)("web console in Chinese", () => {
  let home: string;
  let server: ConsoleServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let report = "";

  beforeAll(async () => {
    if (!BROWSER_AVAILABLE) throw new Error("CI must have /usr/bin/chromium; .ci/run installs it.");
    await fs.mkdir(SHOTS, { recursive: true });
    home = await makeConsoleHome(0);
    expect((await cli(home, "curator", "backup", "--reason", "before")).code).toBe(0);
    expect((await cli(home, "curator", "pin", "tool-0")).code).toBe(0);
    expect((await cli(home, "curator", "archive", "tool-1", "-y")).code).toBe(0);
    expect((await cli(home, "curator", "run")).code).toBe(0);
    report = (await fs.readdir(path.join(home, "logs", "curator")))[0] ?? "";
    server = await startTestConsole(home);
    browser = await launchBrowser({ locale: "zh-CN" });
    page = browser.page;
    await page.goto(server.loginUrl("admin"));
  }, 120_000);

  afterAll(() => closeBrowserTest({ browser, server, home }));

  it("sends Accept-Language: zh-CN and gets every page in Chinese, at desktop and phone width", async () => {
    expect(await page.evaluate(() => navigator.language)).toBe("zh-CN");
    expect(report).not.toBe("");
    const pages: [string, string][] = [
      ["library", "/library"],
      ["skill", "/skill/tool-0"],
      ["skill-archived", "/skill/tool-1"],
      ["curator", "/curator"],
      ["report", `/curator/report/${report}`],
      ["ledger", "/ledger"],
      ["snapshots", "/snapshots"],
      ["charts", "/charts"],
      ["not-found", "/nowhere"],
      ["no-skill", "/skill/nope"],
    ];
    await eachPageAtBothSizes(page, server, pages, 1280, async ({ size, label, width: viewportWidth }) => {
      expect(await page.getAttribute("html", "lang"), label).toBe("zh-CN");
      const text = await readableText(page);
      expect(englishLeft(text), `${label}: ${text}`).toBeNull();
      expect(text, label).toMatch(/[\u4e00-\u9fff]{2,}/);
      const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(width[0], `${label} at ${viewportWidth} px`).toBeLessThanOrEqual(width[1] as number);
      await page.screenshot({ path: path.join(SHOTS, `zh-CN-${size}-${label}.png`), fullPage: true });
    });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows the data as it is and the page's words in Chinese", async () => {
    await page.goto(`${server.url}/library`);
    expect(await page.textContent("h1")).toBe("技能库");
    expect(await page.textContent('header a[href="/curator"]')).toBe("管理器");
    expect(await page.textContent('tr[data-skill="tool-0"] .badge.pin')).toBe("已固定");
    expect(await page.textContent('tr[data-skill="tool-1"] .state')).toBe("已归档");
    expect(await page.textContent('tr[data-skill="tool-0"] a')).toBe("tool-0");
    await page.goto(`${server.url}/ledger`);
    expect(await page.locator("table.ledger tbody td", { hasText: "归档" }).count()).toBeGreaterThan(0);
  });

  it("draws chart legends, axes and empty states in Chinese", async () => {
    await page.goto(`${server.url}/charts`);
    await page.waitForSelector("body[data-charts-ready]");
    const series = JSON.parse((await page.getAttribute("#chart-runs", "data-series")) ?? "[]") as {
      label: string;
    }[];
    expect(series.map((item) => item.label)).toEqual(["标记为过时", "已归档", "重新激活", "运行后受管技能"]);
    expect(await page.textContent("#chart-most-empty")).toContain("还没有技能被使用");
  });

  it("asks and answers in Chinese: the confirm dialog, its buttons and the toast", async () => {
    await page.goto(`${server.url}/skill/tool-2`);
    await page.click('button[data-command="curator pin"]');
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-question")).toMatch(/继续吗？$/);
    expect(await page.textContent("#confirm-cancel")).toBe("取消");
    expect(await page.textContent("#confirm-ok")).toBe("确认");
    await page.click("#confirm-cancel");
    await page.waitForFunction(() => document.getElementById("toast")?.textContent !== "");
    expect(await page.textContent("#toast")).toBe("已取消；未做任何更改。");
    await page.click('button[data-session="end-all"]');
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-question")).toBe(
      "结束所有控制台会话（包括当前会话）吗？每个浏览器都需要重新登录。",
    );
    await page.click("#confirm-cancel");
    await page.waitForSelector("#confirm-dialog:not([open])", { state: "attached" });
    // Cancelled: the session is still there.
    await page.reload();
    expect(await page.textContent("h1")).toBe("tool-2");
  });

  it("remembers the switch to English and back across reloads and new pages", async () => {
    await page.goto(`${server.url}/library`);
    await Promise.all([page.waitForEvent("load"), page.click('header a[data-lang="en"]')]);
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await page.textContent("h1")).toBe("Library");
    // The same check finds the English page English (it is not blind).
    expect(englishLeft(await readableText(page))).not.toBeNull();
    const cookie = (await browser.context.cookies()).find((item) => item.name === "skillgate_lang");
    expect(cookie).toMatchObject({ value: "en", path: "/", sameSite: "Strict" });
    await page.reload();
    expect(await page.textContent("h1")).toBe("Library");
    const other = await browser.context.newPage();
    await other.goto(`${server.url}/ledger`);
    expect(await other.getAttribute("html", "lang")).toBe("en");
    expect(await other.textContent("h1")).toBe("Ledger");
    expect(await other.getAttribute('header a[data-lang="en"]', "aria-current")).toBe("true");

    await Promise.all([other.waitForEvent("load"), other.click('header a[data-lang="zh-CN"]')]);
    expect(await other.textContent("h1")).toBe("审计日志");
    await other.close();
    await page.reload();
    expect(await page.getAttribute("html", "lang")).toBe("zh-CN");
    expect(await page.textContent("h1")).toBe("技能库");
  });

  it("writes the login and logged-out pages in Chinese, their switch working without a session", async () => {
    await page.goto(`${server.url}/login?token=spent`);
    expect(await page.textContent("h1")).toBe("登录链接无效");
    expect(englishLeft(await readableText(page))).toBeNull();
    await page.screenshot({ path: path.join(SHOTS, "zh-CN-desktop-login-invalid.png"), fullPage: true });
    await page.goto(`${server.url}/library`);
    await Promise.all([page.waitForURL(/\/logged-out$/), page.click('button[data-session="logout"]')]);
    expect(await page.textContent("h1")).toBe("已退出登录");
    expect(englishLeft(await readableText(page))).toBeNull();
    await page.screenshot({ path: path.join(SHOTS, "zh-CN-desktop-logged-out.png"), fullPage: true });
    await page.goto(`${server.url}/library`);
    expect(await page.textContent("h1")).toBe("请先登录");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, "zh-CN-phone-log-in-first.png"), fullPage: true });
    await Promise.all([page.waitForEvent("load"), page.click('header a[data-lang="en"]')]);
    expect(await page.textContent("h1")).toBe("Log in first");
  });
});
