/**
 * The web console end to end in Debian's headless Chromium (one browser for the file): a 1,000-skill
 * library filtered, a skill opened, pinned, archived and restored through the UI, the curator preview
 * compared with `curator run --dry-run --json`, a ledger entry rolled back, hostile skill content shown
 * inert, and a read-only login without buttons whose forged POST is refused. Screenshots of every page
 * go to test-artifacts/console/.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { openLibrary } from "../../src/skills/library.js";
import {
  ARTIFACTS,
  BROWSER_AVAILABLE,
  cli,
  closeBrowserTest,
  eachPageAtBothSizes,
  HOSTILE_SKILL,
  IN_CI,
  launchBrowser,
  makeConsoleHome,
  startTestConsole,
} from "./helpers.js";

if (!BROWSER_AVAILABLE && !IN_CI) {
  console.warn(
    "SKIPPED: the web console browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium); they always run in CI.",
  );
}

describe.skipIf(!BROWSER_AVAILABLE && !IN_CI)("web console in a real browser", () => {
  let home: string;
  let server: ConsoleServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let page: Page;

  const usage = async () =>
    JSON.parse(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8")) as Record<
      string,
      { pinned: boolean; state: string }
    >;
  const library = () =>
    openLibrary(home, loadConfig(path.join(home, "config.yaml")), { watch: false, persistIndex: false });
  const shot = (name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
  /** Clicks an action button, checks the confirmation question, confirms, and waits for the answer. */
  const confirmAction = async (selector: string, question: RegExp) => {
    const answer = page.waitForResponse(
      (response) =>
        response.url().endsWith("/api/action") &&
        response.request().postData()?.includes('"confirmed":true') === true,
    );
    await page.click(selector);
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-question")).toMatch(question);
    await page.click("#confirm-ok");
    const response = await answer;
    const body = (await response.json()) as { ok: boolean; text: string };
    expect(body.ok, body.text).toBe(true);
    return body;
  };

  beforeAll(async () => {
    if (!BROWSER_AVAILABLE) throw new Error("CI must have /usr/bin/chromium; .ci/run installs it.");
    await fs.mkdir(ARTIFACTS, { recursive: true });
    home = await makeConsoleHome(1000);
    expect((await cli(home, "curator", "backup", "--reason", "before the browser tests")).code).toBe(0);
    server = await startTestConsole(home);
    browser = await launchBrowser();
    context = browser.context;
    page = browser.page;
    await page.goto(server.loginUrl("admin"));
  }, 120_000);

  afterAll(() => closeBrowserTest({ browser, server, home }));

  it("lists a 1,000-skill library in pages and filters it by search and state", async () => {
    expect(new URL(page.url()).pathname).toBe("/library");
    const total = Number(await page.getAttribute("#library-count", "data-total"));
    expect(total).toBeGreaterThanOrEqual(1000);
    expect(await page.locator("#library-table tbody tr").count()).toBe(100);
    await shot("library");

    // The library's own filter, not the relevance search box beside it.
    await page.fill('#library-filter input[name="q"]', "kafka");
    await page.waitForURL(/q=kafka/);
    const names = await page
      .locator("#library-table tbody tr")
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.skill ?? ""));
    const filtered = Number(await page.getAttribute("#library-count", "data-total"));
    expect(filtered).toBeGreaterThan(0);
    expect(filtered).toBeLessThan(total);
    const all = await library().all();
    // Live skills by name or description, plus usage records of skills no longer on disk by name.
    const live = new Set(all.map((skill) => skill.name));
    const expected = [
      ...all.filter((skill) => `${skill.name}\n${skill.description}`.toLowerCase().includes("kafka")),
      ...Object.keys(await usage()).filter((name) => !live.has(name) && name.includes("kafka")),
    ];
    expect(filtered).toBe(expected.length);
    expect(names.length).toBe(Math.min(100, expected.length));
    for (const name of names) {
      const skill = all.find((item) => item.name === name);
      expect(`${name} ${skill?.description ?? ""}`.toLowerCase()).toContain("kafka");
    }

    // A select submits its form once: a second, debounced submit would abort the first navigation.
    const navigations: string[] = [];
    const onRequest = (request: { isNavigationRequest(): boolean; url(): string }) => {
      if (request.isNavigationRequest()) navigations.push(request.url());
    };
    page.on("request", onRequest);
    // The page answers slowly, as on a busy host: longer than the typing debounce (300 ms).
    const slow = /state=stale/;
    await page.route(slow, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      await route.continue();
    });
    await page.selectOption('select[name="state"]', "stale");
    await page.waitForURL(/state=stale/);
    await page.unroute(slow);
    page.off("request", onRequest);
    expect(navigations).toHaveLength(1);
    const states = await page.locator("#library-table tbody tr td:nth-child(3) .state").allTextContents();
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(["stale"]));
    await shot("library-filtered");
  });

  it("opens a skill, pins it (the usage file changes), archives and restores it through the UI", async () => {
    await page.goto(`${server.url}/library?q=kafka&state=active`);
    const link = page.locator("#library-table tbody tr td:first-child a").first();
    const name = (await link.textContent()) ?? "";
    await link.click();
    await page.waitForSelector("#skill-name");
    expect(await page.textContent("#skill-name")).toBe(name);
    expect(await page.locator("#skill-body").count()).toBe(1);
    await shot("skill");

    expect((await usage())[name]?.pinned ?? false).toBe(false);
    await confirmAction(
      '#skill-actions button[data-command="curator pin"]',
      new RegExp(`curator pin ${name}`),
    );
    expect((await usage())[name]?.pinned).toBe(true);
    await page.waitForSelector("#skill-pinned");
    await confirmAction('#skill-actions button[data-command="curator unpin"]', /unpin/);
    expect((await usage())[name]?.pinned).toBe(false);

    const found = await library().find(name);
    const skillDir = found?.dir ?? "";
    expect(existsSync(skillDir)).toBe(true);
    await confirmAction('#skill-actions button[data-command="curator archive"]', /archive/);
    expect(existsSync(skillDir)).toBe(false);
    expect((await usage())[name]?.state).toBe("archived");
    await page.waitForSelector('#skill-actions button[data-command="curator restore"]');
    // Archived, it is shown as it is in .archive/: its state, the category it goes back to, its files.
    expect(await page.textContent("#skill-state")).toBe("archived");
    expect(await page.textContent("#skill-category")).toBe(found?.category ?? "");
    expect(await page.textContent("#skill-where")).toContain(`skills/.archive/${name}`);
    expect(await page.locator("#skill-archived").count()).toBe(1);
    expect(await page.locator("#archived-files li").allTextContents()).toContain("SKILL.md");
    expect(await page.locator("#skill-body").count()).toBe(1);
    expect(await page.textContent("main")).not.toContain("nothing to show");
    await shot("skill-archived");
    await page.goto(`${server.url}/library?q=${encodeURIComponent(name)}&state=archived`);
    const archivedRow = page.locator(`#library-table tbody tr[data-skill="${name}"]`);
    expect(await archivedRow.locator("td:nth-child(2)").textContent()).toBe(found?.category ?? "");
    await archivedRow.locator("td:first-child a").click();
    await page.waitForSelector('#skill-actions button[data-command="curator restore"]');
    await confirmAction('#skill-actions button[data-command="curator restore"]', /restore/);
    expect(existsSync(skillDir)).toBe(true);
    await page.waitForSelector('#skill-actions button[data-command="curator archive"]');

    const ledger = JSON.parse((await cli(home, "curator", "ledger", "--skill", name, "--json")).stdout) as {
      entries: { actor: string; action: string }[];
    };
    expect(ledger.entries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ledger.entries.map((entry) => entry.actor))).toEqual(new Set(["web"]));
  });

  it("previews a curator run exactly as `curator run --dry-run --json` plans it", async () => {
    await page.goto(`${server.url}/curator`);
    const rows = await page.locator("#preview-table tbody tr").evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll("td"))
          .slice(0, 3)
          .map((td) => td.textContent ?? "")
          .join("|"),
      ),
    );
    const dry = JSON.parse((await cli(home, "curator", "run", "--dry-run", "--json")).stdout) as {
      state_transitions: { name: string; from: string; to: string }[];
    };
    const expected = dry.state_transitions.map((t) => `${t.name}|${t.from}|${t.to}`);
    expect(expected.length).toBeGreaterThan(0);
    expect([...rows].sort()).toEqual([...expected].sort());
    await shot("curator");
  });

  it("rolls back a ledger entry from the ledger page after showing what changes", async () => {
    const victim = (await library().all()).find((skill) => skill.name.startsWith("redis"))?.name ?? "";
    expect(victim).not.toBe("");
    expect((await cli(home, "curator", "archive", victim)).code).toBe(0);
    expect(await library().find(victim)).toBeUndefined();
    await page.goto(`${server.url}/ledger?skill=${encodeURIComponent(victim)}`);
    await shot("ledger");
    const answer = page.waitForResponse(
      (response) =>
        response.url().endsWith("/api/action") &&
        response.request().postData()?.includes('"confirmed":true') === true,
    );
    await page.click('table.ledger tbody tr:first-child button[data-command="curator rollback"]');
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-question")).toContain("Restore this mutation's before-state?");
    expect(await page.textContent("#confirm-details")).toMatch(/Put back \(\d+\)/);
    await page.click("#confirm-ok");
    expect(((await (await answer).json()) as { ok: boolean }).ok).toBe(true);
    expect(await library().find(victim)).toBeDefined();
  });

  it("shows snapshots and cancels a snapshot rollback without changing anything", async () => {
    await page.goto(`${server.url}/snapshots`);
    expect(await page.locator("#snapshots-table tbody tr").count()).toBeGreaterThan(0);
    await shot("snapshots");
    const before = await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8");
    await page.click('#snapshots-table tbody tr:first-child button[data-command="curator rollback"]');
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-question")).toContain("Rollback target: snapshot");
    await page.click("#confirm-cancel");
    await page.waitForSelector("#toast.ok");
    expect(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8")).toBe(before);
  });

  it("draws the charts from bundled Chart.js", async () => {
    await page.goto(`${server.url}/charts`);
    // Before the first curator run its chart is a sentence, the other three are drawn.
    await page.waitForSelector('body[data-charts-ready="3"]');
    expect(await page.textContent("#chart-runs-empty")).toContain("No curator runs yet");
    await shot("charts");
  });

  it("names platforms in full in the Visible column (not two-letter stubs)", async () => {
    await page.goto(`${server.url}/library`);
    const labels = await page.locator("#library-table tbody tr").first().locator(".vis").allTextContents();
    expect(labels).toEqual(["Terminal", "Telegram", "Feishu", "Discord"]);
  });

  it("says so in words when a chart has nothing to show", async () => {
    const empty = await makeConsoleHome(0);
    const second = await startTestConsole(empty);
    try {
      await page.goto(second.loginUrl("admin"));
      await page.goto(`${second.url}/charts`);
      await page.waitForSelector("body[data-charts-ready]");
      expect(await page.getAttribute("body", "data-charts-empty")).toBe("3");
      expect(await page.textContent("#chart-runs-empty")).toContain("No curator runs yet");
      expect(await page.isHidden("#chart-runs")).toBe(true);
      expect(await page.textContent("#chart-most-empty")).toContain("No skill has been used");
      // The histogram still has something to say: every skill is in the "never" bucket.
      expect(await page.isVisible("#chart-idle")).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, "charts-empty.png"), fullPage: false });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(ARTIFACTS, "phone-charts-empty.png"), fullPage: false });
      await page.setViewportSize({ width: 1280, height: 900 });
    } finally {
      await second.close();
      await fs.rm(empty, { recursive: true, force: true });
      await page.goto(server.loginUrl("admin"));
    }
  });

  it("updates an open page live when the library changes on disk", async () => {
    const name = (await library().all()).find((skill) => skill.name.startsWith("docker"))?.name ?? "";
    await page.goto(`${server.url}/skill/${encodeURIComponent(name)}`);
    await page.waitForSelector("#live.on");
    expect(await page.locator("#skill-pinned").count()).toBe(0);
    expect((await cli(home, "curator", "pin", name)).code).toBe(0);
    await page.waitForSelector("#skill-pinned", { timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe(`/skill/${encodeURIComponent(name)}`);
  });

  it("runs the curator from its page and shows the run's progress", async () => {
    await page.goto(`${server.url}/curator`);
    const before = Number((await page.textContent("#curator-runs"))?.trim() ?? "0");
    await confirmAction('button[data-command="curator run"]', /curator run/);
    await page.waitForFunction(() =>
      (document.getElementById("progress")?.textContent ?? "").includes("running"),
    );
    expect(await page.textContent("#progress")).toMatch(/running review pass/);
    await page.waitForFunction(
      (count) => Number(document.getElementById("curator-runs")?.textContent ?? "0") > count,
      before,
    );
    expect(await page.locator("#runs-table tbody tr").count()).toBeGreaterThan(0);
    await shot("curator-after-run");
  });

  it("draws each run series in its own labelled colour once a run exists", async () => {
    await page.goto(`${server.url}/charts`);
    await page.waitForSelector('body[data-charts-ready="4"]');
    // Every series has its own colour and a label (the legend's entry).
    const series = JSON.parse((await page.getAttribute("#chart-runs", "data-series")) ?? "[]") as {
      label: string;
      color: string;
    }[];
    expect(series.map((item) => item.label)).toEqual([
      "marked stale",
      "archived",
      "reactivated",
      "curated skills after the run",
    ]);
    expect(new Set(series.map((item) => item.color)).size).toBe(4);
    for (const item of series) expect(item.color).toMatch(/^#[0-9a-f]{6}$/i);
    await shot("charts-after-run");
  });

  it("fits a 390 px phone on every page: no sideways page scroll, the nav wraps, actions stay reachable", async () => {
    const name = (await library().all())[0]?.name ?? "";
    const runs = await fs.readdir(path.join(home, "logs", "curator")).catch(() => [] as string[]);
    const pages: [string, string][] = [
      ["library", "/library"],
      ["skill", `/skill/${encodeURIComponent(name)}`],
      ["curator", "/curator"],
      ["ledger", "/ledger"],
      ["snapshots", "/snapshots"],
      ["charts", "/charts"],
      ...(runs[0] ? ([["report", `/curator/report/${runs[0]}`]] as [string, string][]) : []),
    ];
    const fits = () =>
      page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        nav: [...document.querySelectorAll("header nav a")].map((link) => {
          const box = link.getBoundingClientRect();
          return { left: box.left, right: box.right };
        }),
      }));
    await eachPageAtBothSizes(page, server, pages, 1400, async ({ size, label, width }) => {
      const measured = await fits();
      expect(measured.page, `${label} at ${width} px`).toBeLessThanOrEqual(measured.viewport);
      expect(measured.nav).toHaveLength(5);
      for (const link of measured.nav) {
        expect(link.left, `${label}: a nav link off-screen`).toBeGreaterThanOrEqual(0);
        expect(link.right, `${label}: a nav link off-screen`).toBeLessThanOrEqual(measured.viewport);
      }
      await page.screenshot({ path: path.join(ARTIFACTS, `${size}-${label}.png`), fullPage: false });
    });
    // At phone width the wide tables scroll inside their box, and a row's Roll back is reachable.
    await page.goto(`${server.url}/ledger`);
    const box = page.locator(".table-box").first();
    expect(await box.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    const rollback = page.locator('button[data-command="curator rollback"]').first();
    await rollback.scrollIntoViewIfNeeded();
    const where = await rollback.boundingBox();
    expect(where).not.toBeNull();
    expect((where?.x ?? -1) >= 0 && (where?.x ?? 0) + (where?.width ?? 0) <= 390).toBe(true);
    await rollback.click();
    await page.waitForSelector("#confirm-dialog[open]");
    const dialog = await page.locator("#confirm-dialog").boundingBox();
    expect((dialog?.x ?? -1) >= 0 && (dialog?.x ?? 0) + (dialog?.width ?? 0) <= 390).toBe(true);
    await page.click("#confirm-cancel");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("renders hostile skill content inert: no script runs, no handler or javascript: link survives", async () => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/skill/${HOSTILE_SKILL.name}`);
    await page.waitForSelector("#skill-body");
    await shot("skill-hostile");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.locator("main script, main iframe, main [onerror]").count()).toBe(0);
    expect(await page.locator('main a[href^="javascript"]').count()).toBe(0);
    expect(await page.textContent(".description")).toContain("<script>");
    expect(await page.textContent("#skill-body")).toContain("<img");
    expect(await page.locator('#skill-body a[href="https://example.org"]').count()).toBe(1);
    await page
      .locator("#skill-body")
      .getByText("click me")
      .click({ trial: false })
      .catch(() => undefined);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(violations).toEqual([]);
  });

  it("gives a read-only login no action buttons and refuses its forged POST", async () => {
    await context.clearCookies();
    await page.goto(server.loginUrl("read-only"));
    expect(await page.textContent(".role")).toBe("read-only");
    const name = (await library().all())[0]?.name ?? "";
    for (const target of [`/skill/${encodeURIComponent(name)}`, "/ledger", "/curator", "/snapshots"]) {
      await page.goto(`${server.url}${target}`);
      expect(await page.locator("button.action").count()).toBe(0);
    }
    await shot("read-only");
    const before = await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8");
    const status = await page.evaluate(async (skill) => {
      const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
      const response = await fetch("/api/action", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify({ command: "curator pin", args: [skill], options: {}, confirmed: true }),
      });
      return response.status;
    }, name);
    expect(status).toBe(403);
    expect(await fs.readFile(path.join(home, "skills", ".usage.json"), "utf8")).toBe(before);
  });
});
