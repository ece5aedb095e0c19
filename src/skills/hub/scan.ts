/**
 * The scan a hub package goes through in quarantine before it may land in the library. It follows the
 * rule families of Hermes' guard (`tools/skills_guard.py`: `THREAT_PATTERNS`, `_check_structure`,
 * `_determine_verdict`) with skillgate's own patterns: prompt-injection phrases, exfiltration of secrets,
 * destructive and download-and-run shell commands, persistence, hidden and bidirectional characters,
 * symlinks and paths out of the package, binaries, and oversize files. A critical finding makes the verdict
 * `dangerous`, a high one `caution`; medium and low ones are told but leave it `safe` (Hermes' rule).
 */
import path from "node:path";
import type { PackageFile, ScanFinding, ScanProvenance, TrustLevel, Verdict } from "./format.js";
import { packageDigest } from "./format.js";

/** The scanner's name and version, recorded in each lock entry's `scan_provenance`. */
export const SCANNER_VERSION = "skillgate-hub-scan-v1";

/** Most files a package may hold before the scan says so. */
export const MAX_PACKAGE_FILES = 50;
/** Largest single file (bytes) before the scan says so. */
export const MAX_FILE_BYTES = 256 * 1024;
/** Largest package (bytes) before the scan says so. */
export const MAX_PACKAGE_BYTES = 5 * 1024 * 1024;

type Severity = ScanFinding["severity"];

interface Rule {
  id: string;
  severity: Severity;
  category: string;
  pattern: RegExp;
  description: string;
}

const SECRET_NAME = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b`;

/** Line rules, by family. */
const RULES: readonly Rule[] = [
  // prompt injection
  rule(
    "injection_ignore_instructions",
    "critical",
    "injection",
    /\bignore\s+(?:\w+\s+){0,4}(?:previous|prior|above|all)\s+(?:\w+\s+)?instructions\b/i,
    "tells the agent to ignore its instructions",
  ),
  rule(
    "injection_disregard_rules",
    "critical",
    "injection",
    /\bdisregard\s+(?:\w+\s+){0,4}(?:rules|instructions|guidelines)\b/i,
    "tells the agent to disregard its rules",
  ),
  rule(
    "injection_system_prompt",
    "critical",
    "injection",
    /\b(?:override|reveal|print|output)\s+(?:\w+\s+){0,3}system\s+prompt\b/i,
    "targets the system prompt",
  ),
  rule(
    "injection_role_hijack",
    "high",
    "injection",
    /\byou\s+are\s+(?:\w+\s+){0,3}now\s+/i,
    "tries to give the agent another role",
  ),
  rule(
    "injection_hide_from_user",
    "high",
    "injection",
    /\b(?:do\s+not|don't|never)\s+(?:\w+\s+){0,3}(?:tell|inform|show)\s+(?:\w+\s+){0,2}the\s+user\b/i,
    "tells the agent to hide something from the user",
  ),
  rule(
    "injection_no_restrictions",
    "critical",
    "injection",
    /\b(?:without|no)\s+(?:any\s+)?(?:restrictions|safety\s+filters|limitations)\b.*\b(?:respond|answer|act)\b|\b(?:respond|answer|act)\b.*\bwithout\s+(?:any\s+)?(?:restrictions|safety|filters)\b/i,
    "asks the agent to drop its limits",
  ),
  rule(
    "injection_html_comment",
    "high",
    "injection",
    /<!--[^>]*\b(?:ignore|override|system|secret|hidden)\b[^>]*-->/i,
    "instructions hidden in an HTML comment",
  ),
  // exfiltration
  rule(
    "exfil_curl_secret",
    "critical",
    "exfiltration",
    new RegExp(String.raw`\b(?:curl|wget)\b[^\n]*${SECRET_NAME}`, "i"),
    "a download command carrying a secret variable",
  ),
  rule(
    "exfil_env_file",
    "critical",
    "exfiltration",
    /\bcat\s+(?!>)[^\n]*(?:\.env\b|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc)/i,
    "reads a secrets file",
  ),
  rule(
    "exfil_hermes_env",
    "critical",
    "exfiltration",
    /(?:\$HOME|~)\/\.hermes\/\.env\b/,
    "names the agent's secrets file",
  ),
  rule(
    "exfil_subst_secrets",
    "critical",
    "exfiltration",
    /\$\(\s*cat\s+[^)]*(?:\.env|credentials|\.ssh|id_rsa)[^)]*\)/i,
    "puts a secrets file into a command line",
  ),
  rule(
    "exfil_ssh_dir",
    "high",
    "exfiltration",
    /(?:\$HOME|~)\/\.(?:ssh|aws|gnupg|kube|docker)\b/,
    "names a credentials folder",
  ),
  rule(
    "exfil_env_dump",
    "high",
    "exfiltration",
    /\bprintenv\b|\benv\s*\|/,
    "dumps every environment variable",
  ),
  rule(
    "exfil_webhook_service",
    "high",
    "exfiltration",
    /\b(?:webhook\.site|requestbin\.com|pipedream\.net|hookbin\.com)\b/i,
    "names a data-collection service",
  ),
  rule(
    "exfil_send_to_url",
    "high",
    "exfiltration",
    /\b(?:send|post|upload|transmit)\b[^\n]*\b(?:to|at)\s+https?:\/\//i,
    "tells the agent to send data to a URL",
  ),
  // destructive commands
  rule(
    "destructive_rm_root",
    "critical",
    "destructive",
    /\brm\s+-[a-z]*r[a-z]*f?[a-z]*\s+(?:--no-preserve-root\s+)?\/(?!tmp\b|var\/tmp\b)(?:\s|\*|$)/i,
    "recursive delete from the root",
  ),
  rule(
    "destructive_rm_home",
    "critical",
    "destructive",
    /\brm\s+-[a-z]*r[a-z]*\s+[^\n]*(?:\$HOME|~\/?(?:\s|$))/i,
    "recursive delete of the home folder",
  ),
  rule(
    "destructive_mkfs",
    "critical",
    "destructive",
    /\bmkfs(?:\.\w+)?\b|\bdd\s+[^\n]*\bof=\/dev\//,
    "formats or overwrites a disk",
  ),
  rule(
    "destructive_etc_write",
    "critical",
    "destructive",
    />\s*\/etc\//,
    "writes a system configuration file",
  ),
  rule(
    "destructive_chmod_777",
    "medium",
    "destructive",
    /\bchmod\s+(?:-R\s+)?777\b/,
    "makes files writable by everyone",
  ),
  // download and run
  rule(
    "supply_curl_pipe_shell",
    "critical",
    "supply_chain",
    /\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b/i,
    "downloads and runs a script",
  ),
  rule(
    "supply_curl_pipe_interpreter",
    "critical",
    "supply_chain",
    /\b(?:curl|wget)\b[^\n|]*\|\s*(?:python3?|node|perl|ruby)\b/i,
    "downloads and runs a program",
  ),
  rule(
    "obfuscation_base64_exec",
    "high",
    "obfuscation",
    /\bbase64\s+(?:-d|--decode)\b[^\n]*\|\s*(?:ba|z)?sh\b|\beval\s*\(\s*(?:atob|Buffer\.from)\b/i,
    "decodes and runs hidden code",
  ),
  // network
  rule(
    "network_reverse_shell",
    "critical",
    "network",
    /\/dev\/tcp\/|\bnc\s+-[a-z]*e\b|\bsocat\b[^\n]*\bexec:/i,
    "a reverse shell",
  ),
  // persistence
  rule(
    "persistence_authorized_keys",
    "critical",
    "persistence",
    /\bauthorized_keys\b/,
    "touches SSH authorized keys",
  ),
  rule(
    "persistence_sudoers",
    "critical",
    "persistence",
    /\/etc\/sudoers\b|\bNOPASSWD\b/,
    "changes sudo rules",
  ),
  rule("persistence_crontab", "medium", "persistence", /\bcrontab\b/, "changes scheduled jobs"),
  rule(
    "persistence_shell_rc",
    "medium",
    "persistence",
    /(?:^|[\s"'/~])\.(?:bashrc|zshrc|bash_profile|profile)\b/,
    "names a shell startup file",
  ),
  // credentials in the package
  rule(
    "credential_private_key",
    "critical",
    "credential_exposure",
    /-----BEGIN\s+(?:RSA\s+|EC\s+|OPENSSH\s+)?PRIVATE\s+KEY-----/,
    "a private key inside the package",
  ),
  rule(
    "credential_token",
    "critical",
    "credential_exposure",
    /\bghp_[A-Za-z0-9]{36}\b|\bAKIA[0-9A-Z]{16}\b|\bsk-[A-Za-z0-9]{32,}\b/,
    "an access token inside the package",
  ),
  // system files
  rule(
    "traversal_passwd",
    "critical",
    "traversal",
    /\/etc\/(?:passwd|shadow)\b/,
    "names the system password files",
  ),
];

function rule(id: string, severity: Severity, category: string, pattern: RegExp, description: string): Rule {
  return { id, severity, category, pattern, description };
}

/**
 * Hidden and direction-changing characters (zero-width, word joiner, byte-order mark inside text,
 * bidirectional embeddings, overrides and isolates) that can make text read differently than it runs.
 */
const HIDDEN_CHARS = /[\u200b-\u200d\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]/;

/** Extensions of files read as text by the line rules (and SKILL.md whatever its case). */
const TEXT_EXTENSIONS = new Set([
  ".md",
  ".txt",
  ".py",
  ".sh",
  ".bash",
  ".zsh",
  ".js",
  ".mjs",
  ".cjs",
  ".ts",
  ".rb",
  ".pl",
  ".php",
  ".yaml",
  ".yml",
  ".json",
  ".toml",
  ".cfg",
  ".ini",
  ".conf",
  ".html",
  ".css",
  ".xml",
  ".r",
  ".jl",
  ".ps1",
]);

/** Extensions of executables and libraries that have no place in a skill. */
const BINARY_EXTENSIONS = new Set([
  ".exe",
  ".dll",
  ".so",
  ".dylib",
  ".bin",
  ".dat",
  ".com",
  ".msi",
  ".dmg",
  ".app",
  ".deb",
  ".rpm",
  ".elf",
]);

/** An entry of a package that is not a plain file (seen while unpacking). */
export interface OddEntry {
  path: string;
  kind: "symlink" | "hardlink" | "device" | "escape";
  target?: string;
}

/** The result of scanning one package. */
export interface ScanResult {
  verdict: Verdict;
  findings: ScanFinding[];
  /** Full SHA-256 of the package (hex). */
  digest: string;
}

/** Scans a package's files (and the odd entries its archive held). */
export function scanPackage(files: readonly PackageFile[], odd: readonly OddEntry[] = []): ScanResult {
  const findings: ScanFinding[] = [];
  let total = 0;
  for (const entry of odd) {
    findings.push({
      pattern_id:
        entry.kind === "escape"
          ? "path_escape"
          : entry.kind === "symlink"
            ? "symlink_escape"
            : "special_file",
      severity: "critical",
      category: "traversal",
      file: entry.path,
      line: 0,
      match: entry.target ? `${entry.kind} -> ${entry.target}` : entry.kind,
      description:
        entry.kind === "escape"
          ? "a path that leaves the package"
          : entry.kind === "symlink"
            ? "a symbolic link (a package may hold only plain files)"
            : "a link or device file (a package may hold only plain files)",
    });
  }
  for (const file of files) {
    total += file.bytes.length;
    const ext = path.posix.extname(file.path).toLowerCase();
    if (file.bytes.length > MAX_FILE_BYTES)
      findings.push(
        structural(
          "oversized_file",
          "medium",
          file.path,
          `${Math.floor(file.bytes.length / 1024)}KB`,
          `a file over ${MAX_FILE_BYTES / 1024}KB`,
        ),
      );
    if (BINARY_EXTENSIONS.has(ext) || looksExecutableBinary(file.bytes))
      findings.push(
        structural("binary_file", "critical", file.path, ext || "binary", "an executable or library file"),
      );
    const isText = TEXT_EXTENSIONS.has(ext) || path.posix.basename(file.path).toUpperCase() === "SKILL.MD";
    if (isText) findings.push(...scanText(file.path, file.bytes.toString("utf8")));
  }
  if (files.length > MAX_PACKAGE_FILES)
    findings.push(
      structural(
        "too_many_files",
        "medium",
        "(package)",
        `${files.length} files`,
        `more than ${MAX_PACKAGE_FILES} files`,
      ),
    );
  if (total > MAX_PACKAGE_BYTES)
    findings.push(
      structural(
        "oversized_package",
        "low",
        "(package)",
        `${Math.floor(total / 1024)}KB`,
        `a package over ${MAX_PACKAGE_BYTES / 1024 / 1024}MB`,
      ),
    );
  return { verdict: verdictOf(findings), findings, digest: packageDigest(files) };
}

function structural(
  id: string,
  severity: Severity,
  file: string,
  match: string,
  description: string,
): ScanFinding {
  return { pattern_id: id, severity, category: "structural", file, line: 0, match, description };
}

/** ELF, Mach-O and PE headers. */
function looksExecutableBinary(bytes: Buffer): boolean {
  if (bytes.length < 4) return false;
  const magic = bytes.readUInt32BE(0);
  return (
    magic === 0x7f454c46 ||
    magic === 0xcafebabe ||
    magic === 0xfeedface ||
    magic === 0xfeedfacf ||
    magic === 0xcefaedfe ||
    magic === 0xcffaedfe ||
    (bytes[0] === 0x4d && bytes[1] === 0x5a)
  );
}

/** Line rules and hidden characters over one text file (at most one finding per rule and line). */
export function scanText(file: string, text: string): ScanFinding[] {
  const findings: ScanFinding[] = [];
  const lines = text.replace(/^\ufeff/, "").split("\n");
  lines.forEach((line, index) => {
    for (const r of RULES) {
      if (!r.pattern.test(line)) continue;
      findings.push({
        pattern_id: r.id,
        severity: r.severity,
        category: r.category,
        file,
        line: index + 1,
        match: clip(line.trim()),
        description: r.description,
      });
    }
    const hidden = HIDDEN_CHARS.exec(line);
    if (hidden) {
      const code = (hidden[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
      findings.push({
        pattern_id: "hidden_character",
        severity: "high",
        category: "injection",
        file,
        line: index + 1,
        match: `U+${code}`,
        description: "an invisible or direction-changing character",
      });
    }
  });
  return findings;
}

function clip(text: string): string {
  return text.length <= 120 ? text : `${text.slice(0, 117)}...`;
}

/** `dangerous` with a critical finding, `caution` with a high one, else `safe`. */
export function verdictOf(findings: readonly ScanFinding[]): Verdict {
  if (findings.some((f) => f.severity === "critical")) return "dangerous";
  if (findings.some((f) => f.severity === "high")) return "caution";
  return "safe";
}

/** The attestation recorded in the lock entry for a scan. */
export function scanProvenance(
  result: ScanResult,
  fields: { source: string; sourceUrl: string; trustLevel: TrustLevel; name: string; now: string },
): ScanProvenance {
  const categories = [...new Set(result.findings.map((f) => f.category))].sort();
  return {
    bundle_hash: `sha256:${result.digest}`,
    scanner_version: SCANNER_VERSION,
    source: fields.source,
    source_url: fields.sourceUrl,
    verdict: result.verdict,
    trust_level: fields.trustLevel,
    findings: result.findings,
    rules: [...new Set(result.findings.map((f) => f.pattern_id))].sort(),
    scanned_at: fields.now,
    summary:
      result.findings.length === 0
        ? `${fields.name}: clean scan, no threats detected`
        : `${fields.name}: ${result.verdict} — ${result.findings.length} finding(s) in ${categories.join(", ")}`,
    fresh: true,
  };
}
