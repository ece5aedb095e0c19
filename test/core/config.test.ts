import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { feishuConfig } from "../../adapters/feishu/config.js";
import { PLATFORMS } from "../../adapters/index.js";
import { CURATOR_DEFAULTS, loadConfig, parseConfig } from "../../src/config/config.js";
import { lookupSecret, parseDotenv } from "../../src/config/dotenv.js";
import { homePaths, resolveHome } from "../../src/config/home.js";
import { ConfigError } from "../../src/core/errors.js";
import { isPlatformReference, registerPlatform } from "../../src/core/platforms.js";
import { freshDirEachTest } from "../support/fresh-dir.js";

describe("home resolution", () => {
  it("prefers --home, then HERMES_HOME, then ~/.hermes", () => {
    expect(resolveHome("/tmp/a", { HERMES_HOME: "/tmp/b" })).toBe("/tmp/a");
    expect(resolveHome(undefined, { HERMES_HOME: "/tmp/b" })).toBe("/tmp/b");
    expect(resolveHome(undefined, {})).toBe(path.join(os.homedir(), ".hermes"));
    expect(resolveHome("~/x", {})).toBe(path.join(os.homedir(), "x"));
  });

  it("keeps the ledger blobs outside skills/ and the ledger inside", () => {
    const paths = homePaths("/h");
    expect(paths.blobs).toBe("/h/.curator_backups/blobs");
    expect(paths.ledger).toBe("/h/skills/.curator_ledger.jsonl");
  });
});

describe("config.yaml", () => {
  let dir: string;
  freshDirEachTest("sg-config-", (made) => {
    dir = made;
  });

  it("gives the seed document's defaults when the file is missing", () => {
    const config = loadConfig(path.join(dir, "config.yaml"));
    expect(config.curator.staleAfterDays).toBe(30);
    expect(config.curator.archiveAfterDays).toBe(90);
    expect(config.curator.intervalHours).toBe(168);
    expect(config.curator.minIdleHours).toBe(2);
    expect(config.curator.consolidate).toBe(false);
    expect(config.curator.pruneBuiltins).toBe(true);
    expect(config.curator.backup).toEqual({ enabled: true, keep: 5 });
    expect(config.curator.archiveTtlDays).toBe(0);
    expect(config.skills.ledger).toBe(true);
    expect(config.gateway.maintenance.checkMinutes).toBe(60);
    expect(config.mtimeMs).toBe(0);
  });

  it("leaves sections it does not use alone, even when they are odd", async () => {
    await writeFile(
      path.join(dir, "config.yaml"),
      "terminal:\n  backend: 42\ndisplay: [1, 2]\ncurator:\n  stale_after_days: 10\n",
    );
    const config = loadConfig(path.join(dir, "config.yaml"));
    expect(config.curator.staleAfterDays).toBe(10);
    expect(config.mtimeMs).toBeGreaterThan(0);
  });

  it("names the key, the value and the allowed values for a wrong enum", () => {
    const attempt = () => parseConfig({ gateway: { telegram: { mode: "carrier-pigeon" } } });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/gateway\.telegram\.mode.*carrier-pigeon.*polling, webhook/);
    try {
      attempt();
    } catch (error) {
      expect((error as ConfigError).key).toBe("gateway.telegram.mode");
      expect((error as ConfigError).exitCode).toBe(78);
    }
  });

  it("rejects a malformed platform:id entry in admins", () => {
    expect(() => parseConfig({ gateway: { admins: ["123456"] } })).toThrow(
      /gateway\.admins.*"123456".*platform:id/,
    );
  });

  it("falls back to the default with one warning for curator numbers below 1", () => {
    const config = parseConfig({ curator: { stale_after_days: 0, interval_hours: -5 } });
    expect(config.curator.staleAfterDays).toBe(CURATOR_DEFAULTS.staleAfterDays);
    expect(config.curator.intervalHours).toBe(CURATOR_DEFAULTS.intervalHours);
    expect(config.warnings).toHaveLength(2);
    expect(config.warnings.join("\n")).toMatch(/curator\.stale_after_days.*0/);
  });

  it("clamps backup.keep to at least 1", () => {
    expect(parseConfig({ curator: { backup: { keep: 0 } } }).curator.backup.keep).toBe(1);
  });

  it("keeps a malformed disabled list as a visibility error instead of failing every command", () => {
    const config = parseConfig({ skills: { platform_disabled: { telegram: { nope: 1 } } } });
    expect(config.skills.visibilityError).toBeInstanceOf(ConfigError);
    expect(config.skills.visibilityError?.key).toBe("skills.platform_disabled.telegram");
  });

  it("reports YAML syntax errors as config errors", async () => {
    await writeFile(path.join(dir, "config.yaml"), "curator: [unclosed\n");
    expect(() => loadConfig(path.join(dir, "config.yaml"))).toThrow(/not valid YAML/);
  });

  it("accepts feishu domains feishu, lark and URLs only", () => {
    expect(feishuConfig(parseConfig({ gateway: { feishu: { domain: "lark" } } })).domain).toBe("lark");
    expect(feishuConfig(parseConfig({ gateway: { feishu: { domain: "http://127.0.0.1:9" } } })).domain).toBe(
      "http://127.0.0.1:9",
    );
    expect(() => parseConfig({ gateway: { feishu: { domain: "larkk" } } })).toThrow(
      /gateway\.feishu\.domain.*"larkk".*feishu, lark, or a full URL/,
    );
  });

  it("validates each listed platform's section with that platform's own parser", () => {
    expect(PLATFORMS.map((platform) => platform.name)).toEqual(["telegram", "feishu", "discord"]);
    // Without the platform definitions, a platform section is neither parsed nor checked.
    const bare = parseConfig({ gateway: { feishu: { domain: "larkk" } } }, 0, []);
    expect(bare.gateway.platforms).toEqual({});
  });

  it("lets a new platform register its name and config section without touching the core", () => {
    expect(isPlatformReference("matrix:@bot:example.org")).toBe(false);
    registerPlatform({
      name: "matrix",
      secrets: ["MATRIX_TOKEN"],
      parseConfig: (reader) => ({
        enabled: reader.bool("enabled", false),
        homeserver: reader.str("homeserver") ?? "https://matrix.org",
      }),
      createAdapter: () => Promise.reject(new Error("not started in this test")),
    });
    const config = parseConfig({
      gateway: { admins: ["matrix:@me:example.org"], matrix: { enabled: true } },
    });
    expect(config.gateway.platforms.matrix).toEqual({ enabled: true, homeserver: "https://matrix.org" });
    expect(config.gateway.admins).toEqual(["matrix:@me:example.org"]);
    expect(() => parseConfig({ gateway: { matrix: { enabled: "maybe" } } })).toThrow(
      /gateway\.matrix\.enabled.*"maybe".*true or false/,
    );
  });

  it("records the legacy curator.auxiliary block with a deprecation warning", () => {
    const config = parseConfig({ curator: { auxiliary: { model: "m", base_url: "http://127.0.0.1:1/v1" } } });
    expect(config.curator.legacyAuxiliary?.model).toBe("m");
    expect(config.warnings.join("\n")).toMatch(/deprecated.*auxiliary\.curator/);
  });
});

describe(".env", () => {
  it("parses KEY=value with export prefixes, quotes and comments", () => {
    const values = parseDotenv("# c\nexport A=1\nB='two words'\nC=\"x=y\"\n  \nbad line\n=novalue\n");
    expect(Object.fromEntries(values)).toEqual({ A: "1", B: "two words", C: "x=y" });
  });

  it("treats empty values as missing", () => {
    const values = parseDotenv("TOKEN=\n");
    expect(lookupSecret("TOKEN", values, {})).toBeUndefined();
    expect(lookupSecret("TOKEN", values, { TOKEN: "env" })).toBe("env");
    expect(lookupSecret("OTHER", parseDotenv("OTHER=file"), {})).toBe("file");
  });
});
