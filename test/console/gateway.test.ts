/**
 * The console as part of the gateway and the CLI: `gateway.console` parsing, the gateway serving it with
 * a printed login link, live `change` events from the library, menus resynced after a web action,
 * `skillgate console --link --read-only` minting a link the running console accepts, and no console
 * when it is turned off.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMockAdapter } from "../../adapters/mock/index.js";
import { loadConfig } from "../../src/config/config.js";
import { ConfigError } from "../../src/core/errors.js";
import { isLoopback } from "../../src/gateway/console/server.js";
import type { Gateway } from "../../src/gateway/gateway.js";
import { createGateway } from "../../src/gateway/gateway.js";
import { gatewayDoc, makeHome, removeHome, writeConfig, writeSkill } from "../gateway/helpers.js";
import { cli, startTestConsole } from "./helpers.js";

const homes: string[] = [];
const gateways: Gateway[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.stop();
  for (const home of homes.splice(0)) await removeHome(home);
});

async function home(): Promise<string> {
  const dir = await makeHome();
  homes.push(dir);
  return dir;
}

/** Reads server-sent events from `url` until `wanted` arrives (or the timeout). */
async function waitForEvent(url: string, cookie: string, wanted: string, trigger: () => Promise<void>) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 15_000);
  try {
    const response = await fetch(url, { headers: { cookie }, signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    let triggered = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value);
      if (!triggered && text.includes("event: hello")) {
        triggered = true;
        // The watcher needs one check to learn the current state before a change can show.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await trigger();
      }
      if (text.includes(`event: ${wanted}`)) return text;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

describe("gateway.console config", () => {
  it("is on by default on 127.0.0.1:8788 and can be turned off or moved", async () => {
    const dir = await home();
    const defaults = await writeConfig(dir, {});
    expect(defaults.gateway.console).toEqual({ enabled: true, port: 8788, bind: "127.0.0.1" });
    const off = await writeConfig(dir, {
      gateway: { console: { enabled: false, port: 9000, bind: "0.0.0.0" } },
    });
    expect(off.gateway.console).toEqual({ enabled: false, port: 9000, bind: "0.0.0.0" });
    await fs.writeFile(path.join(dir, "config.yaml"), "gateway:\n  console:\n    port: 70000\n");
    expect(() => loadConfig(path.join(dir, "config.yaml"))).toThrow(ConfigError);
  });

  it("treats only loopback addresses as local", () => {
    for (const bind of ["127.0.0.1", "127.0.0.5", "::1", "localhost"]) expect(isLoopback(bind)).toBe(true);
    for (const bind of ["0.0.0.0", "::", "192.168.1.10"]) expect(isLoopback(bind)).toBe(false);
  });
});

describe("the gateway serves the console", () => {
  it("prints a login link, streams library changes, and resyncs menus after a web action", async () => {
    const dir = await home();
    await writeSkill(dir, { name: "alpha" });
    await writeSkill(dir, { name: "beta" });
    const config = await writeConfig(dir, { gateway: gatewayDoc({ console: { port: 0 } }) });
    const lines: string[] = [];
    const mock = createMockAdapter();
    const gateway = createGateway({
      home: dir,
      config,
      adapters: [mock],
      console: { announce: (line) => lines.push(line) },
    });
    gateways.push(gateway);
    await gateway.start();
    const url = gateway.consoleUrl ?? "";
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const link = lines.join("\n").match(/http:\/\/\S+\/login\?token=\S+/)?.[0] ?? "";
    expect(link.startsWith(url)).toBe(true);
    const login = await fetch(link, { redirect: "manual" });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";

    const events = await waitForEvent(`${url}/events`, cookie, "change", async () => {
      await writeSkill(dir, { name: "gamma" });
    });
    expect(events).toContain("event: change");

    const page = await (await fetch(`${url}/library`, { headers: { cookie } })).text();
    expect(page).toContain('data-skill="gamma"');
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? "";
    const synced = mock.catalogs.length;
    const response = await fetch(`${url}/api/action`, {
      method: "POST",
      headers: { cookie, origin: url, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ command: "curator archive", args: ["beta"], confirmed: true }),
    });
    expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
    expect(mock.catalogs.length).toBe(synced + 1);
    expect(JSON.stringify(mock.catalogs.at(-1))).not.toContain('"beta"');

    await gateway.stop();
    await expect(fetch(`${url}/library`)).rejects.toThrow();
  });

  it("serves no console when gateway.console.enabled is false", async () => {
    const dir = await home();
    const config = await writeConfig(dir, { gateway: gatewayDoc({ console: { enabled: false, port: 0 } }) });
    const gateway = createGateway({ home: dir, config, adapters: [createMockAdapter()], console: {} });
    gateways.push(gateway);
    await gateway.start();
    expect(gateway.consoleUrl).toBeUndefined();
  });
});

describe("skillgate console --link", () => {
  it("mints a read-only login link that the running console accepts once", async () => {
    const dir = await home();
    await writeSkill(dir, { name: "alpha" });
    const server = await startTestConsole(dir);
    try {
      const port = new URL(server.url).port;
      const result = await cli(dir, "console", "--link", "--read-only", "--port", port);
      expect(result.code).toBe(0);
      const link = result.stdout.trim();
      expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/login\\?token=`));
      const login = await fetch(link, { redirect: "manual" });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const page = await (await fetch(`${server.url}/skill/alpha`, { headers: { cookie } })).text();
      expect(page).toContain('data-role="read-only"');
      expect(page).not.toContain('class="action"');
      expect((await fetch(link, { redirect: "manual" })).status).toBe(403);
    } finally {
      await server.close();
    }
  });
});
