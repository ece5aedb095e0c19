/**
 * `skillgate doctor` with `gateway.coordination`: a live Redis is named with its version; a dead URL fails
 * with the fix. What cannot be safe is refused by `doctor` and at start alike: an eviction policy other
 * than `noeviction`, an ACL user without a command coordination needs. What a restart would lose
 * (no append-only file) is a warning, as is a user that may not watch the leader's connection.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/doctor.js";
import { CoordinationError } from "../../src/core/errors.js";
import { connectRedis, type RedisClient } from "../../src/gateway/coordination/redis.js";
import { startRedis, type TestRedis } from "../support/redis.js";

let redis: TestRedis;
let admin: RedisClient;
let home: string;
beforeAll(async () => {
  redis = await startRedis();
  admin = await connectRedis(redis.url);
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-doctor-redis-"));
  await fs.mkdir(path.join(home, "skills"));
});
afterAll(async () => {
  admin.destroy();
  await redis.dispose();
  await fs.rm(home, { recursive: true, force: true });
});

/** Doctor's coordination checks for `url`. */
async function coordinationChecks(url: string) {
  await fs.writeFile(path.join(home, "config.yaml"), `gateway:\n  coordination:\n    redis_url: ${url}\n`);
  const checks = await runDoctor({ home, secret: () => undefined });
  return checks.filter((check) => check.area === "coordination");
}

async function coordinationCheck(url: string) {
  return (await coordinationChecks(url))[0];
}

describe("doctor's coordination check", () => {
  it("names a live Redis and its version", async () => {
    const check = await coordinationCheck(redis.url);
    expect(check?.status).toBe("ok");
    expect(check?.summary).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:\d+ answers \(version \d+\.\d+/);
  });

  it("fails on a URL nothing answers, with what to do", async () => {
    const check = await coordinationCheck("redis://127.0.0.1:1");
    expect(check?.status).toBe("fail");
    expect(check?.summary).toContain("127.0.0.1:1");
    expect(check?.fix).toMatch(/Start Redis/);
  });

  it("refuses an eviction policy other than noeviction, naming it, in doctor and at start", async () => {
    await admin.configSet("maxmemory-policy", "allkeys-lru");
    try {
      const check = await coordinationCheck(redis.url);
      expect(check?.status).toBe("fail");
      expect(check?.summary).toMatch(/maxmemory-policy allkeys-lru/);
      expect(check?.summary).toMatch(/noeviction/);
      expect(check?.fix).toMatch(/refuses/);
      const refused = await connectRedis(redis.url).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CoordinationError);
      expect((refused as Error).message).toMatch(/allkeys-lru.*maxmemory-policy noeviction/s);
    } finally {
      await admin.configSet("maxmemory-policy", "noeviction");
    }
  });

  it("refuses an ACL user that may not run scripts, or a command a script runs, naming it", async () => {
    await admin.sendCommand(["ACL", "SETUSER", "noeval", "on", ">pw-1", "~*", "+@all", "-eval", "-evalsha"]);
    await admin.sendCommand(["ACL", "SETUSER", "noxadd", "on", ">pw-2", "~*", "+@all", "-xadd"]);
    const url = (user: string, password: string) =>
      redis.url.replace("redis://", `redis://${user}:${password}@`);
    const noEval = await coordinationCheck(url("noeval", "pw-1"));
    expect(noEval?.status).toBe("fail");
    expect(noEval?.summary).toMatch(/may not run EVAL/);
    expect(noEval?.summary).not.toContain("pw-1");
    const noXadd = await connectRedis(url("noxadd", "pw-2")).catch((error: unknown) => error);
    expect(noXadd).toBeInstanceOf(CoordinationError);
    expect((noXadd as Error).message).toMatch(/may not run XADD;/);
  });

  it("warns, with the consequence and the grant, when the user may not list clients", async () => {
    await admin.sendCommand([
      "ACL",
      "SETUSER",
      "noclients",
      "on",
      ">pw-3",
      "~*",
      "&*",
      "+@all",
      "-client|list",
    ]);
    const checks = await coordinationChecks(redis.url.replace("redis://", "redis://noclients:pw-3@"));
    expect(checks.map((check) => check.status)).toEqual(["ok", "warn"]);
    expect(checks[1]?.summary).toMatch(
      /may not run CLIENT LIST: a crashed leader is replaced only when its lease lapses/,
    );
    expect(checks[1]?.summary).not.toContain("pw-3");
    expect(checks[1]?.fix).toMatch(/\+client\|list/);
  });

  it("warns, with the consequence, when Redis keeps no append-only file", async () => {
    expect((await coordinationCheck(redis.url))?.status).toBe("ok");
    const quiet = await runDoctor({ home, secret: () => undefined });
    expect(quiet.filter((check) => check.area === "coordination").map((check) => check.status)).toEqual([
      "ok",
    ]);
    await admin.configSet("appendonly", "no");
    const save = (await admin.configGet("save")).save ?? "";
    await admin.configSet("save", "");
    try {
      const checks = (await runDoctor({ home, secret: () => undefined })).filter(
        (check) => check.area === "coordination",
      );
      expect(checks.map((check) => check.status)).toEqual(["ok", "warn"]);
      expect(checks[1]?.summary).toMatch(/keeps nothing on disk.*acknowledged to the platforms are lost/);
      expect(checks[1]?.fix).toMatch(/appendonly yes/);
    } finally {
      await admin.configSet("appendonly", "yes");
      await admin.configSet("save", save);
      // Redis refuses to shut down while it writes the first append-only file: wait for it.
      for (let attempt = 0; attempt < 200; attempt++) {
        const info = await admin.info("persistence");
        if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
});
