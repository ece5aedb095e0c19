/**
 * `gateway.coordination` in config.yaml and `serve --set` overrides: defaults, clear errors for a wrong
 * URL or replica id, values read as YAML 1.1 scalars, unknown keys refused with the key meant, no
 * prototype keys, and overrides applied to every later read of the file in this process.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { validateOverrides } from "../../src/config/check.js";
import { loadConfig, parseConfig } from "../../src/config/config.js";
import { parseOverride, setConfigOverrides } from "../../src/config/overrides.js";
import { ConfigError } from "../../src/core/errors.js";

afterEach(() => setConfigOverrides([]));

describe("gateway.coordination", () => {
  it("is off without a redis_url, and takes its defaults with one", () => {
    expect(parseConfig({}).gateway.coordination).toBeUndefined();
    const on = parseConfig({ gateway: { coordination: { redis_url: "redis://127.0.0.1:6379" } } });
    expect(on.gateway.coordination).toEqual({
      redisUrl: "redis://127.0.0.1:6379",
      replicaId: `${os.hostname()}-${process.pid}`.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 64),
      writerEligible: true,
      retentionHours: 48,
    });
  });

  it("refuses a URL that is not Redis's and a replica id that cannot be a key", () => {
    expect(() => parseConfig({ gateway: { coordination: { redis_url: "http://x" } } })).toThrow(
      /gateway\.coordination\.redis_url.*redis:\/\/127\.0\.0\.1:6379/,
    );
    expect(() =>
      parseConfig({ gateway: { coordination: { redis_url: "redis://x", replica_id: "a b/c" } } }),
    ).toThrow(/replica_id.*different on every replica/);
  });

  it("refuses a URL whose password has an unescaped / without showing any of it", () => {
    const error = (() => {
      try {
        parseConfig({
          gateway: { coordination: { redis_url: "redis://app:s3cr/et-pw@redis.internal:6379" } },
        });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toMatch(/percent-encode/);
    expect(error?.message).toContain("redis://***@redis.internal:6379");
    expect(error?.message).not.toMatch(/s3cr|et-pw|app:/);
  });
});

describe("serve --set", () => {
  it("reads values as the file would", () => {
    expect(parseOverride("gateway.telegram.webhook.port=9002")).toEqual({
      path: ["gateway", "telegram", "webhook", "port"],
      value: 9002,
    });
    expect(parseOverride("gateway.coordination.writer_eligible=false").value).toBe(false);
    expect(parseOverride("gateway.coordination.replica_id=b").value).toBe("b");
    expect(parseOverride("gateway.home_channel=telegram:-100123").value).toBe("telegram:-100123");
  });

  it("refuses malformed and prototype keys", () => {
    for (const bad of ["novalue", "=x", "a..b=1", "gateway.__proto__.x=1", "constructor=1"])
      expect(() => parseOverride(bad), bad).toThrow(ConfigError);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("refuses a key skillgate does not know, naming the one meant, and a wrong value", () => {
    expect(() => validateOverrides([parseOverride("gateway.coordination.replika_id=b")], {})).toThrow(
      /did you mean gateway\.coordination\.replica_id/,
    );
    expect(() => validateOverrides([parseOverride("gateway.health.port=-3")], {})).toThrow(
      /gateway\.health\.port/,
    );
    expect(() =>
      validateOverrides(
        [
          parseOverride("gateway.coordination.redis_url=redis://127.0.0.1:1"),
          parseOverride("gateway.coordination.replica_id=b"),
        ],
        {},
      ),
    ).not.toThrow();
  });

  it("applies to every read of the file in this process, over what the file says", async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-set-"));
    const file = path.join(home, "config.yaml");
    await fs.writeFile(
      file,
      "gateway:\n  coordination:\n    redis_url: redis://127.0.0.1:6379\n    replica_id: a\n",
    );
    expect(loadConfig(file).gateway.coordination?.replicaId).toBe("a");
    setConfigOverrides([
      parseOverride("gateway.coordination.replica_id=b"),
      parseOverride("gateway.health.port=9100"),
    ]);
    const config = loadConfig(file);
    expect(config.gateway.coordination?.replicaId).toBe("b");
    expect(config.gateway.health.port).toBe(9100);
    // The file itself is not touched.
    expect(await fs.readFile(file, "utf8")).toContain("replica_id: a");
    await fs.rm(home, { recursive: true, force: true });
  });
});
