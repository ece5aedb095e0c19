/** `skillgate doctor` with `gateway.coordination`: a live Redis is named with its version; a dead URL fails with the fix. */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/doctor.js";
import { startRedis, type TestRedis } from "../support/redis.js";

let redis: TestRedis;
let home: string;
beforeAll(async () => {
  redis = await startRedis();
  home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-doctor-redis-"));
  await fs.mkdir(path.join(home, "skills"));
});
afterAll(async () => {
  await redis.dispose();
  await fs.rm(home, { recursive: true, force: true });
});

async function coordinationCheck(url: string) {
  await fs.writeFile(path.join(home, "config.yaml"), `gateway:\n  coordination:\n    redis_url: ${url}\n`);
  const checks = await runDoctor({ home, secret: () => undefined });
  return checks.find((check) => check.area === "coordination");
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
});
