/**
 * Reading a downloaded `.tar.gz` into memory, safely, with `tar`'s parser: nothing of the archive is ever
 * written by `tar` itself. Only regular files are kept; a symbolic or hard link, a device, a FIFO, an
 * absolute path, a path with `..` or a NUL is never unpacked and is reported (the scan turns each into a
 * critical finding, so such a package is refused). Sizes are capped while reading: per file, in total, and
 * in number of members, and the gunzipped stream itself, so a compression bomb stops early.
 */
import { gunzipSync } from "node:zlib";
import { Parser, type ReadEntry } from "tar";
import { SkillgateError } from "../../core/errors.js";
import { t } from "../../core/i18n/messages.js";
import { normalizeBundlePath, type PackageFile } from "./format.js";
import type { OddEntry } from "./scan.js";

/** Caps of one archive. */
export interface ArchiveLimits {
  /** Unpacked bytes in total (the gunzipped tar stream included). */
  maxTotalBytes: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Members. */
  maxMembers: number;
}

/** Default caps: 20 MB unpacked, 4 MB a file, 2,000 members. */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxTotalBytes: 20 * 1024 * 1024,
  maxFileBytes: 4 * 1024 * 1024,
  maxMembers: 2000,
};

/** What an archive held: its plain files and the entries that were not unpacked. */
export interface ArchiveContents {
  files: PackageFile[];
  odd: OddEntry[];
}

const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);

/** Reads a gzipped tar archive held in memory (see the file's comment). */
export async function readTarGz(
  gz: Buffer,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<ArchiveContents> {
  let tarBytes: Buffer;
  try {
    tarBytes = gunzipSync(gz, { maxOutputLength: limits.maxTotalBytes + 1024 * 1024 });
  } catch (error) {
    const tooBig = (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
    throw new SkillgateError(
      tooBig ? "hub.archive_too_large" : "hub.archive_unreadable",
      tooBig
        ? t("hub.archive.tooLarge", { limit: String(limits.maxTotalBytes) })
        : t("hub.archive.unreadable"),
    );
  }
  const files: PackageFile[] = [];
  const odd: OddEntry[] = [];
  let members = 0;
  let total = 0;
  let problem: SkillgateError | undefined;
  const parser = new Parser({
    strict: true,
    onReadEntry(entry: ReadEntry) {
      members++;
      if (members > limits.maxMembers && !problem)
        problem = new SkillgateError(
          "hub.archive_too_large",
          t("hub.archive.tooManyMembers", { limit: String(limits.maxMembers) }),
        );
      const raw = entry.path;
      const safe = normalizeBundlePath(raw, true);
      if (entry.type === "Directory") {
        if (safe === null && !/^\.?\/?$/.test(raw)) odd.push({ path: raw, kind: "escape" });
        entry.resume();
        return;
      }
      if (safe === null || raw.startsWith("/") || raw.includes("\\")) {
        odd.push({ path: raw, kind: "escape" });
        entry.resume();
        return;
      }
      if (!FILE_TYPES.has(entry.type)) {
        const kind =
          entry.type === "SymbolicLink" ? "symlink" : entry.type === "Link" ? "hardlink" : "device";
        odd.push({ path: safe, kind, ...(entry.linkpath ? { target: entry.linkpath } : {}) });
        entry.resume();
        return;
      }
      const size = entry.size ?? 0;
      total += size;
      if ((size > limits.maxFileBytes || total > limits.maxTotalBytes) && !problem)
        problem = new SkillgateError(
          "hub.archive_too_large",
          t("hub.archive.tooLarge", { limit: String(limits.maxTotalBytes) }),
        );
      if (problem) {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => files.push({ path: safe, bytes: Buffer.concat(chunks) }));
    },
  });
  await new Promise<void>((resolve, reject) => {
    parser.on("error", (error: Error) =>
      reject(new SkillgateError("hub.archive_unreadable", t("hub.archive.unreadable"), 1, { cause: error })),
    );
    parser.on("warn", (_code: string, message: string) => {
      if (!problem)
        problem = new SkillgateError("hub.archive_unreadable", t("hub.archive.unreadable"), 1, {
          cause: new Error(message),
        });
    });
    parser.on("end", () => resolve());
    parser.end(tarBytes);
  });
  if (problem) throw problem;
  return { files, odd };
}
