#!/usr/bin/env node
// Copied verbatim from the maintainers' shared recipe (seed-stable synthetic homes); not formatted by Biome.
// make-library.mjs — build a synthetic Hermes-style home for benchmarks.
//
//   node make-library.mjs <HOME_DIR> <N> [--seed S] [--now ISO] [--force]
//
// Creates, under <HOME_DIR>:
//   skills/<category>/<name>/SKILL.md      N skills over 20 categories
//   skills/<category>/<name>/references/   ~30 % of skills (1-3 .md files)
//   skills/<category>/<name>/templates/    ~10 %
//   skills/<category>/<name>/scripts/      ~10 %
//   skills/.usage.json                     one record per skill
//   skills/.bundled_manifest               ~5 % of names, `name:<md5>` lines
//   skills/.hub/lock.json                  ~3 % of names
//   cron/jobs.json                         10 jobs referencing a few skills
//   config.yaml                            curator section + skills.disabled
//                                          + skills.platform_disabled.telegram
//
// Everything is a pure function of (N, seed) except the absolute timestamps,
// which are placed 0-200 days before --now (default: the current time). Pass
// --now to get byte-identical output across runs.
//
// Plain Node.js (>= 18), no dependencies.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

// ---------------------------------------------------------------- arguments

function usage(msg) {
  if (msg) process.stderr.write(`make-library: ${msg}\n`);
  process.stderr.write(
    "usage: node make-library.mjs <HOME_DIR> <N> [--seed S] [--now ISO] [--force]\n",
  );
  process.exit(2);
}

const argv = process.argv.slice(2);
const positional = [];
let seedArg = "1";
let nowArg = null;
let force = false;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--seed") seedArg = argv[++i] ?? usage("--seed needs a value");
  else if (a.startsWith("--seed=")) seedArg = a.slice(7);
  else if (a === "--now") nowArg = argv[++i] ?? usage("--now needs a value");
  else if (a.startsWith("--now=")) nowArg = a.slice(6);
  else if (a === "--force") force = true;
  else if (a === "-h" || a === "--help") usage();
  else if (a.startsWith("--")) usage(`unknown option ${a}`);
  else positional.push(a);
}
if (positional.length !== 2) usage("expected <HOME_DIR> and <N>");
const HOME = path.resolve(positional[0]);
const N = Number.parseInt(positional[1], 10);
if (!Number.isInteger(N) || N < 1 || String(N) !== positional[1].trim()) {
  usage(`N must be a positive integer (got ${positional[1]})`);
}
const NOW_MS = nowArg === null ? Date.now() : Date.parse(nowArg);
if (!Number.isFinite(NOW_MS)) usage(`--now is not a date: ${nowArg}`);

const skillsRoot = path.join(HOME, "skills");
if (fs.existsSync(skillsRoot) && fs.readdirSync(skillsRoot).length > 0) {
  if (!force) usage(`${skillsRoot} exists and is not empty (use --force to replace it)`);
  fs.rmSync(skillsRoot, { recursive: true, force: true });
}

// ---------------------------------------------------------------- PRNG
// xmur3 string hash -> sfc32 generator. Deterministic for a given seed.

function xmur3(str) {
  let h = 1779033703 ^ str.length;
  for (let i = 0; i < str.length; i++) {
    h = Math.imul(h ^ str.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  return () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    h ^= h >>> 16;
    return h >>> 0;
  };
}

function sfc32(a, b, c, d) {
  return () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function makeRng(seed) {
  const h = xmur3(`hermes-bench:${seed}`);
  const r = sfc32(h(), h(), h(), h());
  for (let i = 0; i < 16; i++) r(); // warm up
  return r;
}

const rng = makeRng(seedArg);
const rand = () => rng();
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)); // inclusive
const chance = (p) => rand() < p;
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
function pickSome(arr, k) {
  const copy = arr.slice();
  const out = [];
  while (out.length < k && copy.length) out.push(copy.splice(Math.floor(rand() * copy.length), 1)[0]);
  return out;
}
// Skewed counter: 0 with probability pZero, otherwise a long-tailed 1..max.
function counter(pZero, max) {
  if (chance(pZero)) return 0;
  return Math.min(max, 1 + Math.floor(Math.pow(rand(), 3) * max));
}

// ---------------------------------------------------------------- vocabulary

const CATEGORIES = [
  "devops", "mlops", "data-engineering", "web-frontend", "backend-apis",
  "security", "databases", "cloud-infra", "testing", "documentation",
  "research", "productivity", "git-workflows", "observability", "mobile",
  "networking", "media-processing", "finance-ops", "hermes-config", "automation",
];

const NAME_A = [
  "docker", "kubernetes", "terraform", "ansible", "python", "typescript", "rust",
  "postgres", "redis", "kafka", "spark", "airflow", "pytorch", "llama", "gguf",
  "react", "nextjs", "vite", "graphql", "grpc", "nginx", "caddy", "aws", "gcp",
  "azure", "github", "gitlab", "slack", "discord", "telegram", "notion", "jira",
  "pdf", "ffmpeg", "whisper", "sqlite", "duckdb", "pandas", "openapi", "oauth",
  "ssh", "wireguard", "prometheus", "grafana", "sentry", "stripe", "s3", "cron",
];
const NAME_B = [
  "deploy", "debug", "migrate", "backup", "restore", "audit", "lint", "format",
  "profile", "benchmark", "release", "rollback", "monitor", "alerting", "tuning",
  "scaffold", "refactor", "upgrade", "triage", "review", "export", "import",
  "sync", "cleanup", "bootstrap", "hardening", "caching", "sharding", "indexing",
  "scraping", "parsing", "rendering", "testing", "packaging", "signing", "rotation",
  "quantize", "finetune", "evaluate", "serve",
];
const NAME_C = [
  "workflow", "playbook", "checklist", "recipe", "guide", "runbook", "pipeline",
  "helper", "patterns", "pitfalls", "setup", "basics", "advanced", "quickstart",
  "toolkit", "notes", "howto", "cookbook", "strategy", "primer",
];

const WORDS = [
  "configure", "inspect", "verify", "collect", "compare", "document", "schedule",
  "retry", "isolate", "reproduce", "measure", "summarise", "validate", "extract",
  "container", "cluster", "service", "endpoint", "schema", "table", "index",
  "request", "response", "token", "secret", "credential", "bucket", "queue",
  "worker", "job", "branch", "commit", "tag", "artifact", "image", "volume",
  "metric", "trace", "log", "alert", "dashboard", "threshold", "budget", "quota",
  "latency", "throughput", "memory", "disk", "network", "timeout", "fallback",
  "cache", "snapshot", "manifest", "lockfile", "dependency", "version", "release",
  "staging", "production", "local", "remote", "upstream", "downstream", "batch",
  "stream", "payload", "header", "cookie", "session", "user", "team", "project",
  "carefully", "quickly", "safely", "incrementally", "idempotently", "first",
  "then", "before", "after", "when", "unless", "always", "never", "only", "the",
  "a", "each", "every", "with", "without", "from", "into", "over", "per", "and",
  "or", "but", "so", "because", "this", "that", "these", "its", "their", "our",
];
const DESC_OPENERS = [
  "Use when", "Helps", "Step-by-step workflow to", "Checklist for", "Guide to",
  "Practical recipe to", "Notes on how to", "Playbook for teams that need to",
  "Patterns and pitfalls when you", "Quick way to",
];
const REF_NAMES = [
  "api", "examples", "troubleshooting", "faq", "glossary", "architecture",
  "checklist", "changelog", "limits", "commands",
];
const TEMPLATE_NAMES = ["template.md", "config.yaml", "report.md", "prompt.md", "payload.json"];
const SCRIPT_NAMES = ["run.sh", "check.py", "setup.sh", "validate.py", "probe.js"];
const ENV_VARS = [
  "GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID",
  "SLACK_BOT_TOKEN", "NOTION_API_KEY", "STRIPE_SECRET_KEY", "SENTRY_DSN",
  "DATABASE_URL", "REDIS_URL", "JIRA_API_TOKEN", "GRAFANA_API_KEY",
];
const LICENSES = ["MIT", "Apache-2.0", "BSD-3-Clause"];

function sentence(minWords, maxWords) {
  const n = randInt(minWords, maxWords);
  const w = [];
  for (let i = 0; i < n; i++) w.push(pick(WORDS));
  const s = w.join(" ");
  return s.charAt(0).toUpperCase() + s.slice(1) + ".";
}

// Text of exactly [lo, hi] characters built from whole words where possible.
function description(name) {
  const target = randInt(80, 300);
  let s = `${pick(DESC_OPENERS)} ${name.replace(/-/g, " ")}`;
  while (s.length < target) {
    s += !s.endsWith(".") && chance(0.15) ? ", " : " ";
    s += pick(WORDS);
    if (chance(0.08)) s += ".";
  }
  if (s.length > target) {
    s = s.slice(0, target);
    const sp = s.lastIndexOf(" ");
    if (sp >= 80) s = s.slice(0, sp);
  }
  s = s.replace(/[ ,.]+$/, "");
  while (s.length < 80) s += " " + pick(["now", "here", "fast", "ok"]).slice(0, 80 - s.length);
  if (!s.endsWith(".")) s = s.length < 300 ? s + "." : s.slice(0, 299) + ".";
  return s;
}

function paragraph(minS, maxS) {
  const n = randInt(minS, maxS);
  const out = [];
  for (let i = 0; i < n; i++) out.push(sentence(6, 18));
  return out.join(" ");
}

const CODE_SNIPPETS = [
  (n) => "```bash\nset -euo pipefail\n" + `echo "running ${n}"\n` + "ls -la \"${HERMES_SKILL_DIR}\"\n```",
  (n) => "```python\nimport json, pathlib\n\n" + `def main():\n    data = json.loads(pathlib.Path("${n}.json").read_text())\n    print(len(data))\n` + "```",
  (n) => "```yaml\n" + `name: ${n}\nretries: 3\ntimeout_s: 30\n` + "```",
  (n) => "```sql\nSELECT id, created_at FROM events\nWHERE kind = 'deploy'\nORDER BY created_at DESC\nLIMIT 20;\n```",
  (n) => "```json\n" + JSON.stringify({ skill: n, enabled: true, limits: { rpm: 60 } }, null, 2) + "\n```",
];

function body(name, title, targetBytes, linked) {
  const parts = [`# ${title}`, "", paragraph(2, 4), ""];
  parts.push("## When to use", "");
  for (let i = randInt(2, 4); i > 0; i--) parts.push(`- ${sentence(5, 12)}`);
  parts.push("");
  if (linked.length) {
    parts.push("## Linked files", "");
    for (const f of linked) parts.push(`- \`${f}\``);
    parts.push("");
  }
  parts.push("## Steps", "");
  let step = 1;
  const sections = ["## Pitfalls", "## Verification", "## Notes", "## Examples", "## Troubleshooting"];
  let sectionIdx = 0;
  let size = Buffer.byteLength(parts.join("\n"), "utf8");
  while (size < targetBytes) {
    const r = rand();
    let add;
    if (r < 0.5) add = [`${step++}. ${sentence(6, 20)}`];
    else if (r < 0.7) add = ["", pick(CODE_SNIPPETS)(name), ""];
    else if (r < 0.85) add = ["", paragraph(1, 3), ""];
    else if (sectionIdx < sections.length) add = ["", sections[sectionIdx++], ""];
    else add = [`- ${sentence(5, 14)}`];
    parts.push(...add);
    size += Buffer.byteLength(add.join("\n"), "utf8") + 1;
  }
  // Trim back to at most targetBytes (ASCII only, so chars == bytes), ending
  // on a line break when one is close, else on a word boundary.
  let text = parts.join("\n").slice(0, targetBytes - 1);
  const nl = text.lastIndexOf("\n");
  if (nl > targetBytes - 150) text = text.slice(0, nl);
  else text = text.slice(0, text.lastIndexOf(" "));
  return text.replace(/\s+$/, "") + "\n";
}

// ---------------------------------------------------------------- YAML helpers

const yq = (s) => JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar
const yList = (arr) => `[${arr.join(", ")}]`;

// ---------------------------------------------------------------- time helpers

const DAY_MS = 86400000;
// Python-style isoformat with microseconds and +00:00.
function iso(ms, micros) {
  const d = new Date(Math.floor(ms));
  const base = d.toISOString().slice(0, 19);
  const us = String(micros ?? randInt(0, 999999)).padStart(6, "0");
  return `${base}.${us}+00:00`;
}
const daysAgo = (days) => NOW_MS - days * DAY_MS;

// ---------------------------------------------------------------- build skills

const usedNames = new Set(CATEGORIES);
function makeName() {
  for (let tries = 0; tries < 20; tries++) {
    const parts = [pick(NAME_A), pick(NAME_B)];
    if (chance(0.6)) parts.push(pick(NAME_C));
    const n = parts.join("-");
    if (!usedNames.has(n)) { usedNames.add(n); return n; }
  }
  let k = 2;
  const base = `${pick(NAME_A)}-${pick(NAME_B)}-${pick(NAME_C)}`;
  while (usedNames.has(`${base}-${k}`)) k++;
  usedNames.add(`${base}-${k}`);
  return `${base}-${k}`;
}

const md5 = (s) => createHash("md5").update(s).digest("hex");
const sha256 = (s) => createHash("sha256").update(s).digest("hex");

function writeFile(p, content, mode) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  if (mode) fs.chmodSync(p, mode);
}

const skills = []; // {name, category, rel, kind}
let totalBytes = 0;
let fileCount = 0;

fs.mkdirSync(skillsRoot, { recursive: true });

for (let i = 0; i < N; i++) {
  const name = makeName();
  // Spread over categories unevenly (a few big ones, a long tail), yet every
  // category gets skills once N >= 20.
  const cat = i < CATEGORIES.length ? CATEGORIES[i] : (chance(0.5) ? CATEGORIES[randInt(0, 5)] : pick(CATEGORIES));
  const dir = path.join(skillsRoot, cat, name);
  const rel = `${cat}/${name}`;
  const title = name.split("-").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");

  // Support files first, so SKILL.md can list them.
  const linked = [];
  if (chance(0.3)) {
    for (const r of pickSome(REF_NAMES, randInt(1, 3))) {
      const f = `references/${r}.md`;
      const content = `# ${title} — ${r}\n\n` + Array.from({ length: randInt(2, 10) }, () => paragraph(2, 5)).join("\n\n") + "\n";
      writeFile(path.join(dir, f), content);
      totalBytes += Buffer.byteLength(content); fileCount++;
      linked.push(f);
    }
  }
  if (chance(0.1)) {
    for (const t of pickSome(TEMPLATE_NAMES, randInt(1, 2))) {
      const f = `templates/${t}`;
      let content;
      if (t.endsWith(".json")) content = JSON.stringify({ skill: name, fields: pickSome(WORDS, 5) }, null, 2) + "\n";
      else if (t.endsWith(".yaml")) content = `skill: ${name}\nsteps:\n` + pickSome(WORDS, 4).map((w) => `  - ${w}`).join("\n") + "\n";
      else content = `# ${title} template\n\n{{summary}}\n\n${paragraph(1, 3)}\n`;
      writeFile(path.join(dir, f), content);
      totalBytes += Buffer.byteLength(content); fileCount++;
      linked.push(f);
    }
  }
  if (chance(0.1)) {
    for (const s of pickSome(SCRIPT_NAMES, randInt(1, 2))) {
      const f = `scripts/${s}`;
      let content;
      if (s.endsWith(".sh")) content = `#!/usr/bin/env bash\nset -euo pipefail\n# ${name}: ${sentence(4, 10)}\necho "${name} ok"\n`;
      else if (s.endsWith(".py")) content = `#!/usr/bin/env python3\n"""${name}: ${sentence(4, 10)}"""\nimport sys\n\nprint("${name} ok", sys.argv[1:])\n`;
      else content = `#!/usr/bin/env node\n// ${name}: ${sentence(4, 10)}\nconsole.log("${name} ok");\n`;
      writeFile(path.join(dir, f), content, 0o755);
      totalBytes += Buffer.byteLength(content); fileCount++;
      linked.push(f);
    }
  }

  // Frontmatter.
  const desc = description(name);
  const fm = ["---", `name: ${name}`];
  // Mostly double-quoted; some plain scalars (safe: no ": ", no " #").
  fm.push(chance(0.7) ? `description: ${yq(desc)}` : `description: ${desc}`);
  fm.push(`version: ${randInt(0, 3)}.${randInt(0, 12)}.${randInt(0, 20)}`);
  if (chance(0.4)) fm.push(`author: ${pick(["hermes-agent", "curator", "ops-team", "data-team"])}`);
  if (chance(0.3)) fm.push(`license: ${pick(LICENSES)}`);
  let platforms = null;
  if (chance(0.1)) {
    const r = rand();
    platforms = r < 0.5 ? ["linux", "macos"] : r < 0.75 ? ["macos"] : r < 0.9 ? ["linux"] : ["windows"];
    fm.push(`platforms: ${yList(platforms)}`);
  }
  if (chance(0.08)) {
    fm.push("required_environment_variables:");
    for (const v of pickSome(ENV_VARS, randInt(1, 2))) {
      fm.push(`  - name: ${v}`);
      fm.push(`    prompt: ${yq(`Enter your ${v.toLowerCase().replace(/_/g, " ")}`)}`);
      if (chance(0.6)) fm.push(`    help: ${yq(`Create one in the provider console, then store it as ${v}.`)}`);
      if (chance(0.3)) fm.push(`    required_for: ${yq("full functionality")}`);
    }
  }
  fm.push("metadata:", "  hermes:");
  const tags = pickSome([...name.split("-"), cat, ...pickSome(WORDS.slice(0, 80), 3)], randInt(2, 5));
  fm.push(`    tags: ${yList([...new Set(tags)])}`);
  if (chance(0.25) && skills.length > 2) {
    fm.push(`    related_skills: ${yList(pickSome(skills.slice(-50), randInt(1, 3)).map((s) => s.name))}`);
  }
  fm.push("---", "");
  // Body (after the frontmatter) of 1-6 KB.
  const text = fm.join("\n") + body(name, title, randInt(1200, 6144), linked);
  writeFile(path.join(dir, "SKILL.md"), text);
  totalBytes += Buffer.byteLength(text); fileCount++;

  skills.push({ name, category: cat, rel, platforms, skillMd: text });
}

// ---------------------------------------------------------------- provenance

// Disjoint sets: ~5 % bundled, ~3 % hub-installed.
const order = skills.map((_, i) => i);
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [order[i], order[j]] = [order[j], order[i]];
}
const nBundled = Math.max(1, Math.round(N * 0.05));
const nHub = Math.max(1, Math.round(N * 0.03));
const bundled = new Set(order.slice(0, nBundled));
const hub = new Set(order.slice(nBundled, nBundled + nHub));
for (const i of bundled) skills[i].kind = "bundled";
for (const i of hub) skills[i].kind = "hub";

const manifestLines = [...bundled]
  .map((i) => skills[i])
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  .map((s) => `${s.name}:${md5(s.skillMd)}`);
writeFile(path.join(skillsRoot, ".bundled_manifest"), manifestLines.join("\n") + "\n");

const installed = {};
for (const i of [...hub].sort((a, b) => a - b)) {
  const s = skills[i];
  const when = iso(daysAgo(rand() * 200));
  installed[s.name] = {
    source: pick(["github", "skills.sh", "clawhub", "lobehub"]),
    identifier: `${pick(["acme", "nous", "community", "labs"])}/skills/${s.name}`,
    trust_level: pick(["community", "trusted", "builtin"]),
    scan_verdict: pick(["safe", "safe", "safe", "caution"]),
    content_hash: `sha256:${sha256(s.skillMd)}`,
    install_path: s.rel,
    files: ["SKILL.md"],
    metadata: {},
    scan_provenance: { scanner: "skills_guard", version: 1 },
    installed_at: when,
    updated_at: when,
  };
}
writeFile(path.join(skillsRoot, ".hub", "lock.json"), JSON.stringify({ version: 1, installed }, null, 2) + "\n");

// ---------------------------------------------------------------- usage sidecar

// created_by "agent" for ~60 % overall (65 % of the non-bundled, non-hub rest).
// Timestamps: created 0-200 days ago; each activity kind (use/view/patch) has a
// timestamp between created_at and now when its counter is non-zero.
const usageMap = {};
for (const s of skills) {
  const agent = !s.kind && chance(0.65);
  const createdAge = rand() * 200;
  const use = counter(0.3, 200);
  const view = counter(0.2, 300);
  const patch = counter(0.6, 20);
  const ts = (n) => (n > 0 ? iso(daysAgo(rand() * createdAge)) : null);
  const pinned = chance(0.05);
  const state = agent && chance(0.1) ? "stale" : "active";
  usageMap[s.name] = {
    archived_at: null,
    created_at: iso(daysAgo(createdAge)),
    created_by: agent ? "agent" : null,
    last_patched_at: ts(patch),
    last_used_at: ts(use),
    last_viewed_at: ts(view),
    patch_count: patch,
    pinned,
    state,
    use_count: use,
    view_count: view,
  };
  s.agent = agent;
  s.pinned = pinned;
}
// Python writes it with indent=2, sort_keys=True.
const sortedUsage = {};
for (const k of Object.keys(usageMap).sort()) sortedUsage[k] = usageMap[k];
writeFile(path.join(skillsRoot, ".usage.json"), JSON.stringify(sortedUsage, null, 2));

// ---------------------------------------------------------------- cron jobs

const SCHEDULES = [
  { kind: "cron", expr: "0 9 * * *", display: "0 9 * * *" },
  { kind: "cron", expr: "*/30 * * * *", display: "*/30 * * * *" },
  { kind: "interval", minutes: 60, display: "every 60m" },
  { kind: "interval", minutes: 1440, display: "every 1440m" },
  { kind: "cron", expr: "0 18 * * 1-5", display: "0 18 * * 1-5" },
];
const jobs = [];
for (let j = 0; j < 10; j++) {
  const refs = pickSome(skills, randInt(0, 3)).map((s) => s.name);
  const sched = pick(SCHEDULES);
  const enabled = !chance(0.2);
  const created = iso(daysAgo(rand() * 120));
  jobs.push({
    id: sha256(`${seedArg}:job:${j}`).slice(0, 12),
    name: `job-${j + 1} ${refs[0] ?? "reminder"}`.slice(0, 50),
    prompt: sentence(8, 20),
    skills: refs,
    skill: refs[0] ?? null,
    model: null,
    provider: null,
    base_url: null,
    script: null,
    no_agent: false,
    context_from: null,
    schedule: sched,
    schedule_display: sched.display,
    repeat: { times: null, completed: randInt(0, 40) },
    enabled,
    state: enabled ? "scheduled" : "paused",
    paused_at: enabled ? null : iso(daysAgo(rand() * 10)),
    paused_reason: enabled ? null : "paused by user",
    created_at: created,
    next_run_at: iso(NOW_MS + randInt(1, 1440) * 60000),
    last_run_at: chance(0.7) ? iso(daysAgo(rand() * 2)) : null,
    last_status: pick(["ok", "ok", "error", null]),
    last_error: null,
    last_delivery_error: null,
    deliver: pick(["origin", "local", "telegram"]),
    origin: null,
    enabled_toolsets: null,
    workdir: null,
    profile: null,
  });
}
writeFile(
  path.join(HOME, "cron", "jobs.json"),
  JSON.stringify({ jobs, updated_at: iso(NOW_MS) }, null, 2),
);

// ---------------------------------------------------------------- config.yaml

const names = skills.map((s) => s.name);
const disabled = pickSome(names, Math.max(1, Math.round(N * 0.01))).sort();
const tgDisabled = pickSome(names, Math.max(1, Math.round(N * 0.02))).sort();
const cfg = [
  "# synthetic Hermes home for benchmarks (make-library.mjs)",
  "model:",
  "  default: test/model",
  "  provider: auto",
  "curator:",
  "  enabled: true",
  "  interval_hours: 168",
  "  min_idle_hours: 2",
  "  stale_after_days: 30",
  "  archive_after_days: 90",
  "  consolidate: false",
  "  prune_builtins: true",
  "  backup:",
  "    enabled: true",
  "    keep: 5",
  "skills:",
  "  disabled:",
  ...disabled.map((n) => `    - ${n}`),
  "  platform_disabled:",
  "    telegram:",
  ...tgDisabled.map((n) => `      - ${n}`),
  "",
];
writeFile(path.join(HOME, "config.yaml"), cfg.join("\n"));

// ---------------------------------------------------------------- summary

const summary = {
  home: HOME,
  n: N,
  seed: seedArg,
  now: new Date(NOW_MS).toISOString(),
  categories: new Set(skills.map((s) => s.category)).size,
  files: fileCount,
  bytes: totalBytes,
  agent_created: skills.filter((s) => s.agent).length,
  pinned: skills.filter((s) => s.pinned).length,
  bundled: nBundled,
  hub: nHub,
  with_platforms: skills.filter((s) => s.platforms).length,
  not_on_linux: skills.filter((s) => s.platforms && !s.platforms.includes("linux")).length,
  disabled: disabled.length,
  telegram_disabled: tgDisabled.length,
  cron_jobs: jobs.length,
  cron_refs: [...new Set(jobs.flatMap((j) => j.skills))].length,
};
process.stdout.write(JSON.stringify(summary) + "\n");
