/**
 * Traditional Chinese catalogs, derived from the Simplified Chinese one by OpenCC (`opencc-js`), never
 * kept by hand: `zh-TW` with OpenCC's Taiwan standard and its phrases (`cn` → `twp`: 设置 → 設定,
 * 文件 → 檔案), `zh-HK` with Hong Kong's standard characters (`cn` → `hk`). A catalog is derived on the
 * first message a Traditional reader gets, then kept. The converter's dictionaries take tens of megabytes,
 * so it runs on a short-lived worker thread the caller waits for: the process keeps only the converted
 * text, and a process without Traditional readers never loads the converter at all.
 * Placeholders (`{name}`) and code spans (`` `/skill 周报` ``: commands, names, paths) pass unchanged;
 * only the text around them is converted.
 */
import { createRequire } from "node:module";
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { reapplyYoungGrowth } from "../heap-tuning.js";
import { startWorker } from "../workers.js";
import type { CatalogEntry } from "./entries.js";
import type { TraditionalLocale } from "./locale.js";

/** Which of OpenCC's conversions: the text's variant (`cn`) and the reader's (`twp`, `hk`). */
interface ConverterOptions {
  readonly from: string;
  readonly to: string;
}

/** OpenCC's conversion for each Traditional locale, from Simplified Chinese (`cn`). */
const CONVERSIONS: Readonly<Record<TraditionalLocale, ConverterOptions>> = {
  "zh-TW": { from: "cn", to: "twp" },
  "zh-HK": { from: "cn", to: "hk" },
};

/**
 * Phrases OpenCC's dictionaries read otherwise than the catalogs mean them, applied after its
 * conversion: "30 天后" is "30 days later" (天後), not the sea goddess 天后 its phrase table keeps; the
 * catalogs' 发布 is to post or publish (a summary, an app), which Taiwan writes 發布, not a software
 * release (釋出, Taiwan's phrase for 发布).
 */
const CORRECTIONS: readonly (readonly [string, string])[] = [
  ["天后", "天後"],
  ["釋出", "發布"],
];

/** A placeholder or a code span: the pieces of a template that are never converted. */
const LITERAL = /(\{[A-Za-z_][A-Za-z0-9_]*\}|`[^`\n]*`)/;

/** How long a conversion may take before the Simplified text is shown instead (ms). */
const CONVERSION_DEADLINE_MS = 60_000;

/**
 * The worker: loads OpenCC (`opencc-js/cn2t`; its own type declarations do not resolve under NodeNext,
 * so it is plain JavaScript here), converts every entry with the corrections after it, leaves each
 * placeholder and code span (`literal`) as it is, posts the entries and wakes the waiting thread.
 */
const WORKER_SOURCE = String.raw`
const { workerData } = require("node:worker_threads");
const { signal, port, entries, conversion, corrections, literal, openccPath } = workerData;
try {
  const opencc = require(openccPath);
  const base = opencc.Converter(conversion);
  const correct = opencc.CustomConverter(corrections);
  const pattern = new RegExp(literal);
  const convert = (template) =>
    template.split(pattern).map((piece, index) => (index % 2 === 1 ? piece : correct(base(piece)))).join("");
  port.postMessage({
    entries: entries.map(([key, entry]) => [
      key,
      typeof entry === "string"
        ? convert(entry)
        : Object.fromEntries(Object.entries(entry).map(([form, template]) => [form, convert(template)])),
    ]),
  });
} catch (error) {
  port.postMessage({ error: String(error && error.message ? error.message : error) });
}
Atomics.store(signal, 0, 1);
Atomics.notify(signal, 0);
`;

/**
 * The catalog of `locale`: every entry of the Simplified Chinese `source` converted to Traditional on a
 * worker thread this one waits for (see the file's comment). Should the conversion fail or overrun its
 * deadline, the Simplified entries are returned: a reader of Chinese still reads Chinese.
 */
export function deriveTraditional(
  source: Readonly<Record<string, CatalogEntry>>,
  locale: TraditionalLocale,
): Record<string, CatalogEntry> {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = startWorker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      signal,
      port: port2,
      entries: Object.entries(source),
      conversion: CONVERSIONS[locale],
      corrections: CORRECTIONS,
      literal: LITERAL.source,
      openccPath: createRequire(import.meta.url).resolve("opencc-js/cn2t"),
    },
    transferList: [port2],
    // Nothing of this process's loaders: the worker is plain JavaScript, and a loader thread that needs
    // this (waiting) thread would never answer.
    execArgv: [],
    stdout: true,
    stderr: true,
  });
  try {
    Atomics.wait(signal, 0, 0, CONVERSION_DEADLINE_MS);
    const reply = receiveMessageOnPort(port1)?.message as
      | { entries?: [string, CatalogEntry][]; error?: string }
      | undefined;
    return reply?.entries ? Object.fromEntries(reply.entries) : { ...source };
  } finally {
    port1.close();
    void worker.terminate();
    // This thread waited through the worker's start, so its "online" event may come after the end.
    reapplyYoungGrowth();
  }
}
