/**
 * The web console keeps secrets out of every page and of its search, keeps the login link out of the
 * log, and ends sessions: logout (any login) and "end all sessions" (admins), both holding across a
 * restart of the console.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.js";
import { createSnapshot } from "../../src/curator/snapshot.js";
import { launchConsole } from "../../src/gateway/console/launch.js";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { csrfOf, login, makeConsoleHome, startTestConsole, writeSkill } from "./helpers.js";

const SECRET = "sk-live-9f8e7d6c5b4a3210";

describe("scrubbed pages and search", () => {
  let home: string;
  let server: ConsoleServer;
  let reader: string;

  beforeAll(async () => {
    home = await makeConsoleHome(0);
    await fs.writeFile(path.join(home, ".env"), `ACME_API_KEY=${SECRET}\n`);
    await writeSkill(home, "leaky", `Calls the API with ${SECRET} baked in`, `Key: ${SECRET}`, "tools");
    await createSnapshot({
      home,
      config: loadConfig(path.join(home, "config.yaml")),
      reason: `before rotating ${SECRET}`,
    });
    server = await startTestConsole(home);
    reader = await login(server, "read-only");
  });

  afterAll(async () => {
    await server.close();
    await fs.rm(home, { recursive: true, force: true });
  });

  const get = (route: string) => fetch(`${server.url}${route}`, { headers: { cookie: reader } });
  const count = async (query: string) => {
    const page = await (await get(`/library?q=${encodeURIComponent(query)}`)).text();
    return Number(/id="library-count"[^>]*data-total="(\d+)"/.exec(page)?.[1] ?? "-1");
  };

  it("the search matches scrubbed text only: a secret cannot be found one prefix at a time", async () => {
    expect(await count("calls the api")).toBe(1);
    for (const prefix of ["sk-live-9", "sk-live-9f8e7d", SECRET]) expect(await count(prefix)).toBe(0);
    expect(await count("[redacted]")).toBe(1);
  });

  it.each([
    "/library",
    "/skill/leaky",
    "/skill/leaky/file?path=SKILL.md",
    "/snapshots",
    "/ledger",
    "/curator",
    "/api/charts",
  ])("%s never shows the secret", async (route) => {
    const response = await get(route);
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain("9f8e7d6c5b4a3210");
  });

  it("the snapshot's reason is shown scrubbed", async () => {
    expect(await (await get("/snapshots")).text()).toContain("before rotating [redacted]");
  });
});

describe("login link and sessions", () => {
  let home: string;

  beforeAll(async () => {
    home = await makeConsoleHome(0);
  });
  afterAll(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });

  it("the one-time login link is announced on the terminal, never written to the log", async () => {
    const logged: string[] = [];
    const announced: string[] = [];
    const logger = {
      info: (...args: unknown[]) => logged.push(JSON.stringify(args)),
      warn: (...args: unknown[]) => logged.push(JSON.stringify(args)),
      error: (...args: unknown[]) => logged.push(JSON.stringify(args)),
      debug: () => undefined,
      child: () => logger,
    } as unknown as Parameters<typeof launchConsole>[0]["logger"];
    const config = loadConfig(path.join(home, "config.yaml"));
    const launch = (announce: (line: string) => void, printLink?: boolean) =>
      launchConsole({
        home,
        config,
        logger,
        port: 0,
        announce,
        ...(printLink === false ? { printLink } : {}),
      });
    const server = await launch((line) => announced.push(line));
    try {
      expect(announced.join("\n")).toMatch(/\/login\?token=/);
      expect(logged.join("\n")).toContain(server.url);
      expect(logged.join("\n")).not.toContain("token=");
    } finally {
      await server.close();
    }
    const quiet: string[] = [];
    const service = await launch((line) => quiet.push(line), false);
    try {
      expect(quiet.join("\n")).not.toContain("token=");
      expect(quiet.join("\n")).toContain("skillgate console --link");
    } finally {
      await service.close();
    }
  });

  const post = (server: ConsoleServer, route: string, cookie: string, csrf: string) =>
    fetch(`${server.url}${route}`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrf, origin: server.url, "content-type": "application/json" },
      body: "{}",
    });
  /** A console on the shared home with a read-only and an admin session logged in. */
  const startWithLogins = async () => {
    const server = await startTestConsole(home);
    return { server, reader: await login(server, "read-only"), admin: await login(server, "admin") };
  };
  /** Closes `server` and starts a new console on the same home, as a restart does. */
  const restarted = async (server: ConsoleServer) => {
    await server.close();
    return startTestConsole(home);
  };
  const status = async (server: ConsoleServer, cookie: string) =>
    (await fetch(`${server.url}/library`, { headers: { cookie } })).status;

  it("logout ends this session only, for any login, and it stays ended after a restart", async () => {
    let { server, reader, admin } = await startWithLogins();
    const out = await post(server, "/api/logout", reader, await csrfOf(server, reader));
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/skillgate_console=;/);
    expect(await status(server, reader)).toBe(401);
    expect(await status(server, admin)).toBe(200);
    server = await restarted(server);
    try {
      expect(await status(server, reader)).toBe(401);
      expect(await status(server, admin)).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("end all sessions is for admins, ends every session, and holds across a restart; new logins work", async () => {
    let { server, reader, admin } = await startWithLogins();
    const refused = await post(server, "/api/sessions/end-all", reader, await csrfOf(server, reader));
    expect(refused.status).toBe(403);
    expect(await status(server, admin)).toBe(200);
    // A forged POST without the CSRF token ends nothing.
    expect((await post(server, "/api/sessions/end-all", admin, "wrong")).status).toBe(403);
    expect(await status(server, admin)).toBe(200);
    expect((await post(server, "/api/sessions/end-all", admin, await csrfOf(server, admin))).status).toBe(
      200,
    );
    expect(await status(server, admin)).toBe(401);
    expect(await status(server, reader)).toBe(401);
    server = await restarted(server);
    try {
      expect(await status(server, admin)).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await status(server, await login(server, "admin"))).toBe(200);
    } finally {
      await server.close();
    }
  });
});
