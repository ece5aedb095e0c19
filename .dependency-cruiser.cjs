/**
 * The layer check: imports run one way,
 *   src/core ← src/config ← src/skills ← src/llm ← src/curator ← commands ← src/gateway ← src/cli
 * and a platform adapter (adapters/<platform>/) imports only src/core, its own folder and its SDK.
 * `adapters/index.ts` is the one list of adapters (the CLI imports it). Type-only imports count.
 * Three packages are held to the folders that need them, so coordination and platform code cannot leak
 * into the core: the Redis client (`redis`) to src/gateway/coordination/, each platform SDK to its own
 * adapter, and `node:child_process` to the two places that start a process (a detached `curator run`
 * in commands/, the background deleter of the rollback trash in src/curator/).
 * Run by `npm run check` and by test/layering.test.ts; each rule is named for the layer it guards.
 */
const above = (...layers) => `^(${layers.join("|")})`;
const CONFIG = "src/config/";
const SKILLS = "src/skills/";
const LLM = "src/llm/";
const CURATOR = "src/curator/";
const COMMANDS = "commands/";
const GATEWAY = "src/gateway/";
const CLI = "src/cli/";
const ADAPTERS = "adapters/";
/** An npm package, as resolved (`node_modules/<name>/…`) or left bare when it does not resolve. */
const npmPackage = (name) => `(^|node_modules/)${name}(/|$)`;
/** Only the folders in `allowed` may import `to`. */
const onlyFrom = (name, comment, allowed, to) => ({
  name,
  comment,
  severity: "error",
  from: { path: "^(src|commands|adapters)/", pathNot: `^(${allowed.join("|")})` },
  to,
});

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "A cycle between modules means a seam is in the wrong place; move the shared piece down.",
      severity: "error",
      from: { path: "^(src|commands|adapters)/" },
      to: { circular: true },
    },
    {
      name: "core-imports-nothing-above",
      comment: "src/core is the bottom layer: it imports only Node and its own files.",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: above(CONFIG, SKILLS, LLM, CURATOR, COMMANDS, GATEWAY, CLI, ADAPTERS) },
    },
    {
      name: "config-imports-only-core",
      comment: "src/config sits on src/core only.",
      severity: "error",
      from: { path: "^src/config/" },
      to: { path: above(SKILLS, LLM, CURATOR, COMMANDS, GATEWAY, CLI, ADAPTERS) },
    },
    {
      name: "skills-below-curator-and-llm",
      comment:
        "src/skills reads the library; the curator and the model client build on it, never the reverse.",
      severity: "error",
      from: { path: "^src/skills/" },
      to: { path: above(LLM, CURATOR, COMMANDS, GATEWAY, CLI, ADAPTERS) },
    },
    {
      name: "llm-below-curator",
      comment: "src/llm is the model client; the curator uses it, it never reaches into the curator.",
      severity: "error",
      from: { path: "^src/llm/" },
      to: { path: above(CURATOR, COMMANDS, GATEWAY, CLI, ADAPTERS) },
    },
    {
      name: "curator-below-commands",
      comment: "src/curator is library logic; commands and the gateway call it, never the reverse.",
      severity: "error",
      from: { path: "^src/curator/" },
      to: { path: above(COMMANDS, GATEWAY, CLI, ADAPTERS) },
    },
    {
      name: "commands-below-gateway",
      comment: "commands/ gets chat state through the CommandContext, never by importing the gateway.",
      severity: "error",
      from: { path: "^commands/" },
      to: { path: above(GATEWAY, CLI, ADAPTERS) },
    },
    {
      name: "gateway-below-cli",
      comment: "src/gateway runs adapters through the core Adapter contract; only the CLI picks them.",
      severity: "error",
      from: { path: "^src/gateway/" },
      to: { path: above(CLI, ADAPTERS) },
    },
    {
      name: "adapters-import-only-core",
      comment: "A platform adapter imports src/core, its own folder and its SDK; policy comes through hooks.",
      severity: "error",
      from: { path: "^adapters/([^/]+)/" },
      to: {
        // SDK subpaths such as `grammy/types` (types-only exports) resolve to their bare name.
        pathNot: [
          "^src/core/",
          "^adapters/$1/",
          "node_modules",
          "^(grammy|discord\\.js|@larksuiteoapi)(/|$)",
        ],
        dependencyTypesNot: ["core"],
      },
    },
    onlyFrom(
      "redis-only-in-coordination",
      "The Redis client is the replicas' coordination; the rest reaches it through src/gateway/coordination.",
      ["src/gateway/coordination/"],
      { path: npmPackage("(redis|@redis/[^/]+)") },
    ),
    onlyFrom(
      "grammy-only-in-telegram-adapter",
      "The Telegram SDK stays inside its adapter; the core and the gateway see the Adapter contract.",
      ["adapters/telegram/"],
      { path: npmPackage("grammy") },
    ),
    onlyFrom(
      "lark-sdk-only-in-feishu-adapter",
      "The Feishu/Lark SDK stays inside its adapter; the core and the gateway see the Adapter contract.",
      ["adapters/feishu/"],
      { path: npmPackage("@larksuiteoapi/[^/]+") },
    ),
    onlyFrom(
      "discord-js-only-in-discord-adapter",
      "The Discord SDK stays inside its adapter; the core and the gateway see the Adapter contract.",
      ["adapters/discord/"],
      { path: npmPackage("discord\\.js") },
    ),
    onlyFrom(
      "child-process-only-where-a-process-starts",
      "Starting processes is for a detached `curator run` (commands/) and the rollback trash's background deleter (src/curator/).",
      ["commands/", "src/curator/"],
      { path: "^(node:)?child_process$" },
    ),
    {
      name: "nothing-imports-tests",
      comment: "Production code never imports test/ or bench/.",
      severity: "error",
      from: { path: "^(src|commands|adapters)/" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // npm packages are cruised (not followed) so the rules below can see who imports them.
    exclude: { path: "^dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js"],
    },
  },
};
