/**
 * Fixtures of the web console tests: a home (synthetic library plus hostile skills), a console started
 * in-process on 127.0.0.1 with a free port, a logged-in HTTP client, and Debian's Chromium driven by
 * playwright-core (never a downloaded browser).
 */
import { execFile } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { registry } from "../../commands/index.js";
import { loadConfig } from "../../src/config/config.js";
import { type ConsoleServer, startConsoleServer } from "../../src/gateway/console/server.js";
import { openLibrary } from "../../src/skills/library.js";

const run = promisify(execFile);

/** Debian's Chromium. */
export const CHROMIUM = "/usr/bin/chromium";
/** The browser tests run when Chromium is installed, and always in CI (where its absence fails them). */
export const BROWSER_AVAILABLE = existsSync(CHROMIUM);
export const IN_CI = Boolean(process.env.CI);
/** Where screenshots go (gitignored). */
export const ARTIFACTS = path.resolve(import.meta.dirname, "..", "..", "test-artifacts", "console");
/** The built CLI. */
export const CLI = path.resolve(import.meta.dirname, "..", "..", "dist", "src", "cli", "main.js");
/** The synthetic-library recipe the benches use (a verbatim copy kept in the repository). */
const MAKE_LIBRARY = path.resolve(import.meta.dirname, "..", "..", "bench", "make-library.mjs");

/** A hostile skill: script tags, an image with onerror and javascript: links in description and body. */
export const HOSTILE_SKILL = {
  name: "xss-probe",
  description: `<script>window.__pwned = "description"</script><img src=x onerror="window.__pwned='img'">`,
  body: [
    "# Probe <script>window.__pwned = 'heading'</script>",
    "",
    `<img src="x" onerror="window.__pwned='body-img'">`,
    "",
    "<script>window.__pwned = 'body-script'</script>",
    "",
    "[click me](javascript:window.__pwned='md-link')",
    "",
    `<a href="javascript:window.__pwned='html-link'">raw link</a>`,
    "",
    "<iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
    "",
    "Plain **bold** text and [a real link](https://example.org).",
  ].join("\n"),
};

/** Builds a home: `count` synthetic skills (seed 42) when `count` > 0, else three tools; plus the hostile skill. */
export async function makeConsoleHome(count: number): Promise<string> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-console-"));
  if (count > 0) {
    await run(process.execPath, [MAKE_LIBRARY, home, String(count), "--seed", "42"]);
  } else {
    for (let index = 0; index < 3; index++) {
      await writeSkill(home, `tool-${index}`, `Tool number ${index}`, `Body of tool ${index}.`, "tools");
    }
  }
  await writeSkill(home, HOSTILE_SKILL.name, HOSTILE_SKILL.description, HOSTILE_SKILL.body);
  return home;
}

/** Writes `skills/[category/]name/SKILL.md`. */
export async function writeSkill(
  home: string,
  name: string,
  description: string,
  body: string,
  category?: string,
): Promise<string> {
  const dir = path.join(home, "skills", ...(category ? [category] : []), name);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n${body}\n`,
  );
  return dir;
}

/** Starts a console for `home` on a free loopback port. */
export async function startTestConsole(home: string): Promise<ConsoleServer> {
  const config = loadConfig(path.join(home, "config.yaml"));
  return startConsoleServer({
    home,
    config,
    library: openLibrary(home, config),
    registry,
    port: 0,
    bind: "127.0.0.1",
  });
}

/** A console booted for a `describe`: its home, the server, and an admin's session cookie. */
export interface RunningConsole {
  home: string;
  server: ConsoleServer;
  cookie: string;
}

/**
 * Boots a console for the enclosing `describe`: a fresh home with no skills that `prepare` fills, the
 * server on a free loopback port and an admin login, handed to `use`; closed and removed after its tests.
 */
export function consoleForDescribe(
  prepare: (home: string) => Promise<void>,
  use: (running: RunningConsole) => void,
): void {
  let home: string | undefined;
  let server: ConsoleServer | undefined;
  beforeAll(async () => {
    home = await makeConsoleHome(0);
    await prepare(home);
    server = await startTestConsole(home);
    use({ home, server, cookie: await login(server) });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (home) await fs.rm(home, { recursive: true, force: true });
  });
}

/** Runs the built CLI against `home`; resolves with its stdout, stderr and exit code. */
export async function cli(
  home: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, "--home", home, ...args], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Logs in with a fresh login link and returns the session cookie header. */
export async function login(server: ConsoleServer, role: "admin" | "read-only" = "admin"): Promise<string> {
  const response = await fetch(server.loginUrl(role), { redirect: "manual" });
  const cookie = response.headers.get("set-cookie") ?? "";
  const value = /skillgate_console=([^;]+)/.exec(cookie)?.[1];
  if (response.status !== 303 || !value) throw new Error(`login failed: HTTP ${response.status}`);
  return `skillgate_console=${value}`;
}

/** The CSRF token a page of this session carries. */
export async function csrfOf(server: ConsoleServer, cookie: string): Promise<string> {
  const page = await (await fetch(`${server.url}/library`, { headers: { cookie } })).text();
  const token = /<meta name="csrf-token" content="([^"]+)">/.exec(page)?.[1];
  if (!token) throw new Error("no CSRF token on the page");
  return token;
}

/**
 * Launches Debian's Chromium headless with a fresh profile, through playwright-core. `backForwardCache`
 * keeps the browser's back/forward cache on (playwright turns it off by default), as people's browsers
 * have it. `locale` is the browser's language: Chromium's `--lang` and the `Accept-Language` it sends.
 * `page` is its first tab (see `firstTab`).
 */
export async function launchBrowser(
  options: { backForwardCache?: boolean; locale?: string } = {},
): Promise<{ context: BrowserContext; page: Page; close: () => Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ...(options.backForwardCache ? { ignoreDefaultArgs: ["--disable-back-forward-cache"] } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    args: [
      ...(options.locale ? [`--lang=${options.locale}`] : []),
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    page: await firstTab(context),
    close: async () => {
      await context.close();
      await fs.rm(profile, { recursive: true, force: true });
    },
  };
}

/** The browser's first tab; a native dialog a script opens fails the test (the console has its own). */
async function firstTab(context: BrowserContext): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("dialog", (dialog) => {
    throw new Error(`a script opened a dialog: ${dialog.message()}`);
  });
  return page;
}

/**
 * Opens each of `pages` (a label and a path on `server`) at a desktop width of `desktopWidth` px and then
 * at a phone's, waiting for the charts page to draw, and hands each to `check` while it is shown.
 */
export async function eachPageAtBothSizes(
  page: Page,
  server: ConsoleServer,
  pages: readonly (readonly [string, string])[],
  desktopWidth: number,
  check: (shown: { size: string; label: string; width: number }) => Promise<void>,
): Promise<void> {
  for (const [size, viewport] of [
    ["desktop", { width: desktopWidth, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(viewport);
    for (const [label, target] of pages) {
      await page.goto(`${server.url}${target}`);
      if (label === "charts") await page.waitForSelector("body[data-charts-ready]");
      await check({ size, label, width: viewport.width });
    }
  }
}

/** Closes what a browser test opened: the browser, the console, and removes the home. */
export async function closeBrowserTest(parts: {
  browser?: { close: () => Promise<void> };
  server?: ConsoleServer;
  home?: string;
}): Promise<void> {
  await parts.browser?.close();
  await parts.server?.close();
  if (parts.home) await fs.rm(parts.home, { recursive: true, force: true });
}
