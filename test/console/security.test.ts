/**
 * The web console's guards over plain HTTP: no session, a wrong CSRF token, another origin, a foreign
 * Host header, a read-only login and an oversized body are all refused and change nothing; login links
 * work once; the signing secret is private; every page carries the strict CSP.
 */
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleAuth, consoleSecretPath, loadConsoleSecret } from "../../src/gateway/console/auth.js";
import { CONSOLE_CSP, type ConsoleServer } from "../../src/gateway/console/server.js";
import { csrfOf, login, makeConsoleHome, startTestConsole, writeSkill } from "./helpers.js";

describe("web console guards", () => {
  let home: string;
  let server: ConsoleServer;
  let admin: string;
  let csrf: string;
  const usageFile = () => path.join(home, "skills", ".usage.json");
  const snapshotOf = async () => {
    const usage = await fs.readFile(usageFile(), "utf8").catch(() => "");
    const ledger = await fs
      .readFile(path.join(home, "skills", ".curator_ledger.jsonl"), "utf8")
      .catch(() => "");
    return `${usage}\n---\n${ledger}`;
  };
  const pin = (
    headers: Record<string, string>,
    body: unknown = { command: "curator pin", args: ["tool-1"], confirmed: true },
  ) =>
    fetch(`${server.url}/api/action`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    home = await makeConsoleHome(0);
    server = await startTestConsole(home);
    admin = await login(server, "admin");
    csrf = await csrfOf(server, admin);
  });

  afterAll(async () => {
    await server.close();
    await fs.rm(home, { recursive: true, force: true });
  });

  it("keeps the signing secret in the home with mode 0600", () => {
    const stat = statSync(consoleSecretPath(home));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(loadConsoleSecret(home).length).toBe(32);
  });

  it("sends the strict CSP and no-framing headers on pages", async () => {
    const response = await fetch(`${server.url}/library`, { headers: { cookie: admin } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain("unsafe-inline");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    const page = await response.text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/\son[a-z]+=/);
  });

  it("refuses pages and actions without a session", async () => {
    expect((await fetch(`${server.url}/library`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/charts`)).status).toBe(401);
    const before = await snapshotOf();
    const response = await pin({ origin: server.url, "x-csrf-token": csrf });
    expect(response.status).toBe(401);
    expect(await snapshotOf()).toBe(before);
  });

  it("refuses a forged session cookie", async () => {
    const forged = admin.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect((await fetch(`${server.url}/library`, { headers: { cookie: forged } })).status).toBe(401);
  });

  it("refuses a missing or wrong CSRF token and changes nothing", async () => {
    const before = await snapshotOf();
    expect((await pin({ cookie: admin, origin: server.url })).status).toBe(403);
    expect((await pin({ cookie: admin, origin: server.url, "x-csrf-token": `${csrf}x` })).status).toBe(403);
    const other = await login(server, "admin");
    const otherCsrf = await csrfOf(server, other);
    expect((await pin({ cookie: admin, origin: server.url, "x-csrf-token": otherCsrf })).status).toBe(403);
    expect(await snapshotOf()).toBe(before);
  });

  it("refuses requests from another origin or without one, and changes nothing", async () => {
    const before = await snapshotOf();
    for (const origin of ["http://evil.example", "null", server.url.replace("127.0.0.1", "localhost")]) {
      expect((await pin({ cookie: admin, origin, "x-csrf-token": csrf })).status).toBe(403);
    }
    expect((await pin({ cookie: admin, "x-csrf-token": csrf })).status).toBe(403);
    expect(
      (await pin({ cookie: admin, origin: server.url, "x-csrf-token": csrf, "sec-fetch-site": "cross-site" }))
        .status,
    ).toBe(403);
    expect(await snapshotOf()).toBe(before);
  });

  it("answers only to its own Host name (DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const url = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: "/library",
          headers: { host: "attacker.example", cookie: admin },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(421);
  });

  it("refuses a read-only login's POST even with its own valid CSRF token", async () => {
    const reader = await login(server, "read-only");
    const readerCsrf = await csrfOf(server, reader);
    const page = await (await fetch(`${server.url}/skill/tool-1`, { headers: { cookie: reader } })).text();
    expect(page).not.toContain('class="action"');
    const before = await snapshotOf();
    const response = await pin({ cookie: reader, origin: server.url, "x-csrf-token": readerCsrf });
    expect(response.status).toBe(403);
    expect(await snapshotOf()).toBe(before);
  });

  it("refuses bodies over the size limit and malformed requests", async () => {
    const before = await snapshotOf();
    const big = JSON.stringify({
      command: "curator pin",
      args: ["tool-1"],
      confirmed: true,
      pad: "x".repeat(80_000),
    });
    expect((await pin({ cookie: admin, origin: server.url, "x-csrf-token": csrf }, big)).status).toBe(413);
    expect((await pin({ cookie: admin, origin: server.url, "x-csrf-token": csrf }, "{not json")).status).toBe(
      400,
    );
    const unknown = { command: "curator purge", args: [], confirmed: true };
    expect((await pin({ cookie: admin, origin: server.url, "x-csrf-token": csrf }, unknown)).status).toBe(
      400,
    );
    const sneaky = { command: "curator run", options: { background: true }, confirmed: true };
    expect((await pin({ cookie: admin, origin: server.url, "x-csrf-token": csrf }, sneaky)).status).toBe(400);
    expect(await snapshotOf()).toBe(before);
  });

  it("asks before acting, then archives through the registry with `web` as the actor", async () => {
    const headers = { cookie: admin, origin: server.url, "x-csrf-token": csrf };
    const before = await snapshotOf();
    const ask = await pin(headers, { command: "curator archive", args: ["tool-2"], confirmed: false });
    expect(ask.status).toBe(200);
    const question = (await ask.json()) as { kind: string; question: string };
    expect(question.kind).toBe("confirm");
    expect(question.question).toContain("tool-2");
    expect(await snapshotOf()).toBe(before);
    const done = await pin(headers, { command: "curator archive", args: ["tool-2"], confirmed: true });
    expect(((await done.json()) as { ok: boolean }).ok).toBe(true);
    const ledger = await fs.readFile(path.join(home, "skills", ".curator_ledger.jsonl"), "utf8");
    const last = JSON.parse(ledger.trim().split("\n").pop() ?? "{}") as {
      actor: string;
      action: string;
      skill: string;
    };
    expect(last).toMatchObject({ actor: "web", skill: "tool-2" });
  });

  it("scrubs the home's secrets from skill content it shows", async () => {
    const secret = "sk-live-0123456789abcdef";
    await fs.writeFile(path.join(home, ".env"), `PAYMENT_API_KEY=${secret}\n`);
    await writeSkill(home, "leaky", `uses ${secret}`, `# Leaky\n\nThe key is ${secret}.`);
    const page = await (await fetch(`${server.url}/skill/leaky`, { headers: { cookie: admin } })).text();
    expect(page).toContain("The key is [redacted].");
    expect(page).not.toContain(secret);
  });

  it("accepts a login link once, and not one forged, expired or minted before the start", async () => {
    const link = server.loginUrl("admin");
    expect((await fetch(link, { redirect: "manual" })).status).toBe(303);
    expect((await fetch(link, { redirect: "manual" })).status).toBe(403);
    const tampered = link.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect((await fetch(tampered, { redirect: "manual" })).status).toBe(403);

    let clock = Date.now();
    const secret = Buffer.alloc(32, 7);
    const earlier = new ConsoleAuth(secret, () => clock).mintLoginToken("admin");
    clock += 60_000;
    const auth = new ConsoleAuth(secret, () => clock);
    expect(await auth.redeemLoginToken(earlier)).toBeNull();
    const token = auth.mintLoginToken("admin");
    clock += 16 * 60_000;
    expect(await auth.redeemLoginToken(token)).toBeNull();
    const fresh = auth.mintLoginToken("read-only");
    expect(await auth.redeemLoginToken(fresh)).toBe("read-only");
    const { cookie, session } = auth.newSession("read-only");
    expect(auth.readSession(cookie)).toEqual(session);
    clock += 13 * 3_600_000;
    expect(auth.readSession(cookie)).toBeNull();
  });
});
