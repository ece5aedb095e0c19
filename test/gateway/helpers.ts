/** Fixtures for the gateway tests: temp homes with skills and config, a started gateway with mock adapters. */
import { promises as fs } from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { createMockAdapter, type MockAdapter, type MockAdapterOptions } from "../../adapters/mock/index.js";
import type { CommandSpec } from "../../commands/types.js";
import { loadConfig, type SkillgateConfig } from "../../src/config/config.js";
import { isoTimestamp } from "../../src/core/fsutil.js";
import type { Adapter } from "../../src/core/message.js";
import type { CoordinationStores } from "../../src/core/stores.js";
import type { Consolidator } from "../../src/curator/types.js";
import { type ChatAgent, createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { madeForEachTest, makeTempHome, removeTempHome } from "../support/fresh-dir.js";

export const DAY = 86_400_000;
export const HOUR = 3_600_000;

/** A fresh temp home with an empty `skills/`. */
export const makeHome = (): Promise<string> => makeTempHome("skillgate-gw-");

/** Removes a temp home. */
export const removeHome = removeTempHome;

/** A fresh temp home for each test of the enclosing `describe` (or file), handed to `use`, removed after. */
export function freshHomeEachTest(use: (home: string) => void): void {
  madeForEachTest(makeHome, removeHome, use);
}

/** A fresh temp home for each test of the enclosing `describe` (or file); call the result for the current one. */
export function homeEachTest(): () => string {
  let home = "";
  freshHomeEachTest((made) => {
    home = made;
  });
  return () => home;
}

/** A skill to write. */
export interface SkillFixture {
  name: string;
  description?: string;
  category?: string;
  /** Extra frontmatter keys. */
  frontmatter?: Record<string, unknown>;
  /** Files inside the skill folder. */
  files?: Record<string, string>;
}

/** Writes `skills/[category/]name/SKILL.md` and its files. */
export async function writeSkill(home: string, skill: SkillFixture): Promise<string> {
  const dir = path.join(home, "skills", ...(skill.category ? [skill.category] : []), skill.name);
  await fs.mkdir(dir, { recursive: true });
  const frontmatter = {
    name: skill.name,
    description: skill.description ?? `${skill.name} does things`,
    ...skill.frontmatter,
  };
  await fs.writeFile(
    path.join(dir, "SKILL.md"),
    `---\n${YAML.stringify(frontmatter)}---\n\nBody of ${skill.name}.\n`,
  );
  for (const [file, text] of Object.entries(skill.files ?? {})) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), text);
  }
  return dir;
}

/** Writes config.yaml from a document and returns the parsed config. */
export async function writeConfig(home: string, doc: Record<string, unknown>): Promise<SkillgateConfig> {
  await fs.writeFile(path.join(home, "config.yaml"), YAML.stringify(doc));
  return loadConfig(path.join(home, "config.yaml"));
}

/** The gateway section most tests use: health off, admins and allowed users on the mock platform. */
export function gatewayDoc(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    admins: ["mock:admin", "telegram:admin"],
    allowed_users: ["mock:reader", "telegram:reader"],
    health: { enabled: false },
    ...extra,
  };
}

/** Writes usage records (agent-created, created long ago) so the curator manages these skills. */
export async function writeUsage(home: string, now: number, idleDays: Record<string, number>): Promise<void> {
  const records: Record<string, unknown> = {};
  for (const [name, days] of Object.entries(idleDays)) {
    const last = isoTimestamp(new Date(now - days * DAY));
    records[name] = {
      use_count: 1,
      view_count: 0,
      patch_count: 0,
      last_used_at: last,
      last_viewed_at: null,
      last_patched_at: null,
      created_at: isoTimestamp(new Date(now - 400 * DAY)),
      created_by: "agent",
      state: "active",
      pinned: false,
      archived_at: null,
    };
  }
  await fs.writeFile(path.join(home, "skills", ".usage.json"), JSON.stringify(records, null, 2));
}

/** A controllable clock. */
export class Clock {
  constructor(public ms: number) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Options of `startGateway`. */
export interface StartOptions {
  home: string;
  config: SkillgateConfig;
  adapters?: Adapter[];
  mock?: MockAdapterOptions;
  now?: () => number;
  agent?: ChatAgent;
  registry?: readonly CommandSpec[];
  consolidator?: Consolidator;
  stores?: CoordinationStores;
}

/** Writes the default gateway config (`gatewayDoc()`) into `home` and starts a gateway there over a mock adapter. */
export async function startDefaultGateway(home: string): Promise<{ gateway: Gateway; mock: MockAdapter }> {
  return startGateway({ home, config: await writeConfig(home, { gateway: gatewayDoc() }) });
}

/** Starts a gateway over a mock adapter (or the given adapters); `settle` of mocks waits for the gateway. */
export async function startGateway(options: StartOptions): Promise<{ gateway: Gateway; mock: MockAdapter }> {
  const mock = createMockAdapter(options.mock);
  const adapters = options.adapters ?? [mock];
  const gateway = createGateway({
    home: options.home,
    config: options.config,
    adapters,
    now: options.now,
    agent: options.agent,
    registry: options.registry,
    consolidator: options.consolidator,
    stores: options.stores,
  });
  for (const adapter of adapters)
    if ("settle" in adapter) (adapter as MockAdapter).settle = () => gateway.whenIdle();
  await gateway.start();
  return { gateway, mock };
}
