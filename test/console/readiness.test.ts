/**
 * The console shows every readiness item a skill declares: a missing variable, a command not on PATH
 * and an unset setting, in the library table and on the skill page; a skill with all three satisfied
 * reads "ready".
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { MISSING_COMMAND, writeDeployer, writeTestSkill } from "../support/platform-home.js";
import { login, startTestConsole } from "./helpers.js";

describe("web console readiness", () => {
  let home: string;
  let server: ConsoleServer;
  let cookie: string;

  beforeAll(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), "skillgate-console-ready-"));
    await writeDeployer(home);
    await writeTestSkill(
      home,
      "tools",
      "keyed",
      "required_environment_variables:\n  - name: SKILLGATE_CONSOLE_TEST_UNSET_KEY\n    prompt: Key\nprerequisites:\n  commands: [node]\nmetadata:\n  hermes:\n    config:\n      - key: keyed.mode\n        description: Mode\n",
    );
    await fs.writeFile(path.join(home, "config.yaml"), "skills:\n  config:\n    keyed:\n      mode: fast\n");
    server = await startTestConsole(home);
    cookie = await login(server, "read-only");
  });

  afterAll(async () => {
    await server.close();
    await fs.rm(home, { recursive: true, force: true });
  });

  const page = async (url: string) => {
    const response = await fetch(`${server.url}${url}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    return response.text();
  };

  it("lists a missing command and an unset setting on the skill page and counts them in the library", async () => {
    const skill = await page("/skill/deployer");
    const readiness = /<dd id="skill-readiness">([^<]*)<\/dd>/.exec(skill)?.[1] ?? "";
    expect(readiness).toContain(`command ${MISSING_COMMAND} not on PATH`);
    expect(readiness).toContain("setting deployer.region not set");
    const library = await page("/library");
    const row = /<tr data-skill="deployer">[\s\S]*?<\/tr>/.exec(library)?.[0] ?? "";
    expect(row).toContain("needs 2");
  });

  it("names a missing variable, and not a command on PATH or a configured setting", async () => {
    const skill = await page("/skill/keyed");
    const readiness = /<dd id="skill-readiness">([^<]*)<\/dd>/.exec(skill)?.[1] ?? "";
    expect(readiness).toBe("variable SKILLGATE_CONSOLE_TEST_UNSET_KEY missing");
  });
});
