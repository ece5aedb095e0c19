/**
 * One contract for every chat adapter: the same behaviour checks run against each platform's real SDK
 * talking to its emulator, through the real gateway, booted by the platform harness. A platform joins by
 * adding its name to `DRIVERS` in `drivers.ts`; `suite.test.ts` runs every case for every driver, and
 * `suite-self.test.ts` proves the suite fails for adapters that break the contract.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BotMessage, ChatHandles, Person, Place } from "../support/harness/index.js";
import { writeTestSkill } from "../support/platform-home.js";

export type { Person, Place, Said } from "../support/harness/index.js";

/** One running gateway with one adapter against its emulator: the harness's neutral chat handles. */
export type ContractRun = ChatHandles;
/** A message the bot sent, as a person sees it now. */
export type Seen = BotMessage;

/** One check of the contract. */
export interface ContractCase {
  name: string;
  /** The driver lacks what the case needs (said why), so it is skipped for that driver. */
  skip?(run: ContractRun): string | undefined;
  run(context: ContractContext): Promise<void>;
}

/** What a case works with. */
export interface ContractContext {
  run: ContractRun;
  home: string;
  platform: string;
}

/** The long file `/skill pdf-tools references/long.txt` shows: 400 numbered rows, over 10,000 characters. */
export function longFile(): string {
  return Array.from(
    { length: 1200 },
    (_unused, index) => `row ${String(index).padStart(4, "0")}: abcdefgh`,
  ).join("\n");
}

/** A skill file (`loud/references/announce.md`) that tries to ping everyone on every platform. */
export const LOUD_BODY =
  'Announce it: @everyone @here <at user_id="all">all</at> <at user_id="ou_boss">Boss</at> and tell them.';

/** A home with `pdf-tools` (with a long reference file), `arxiv` (disabled on the platform) and `loud`. */
export async function contractHome(): Promise<string> {
  const home = await mkdtemp(path.join(os.tmpdir(), "skillgate-contract-"));
  const pdf = await writeTestSkill(home, "documents", "pdf-tools");
  await mkdir(path.join(pdf, "references"), { recursive: true });
  await writeFile(path.join(pdf, "references", "long.txt"), longFile());
  await writeTestSkill(home, "research", "arxiv");
  const loud = await writeTestSkill(home, "social", "loud");
  await mkdir(path.join(loud, "references"), { recursive: true });
  await writeFile(path.join(loud, "references", "announce.md"), `${LOUD_BODY}\n`);
  return home;
}

/** Removes a contract home. */
export function removeContractHome(home: string): Promise<void> {
  return rm(home, { recursive: true, force: true });
}

/**
 * The config every run gets: who is who, and `arxiv` disabled on the platform under test. The reply
 * budget is raised so the long-reply case measures splitting; the budget itself has its own tests.
 */
export function contractConfig(platform: string): (ids: Record<Person, string>) => Record<string, unknown> {
  return (ids) => ({
    skills: { platform_disabled: { [platform]: ["arxiv"] } },
    gateway: {
      admins: [`${platform}:${ids.admin}`],
      allowed_users: [`${platform}:${ids.member}`],
      health: { enabled: false },
      max_reply_messages: 20,
    },
  });
}

const STATUS = /curator: (ENABLED|PAUSED|DISABLED)/;

/** Polls until `probe` gives a value; fails naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false,
  timeoutMs = 6_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`contract: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits for a bot message in `chat` (after index `since`) matching `pattern`. */
function answerIn(
  run: ContractRun,
  chat: string,
  pattern: RegExp,
  since: number,
  what: string,
): Promise<Seen> {
  return waitFor(what, () =>
    run
      .seen()
      .slice(since)
      .find((seen) => seen.chat === chat && pattern.test(seen.text)),
  );
}

/**
 * Asserts that nothing was said in `chat` because of a message: an addressed probe is sent after it by
 * the admin and answered, and the only bot message since `since` in that chat is the probe's answer
 * (each adapter hands a chat's messages to the gateway in order).
 */
async function silentSince(run: ContractRun, where: Place, since: number, why: string): Promise<void> {
  const chat = where === "dm" ? "dm:admin" : "group";
  await run.command("admin", where, "curator status");
  await answerIn(run, chat, STATUS, since, `the probe after ${why} was answered`);
  const extra = run
    .seen()
    .slice(since)
    .filter((seen) => seen.chat === chat && !STATUS.test(seen.text));
  const statuses = run
    .seen()
    .slice(since)
    .filter((seen) => seen.chat === chat && STATUS.test(seen.text));
  if (extra.length > 0 || statuses.length !== 1)
    throw new Error(
      `contract: the bot answered ${why}: ${JSON.stringify([...extra, ...statuses].map((seen) => seen.text.slice(0, 80)))}`,
    );
}

function expectThat(condition: boolean, message: string): void {
  if (!condition) throw new Error(`contract: ${message}`);
}

async function usageOf(home: string, skill: string): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(path.join(home, "skills", ".usage.json"), "utf8").catch(() => "{}");
  return (JSON.parse(text) as Record<string, Record<string, unknown>>)[skill];
}

async function curatorPaused(home: string): Promise<boolean> {
  const text = await readFile(path.join(home, "skills", ".curator_state"), "utf8").catch(() => "{}");
  return (JSON.parse(text) as { paused?: boolean }).paused === true;
}

/** Every case of the contract. */
export const CONTRACT_CASES: ContractCase[] = [
  {
    name: "answers a command in a direct chat",
    async run({ run }) {
      const since = run.seen().length;
      await run.command("admin", "dm", "curator status");
      await answerIn(run, "dm:admin", STATUS, since, "the DM command was answered");
    },
  },
  {
    name: "answers a group command addressed to the bot, in the group",
    async run({ run }) {
      const since = run.seen().length;
      await run.command("member", "group", "curator status");
      await answerIn(run, "group", STATUS, since, "the addressed group command was answered");
    },
  },
  {
    name: "stays silent on group text and commands not addressed to the bot",
    async run({ run }) {
      const since = run.seen().length;
      await run.say("admin", "group", "lunch anyone?", { addressed: false });
      await run.say("member", "group", "/curator status", { addressed: false });
      await silentSince(run, "group", since, "unaddressed group messages");
    },
  },
  {
    name: "splits a long reply into messages the platform accepts, losing nothing",
    async run({ run }) {
      const since = run.seen().length;
      await run.command("admin", "dm", "skill pdf-tools references/long.txt");
      const last = await answerIn(
        run,
        "dm:admin",
        /row 1199/,
        since,
        "the end of the long file arrived",
      ).catch((error: Error) => {
        const got = run.seen().slice(since);
        throw new Error(
          `${error.message}; got ${got.length} message(s), last: ${JSON.stringify(got.at(-1)?.text.slice(-200))}`,
        );
      });
      const parts = run
        .seen()
        .slice(since)
        .filter((seen) => seen.chat === "dm:admin");
      expectThat(
        parts.length >= 2,
        `a ${longFile().length}-character reply came as ${parts.length} message(s)`,
      );
      expectThat(
        parts.every((part) => part.text.length <= run.maxLength),
        `a part is over ${run.maxLength} characters`,
      );
      const all = parts.map((part) => part.text).join("\n");
      for (const row of ["row 0000", "row 0400", "row 0800", "row 1199"])
        expectThat(all.includes(row), `${row} is missing from the reply`);
      expectThat(last.text.includes("row 1199"), "the last row is not in the last part");
    },
  },
  {
    name: "tells a stranger their id in a direct chat, and ignores them in the group",
    async run({ run }) {
      const since = run.seen().length;
      await run.command("stranger", "dm", "curator status");
      const notice = await answerIn(run, "dm:stranger", /id/i, since, "the stranger got a notice");
      expectThat(notice.text.includes(run.idOf("stranger")), "the notice does not name the stranger's id");
      expectThat(!STATUS.test(notice.text), "the stranger was shown the curator status");
      const groupSince = run.seen().length;
      await run.command("stranger", "group", "curator status");
      await silentSince(run, "group", groupSince, "a stranger's group command");
    },
  },
  {
    name: "refuses a mutation from a read-only user and changes nothing",
    async run({ run, home }) {
      const since = run.seen().length;
      await run.command("member", "dm", "curator pin pdf-tools");
      const refusal = await answerIn(run, "dm:member", /admins only/, since, "the mutation was refused");
      expectThat(refusal.text.includes(run.idOf("member")), "the refusal does not name the user's id");
      expectThat((await usageOf(home, "pdf-tools"))?.pinned !== true, "pdf-tools was pinned anyway");
    },
  },
  {
    name: "keeps a skill disabled on this platform out of lists and refuses to load it",
    async run({ run, platform }) {
      const since = run.seen().length;
      await run.command("admin", "dm", "skill arxiv");
      const refused = await answerIn(
        run,
        "dm:admin",
        /arxiv/,
        since,
        "loading a disabled skill was answered",
      );
      expectThat(
        new RegExp(`disabled for ${platform}`).test(refused.text),
        `not refused as disabled: ${refused.text}`,
      );
      expectThat(!/Do the thing/.test(refused.text), "the disabled skill's body was shown");
      const listSince = run.seen().length;
      await run.command("admin", "dm", "skills list");
      const list = await answerIn(run, "dm:admin", /pdf-tools/, listSince, "the skill list was answered");
      expectThat(!/\barxiv\b/.test(list.text), "the skill list shows the disabled skill");
    },
  },
  {
    name: "answers a redelivered message once",
    async run({ run, home }) {
      const since = run.seen().length;
      const said = await run.command("admin", "dm", "curator pause");
      await answerIn(run, "dm:admin", /paus/i, since, "the pause was answered");
      expectThat(await curatorPaused(home), "the curator was not paused");
      const again = run.seen().length;
      await run.redeliver(said);
      await silentSince(run, "dm", again, "a redelivered message");
    },
  },
  {
    name: "never runs an edited message as a new command",
    skip: (run) => (run.edit ? undefined : "the platform does not deliver edits to bots"),
    async run({ run, home }) {
      const since = run.seen().length;
      const said = await run.say("admin", "dm", "/curator status", { addressed: true });
      await answerIn(run, "dm:admin", STATUS, since, "the first command was answered");
      const after = run.seen().length;
      await run.edit?.(said, "/curator pin loud");
      await silentSince(run, "dm", after, "an edited message");
      expectThat((await usageOf(home, "loud"))?.pinned !== true, "the edit pinned a skill");
    },
  },
  {
    name: "never pings everyone with a mention written in skill text",
    async run({ run }) {
      run.plainTextFromNowOn?.();
      const since = run.seen().length;
      await run.command("admin", "group", "skill loud references/announce.md");
      await answerIn(run, "group", /Announce it/, since, "the skill text was shown").catch((error: Error) => {
        throw new Error(`${error.message}; seen: ${JSON.stringify(run.seen().slice(since))}`);
      });
      const pinged = run
        .seen()
        .slice(since)
        .filter((seen) => seen.mentionsEveryone);
      expectThat(
        pinged.length === 0,
        `a reply pinged everyone: ${pinged.map((seen) => seen.text).join(" | ")}`,
      );
    },
  },
];
