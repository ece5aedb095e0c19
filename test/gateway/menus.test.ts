/**
 * The native command menus are sent to a platform only when they changed: the gateway keeps a digest of
 * what each adapter was last synced with, not the catalog itself.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registry } from "../../commands/index.js";
import { silentLogger } from "../../src/core/logger.js";
import type { Adapter, CommandCatalogEntry } from "../../src/core/message.js";
import { CommandMenus } from "../../src/gateway/menus.js";
import { OutboundScrubber } from "../../src/gateway/scrub.js";
import { type ManagedSkillLibrary, openLibrary } from "../../src/skills/library.js";
import { gatewayDoc, makeHome, removeHome, writeConfig, writeSkill } from "./helpers.js";

let home: string;
let library: ManagedSkillLibrary;

beforeEach(async () => {
  home = await makeHome();
  await writeSkill(home, { name: "weather", description: "Forecasts for a city." });
});

afterEach(async () => {
  library?.close?.();
  await removeHome(home);
});

describe("command menus", () => {
  it("syncs a platform's menu once, and again only after the skills changed", async () => {
    const config = await writeConfig(home, { gateway: gatewayDoc() });
    library = openLibrary(home, config, { watch: false });
    const sent: CommandCatalogEntry[][] = [];
    const adapter = {
      platform: "telegram",
      syncCommands: async (catalog: CommandCatalogEntry[]) => {
        sent.push(catalog);
      },
    } as unknown as Adapter;
    const menus = new CommandMenus({
      config,
      adapters: [adapter],
      library,
      registry,
      scrubber: new OutboundScrubber(home, config),
      logger: silentLogger(),
    });
    await menus.sync();
    await menus.sync();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.map((entry) => entry.name)).toContain("weather");

    await writeSkill(home, { name: "wiki", description: "Wiki notes." });
    library.invalidate();
    await menus.sync();
    expect(sent).toHaveLength(2);
    expect(sent[1]?.map((entry) => entry.name)).toEqual(expect.arrayContaining(["weather", "wiki"]));
    await menus.sync();
    expect(sent).toHaveLength(2);
  });
});
