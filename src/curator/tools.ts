/**
 * The skill tools offered to a model — `skills_list`, `skill_view` and (for the curator) `skill_manage`
 * — as OpenAI function definitions plus one dispatcher that runs a tool call and returns the JSON text
 * the model reads. Progressive disclosure: list names and descriptions, view one skill, then view one of
 * its linked files with `file_path`.
 */

import { homePaths } from "../config/home.js";
import { isoTimestamp } from "../core/fsutil.js";
import type { ToolCall, ToolDefinition } from "../llm/client.js";
import { searchSkills } from "../skills/search.js";
import { activationBlocker, type ToolSet } from "../skills/settings.js";
import type { SkillLibrary } from "../skills/types.js";
import { UsageStore } from "../skills/usage.js";
import { emptyRecord } from "../skills/usage-record.js";
import { type ManageContext, recordView, skillManage } from "./manage.js";

/** Names of the skill tools. */
export type SkillToolName = "skills_list" | "skills_search" | "skill_view" | "skill_manage";

const LIST_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "skills_list",
    description:
      "List the available skills (name, description, category). Cheap: call it first, then skill_view the ones that matter.",
    parameters: {
      type: "object",
      properties: { category: { type: "string", description: "Only skills in this category." } },
      additionalProperties: false,
    },
  },
};

const SEARCH_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "skills_search",
    description:
      "Find skills by what they do (English or Chinese words, typos in names tolerated): the best matches first, with name, description, category, tags and related skills. Use it instead of skills_list in a large library.",
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "Words describing the task." },
        limit: { type: "integer", description: "Most results (default 10, at most 50)." },
      },
      required: ["query"],
      additionalProperties: false,
    },
  },
};

const VIEW_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "skill_view",
    description:
      "Read a skill: without file_path its whole SKILL.md plus the list of linked files; with file_path one linked file (e.g. references/api.md).",
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", description: "Skill name as skills_list shows it." },
        file_path: { type: "string", description: "A file inside the skill, relative to its folder." },
      },
      required: ["name"],
      additionalProperties: false,
    },
  },
};

const MANAGE_TOOL: ToolDefinition = {
  type: "function",
  function: {
    name: "skill_manage",
    description: [
      "Change the skill library. Actions:",
      "create(name, content[, category]) — new skill; content is the whole SKILL.md with frontmatter name and description.",
      "edit(name, content) — replace SKILL.md.",
      "patch(name, old_string, new_string[, file_path, replace_all]) — exact text replacement.",
      "write_file(name, file_path, file_content) — add or replace a file under references/, templates/, scripts/ or assets/.",
      "remove_file(name, file_path) — remove such a file.",
      'delete(name, absorbed_into) — retire a skill: absorbed_into names the umbrella that now holds its content, or "" to prune it as obsolete.',
      "View a skill (or the file) with skill_view before changing it.",
    ].join("\n"),
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: ["create", "edit", "patch", "write_file", "remove_file", "delete"] },
        name: { type: "string" },
        content: { type: "string" },
        category: { type: "string" },
        old_string: { type: "string" },
        new_string: { type: "string" },
        replace_all: { type: "boolean" },
        file_path: { type: "string" },
        file_content: { type: "string" },
        absorbed_into: { type: "string" },
      },
      required: ["action", "name"],
      additionalProperties: false,
    },
  },
};

/** The toolset each skill tool belongs to (skills may require or fall back for toolsets by these names). */
const TOOLSET_OF: Record<SkillToolName, string> = {
  skills_list: "skills",
  skills_search: "skills",
  skill_view: "skills",
  skill_manage: "skills",
};

/** The tool set a runtime offering `names` has: its tool names and their toolsets. */
export function toolSetOf(names: readonly SkillToolName[]): ToolSet {
  return { tools: new Set(names), toolsets: new Set(names.map((name) => TOOLSET_OF[name])) };
}

/** The definitions for the given tool names, in that order. */
export function toolDefinitions(names: SkillToolName[]): ToolDefinition[] {
  const all: Record<SkillToolName, ToolDefinition> = {
    skills_list: LIST_TOOL,
    skills_search: SEARCH_TOOL,
    skill_view: VIEW_TOOL,
    skill_manage: MANAGE_TOOL,
  };
  return names.map((name) => all[name]);
}

/** How tool calls run. */
export interface ToolRuntime {
  library: SkillLibrary;
  home: string;
  /** The chat platform whose visibility applies, or null (terminal / curator). */
  platform: string | null;
  /** Tools this runtime accepts; any other name is refused. */
  allowed: SkillToolName[];
  /** Count a view and a use of the skill for each successful view (the chat agent does; the curator does not). */
  countUsage: boolean;
  /** Needed for `skill_manage` and read-before-write tracking. */
  manage?: ManageContext;
  /**
   * When set, `skills_list` leaves out skills whose conditional activation (`requires_*`,
   * `fallback_for_*`) rules them out for this tool set.
   */
  activation?: ToolSet;
  /** Called after each successful skill view (e.g. to collect setup hints). */
  onView?: (name: string, result: Record<string, unknown>) => void;
}

/** Result of one tool call: the JSON text for the model, plus the parsed arguments for audit. */
export interface ToolOutcome {
  name: string;
  arguments: Record<string, unknown>;
  /** The raw argument text when it was not valid JSON. */
  rawArguments?: string;
  output: Record<string, unknown>;
}

/** Runs one tool call. Never throws for model mistakes: they come back as `{success:false, error}`. */
export async function runToolCall(runtime: ToolRuntime, call: ToolCall): Promise<ToolOutcome> {
  const name = call.function.name;
  let args: Record<string, unknown> = {};
  let rawArguments: string | undefined;
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || "{}");
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      args = parsed as Record<string, unknown>;
    else rawArguments = call.function.arguments;
  } catch {
    rawArguments = call.function.arguments;
  }
  const base = { name, arguments: args, ...(rawArguments !== undefined ? { rawArguments } : {}) };
  if (!(runtime.allowed as string[]).includes(name)) {
    return {
      ...base,
      output: { success: false, error: `unknown tool '${name}'; available: ${runtime.allowed.join(", ")}` },
    };
  }
  if (rawArguments !== undefined) {
    return {
      ...base,
      output: {
        success: false,
        error: "arguments were not a JSON object; call the tool again with valid JSON",
      },
    };
  }
  try {
    return { ...base, output: await execute(runtime, name as SkillToolName, args) };
  } catch (error) {
    return { ...base, output: { success: false, error: `tool failed: ${(error as Error).message}` } };
  }
}

async function execute(
  runtime: ToolRuntime,
  name: SkillToolName,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  switch (name) {
    case "skills_list": {
      const category = typeof args.category === "string" && args.category !== "" ? args.category : undefined;
      const result = await runtime.library.list({ category, platform: runtime.platform });
      if (!runtime.activation || !result.skills) return { ...result };
      const usable = await usableNames(runtime.library, runtime.platform, runtime.activation);
      const skills = result.skills.filter((skill) => usable.has(skill.name));
      return { ...result, skills, count: skills.length };
    }
    case "skills_search": {
      if (typeof args.query !== "string" || args.query.trim() === "")
        return { success: false, error: "query is required" };
      const limit = typeof args.limit === "number" ? Math.min(Math.max(Math.trunc(args.limit), 1), 50) : 10;
      let hits = await searchSkills(runtime.library, args.query, {
        platform: runtime.platform,
        limit: runtime.activation ? limit * 2 : limit,
      });
      if (runtime.activation) {
        const usable = await usableNames(runtime.library, runtime.platform, runtime.activation);
        hits = hits.filter((hit) => usable.has(hit.name)).slice(0, limit);
      }
      return {
        success: true,
        query: args.query,
        count: hits.length,
        results: hits.map((hit) => ({
          name: hit.name,
          description: hit.description,
          category: hit.category,
          tags: hit.tags,
          related_skills: hit.related,
        })),
        hint: "Use skill_view(name) to read one.",
      };
    }
    case "skill_view": {
      if (typeof args.name !== "string" || args.name === "")
        return { success: false, error: "name is required" };
      const filePath =
        typeof args.file_path === "string" && args.file_path !== "" ? args.file_path : undefined;
      const result = await runtime.library.view(args.name, {
        filePath,
        platform: runtime.platform,
        bumpView: false,
      });
      if (result.success) {
        const skillName = typeof result.name === "string" ? result.name : args.name;
        if (runtime.manage) recordView(runtime.manage.session, skillName, filePath);
        if (runtime.countUsage) await countView(runtime.home, skillName);
        runtime.onView?.(skillName, result);
      }
      return result;
    }
    case "skill_manage": {
      if (!runtime.manage) return { success: false, error: "skill_manage is not available here" };
      return { ...(await skillManage(runtime.manage, args)) };
    }
  }
}

/** One view through the tool counts a view and a use (reference: the tool handler bumps both). */
async function countView(home: string, name: string): Promise<void> {
  const stamp = isoTimestamp(new Date());
  await new UsageStore(homePaths(home).skills).update((records) => {
    const record = records[name] ?? emptyRecord(stamp);
    record.view_count += 1;
    record.last_viewed_at = stamp;
    record.use_count += 1;
    record.last_used_at = stamp;
    records[name] = record;
  });
}

/** Names of the skills visible on `platform` whose conditional activation allows `toolSet`. */
export async function usableNames(
  library: SkillLibrary,
  platform: string | null,
  toolSet: ToolSet,
): Promise<Set<string>> {
  const visible = await library.visible(platform);
  return new Set(
    visible
      .filter((entry) => activationBlocker(entry.frontmatter, toolSet) === null)
      .map((entry) => entry.name),
  );
}
