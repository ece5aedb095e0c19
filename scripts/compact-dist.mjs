#!/usr/bin/env node
// Rewrites skillgate's own compiled modules (dist/src, dist/commands, dist/adapters; tsc already left
// the comments out, `removeComments` in tsconfig.build.json) with every non-ASCII character of a string
// written as an escape. V8 keeps each loaded module's whole source text in the heap for as long as the
// process runs, as a two-byte string when one character is outside Latin-1 (an em dash in a comment, a
// Chinese message): our modules came to 3.4 MB that way, 1.45 MB once compacted (a 10k gateway loads
// most of them). Code is untouched: no renaming, no minification, so stack traces still read. Runs as
// part of `npm run build`, after tsc.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dirs = ["src", "commands", "adapters"].map((dir) => path.join(root, "dist", dir));

/** Every `.js` file under `dir`. */
function* scripts(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* scripts(file);
    else if (entry.name.endsWith(".js")) yield file;
  }
}

for (const dir of dirs) {
  for (const file of scripts(dir)) {
    const source = readFileSync(file, "utf8");
    const { code } = await transform(source, {
      loader: "js",
      format: "esm",
      target: "node20",
      charset: "ascii",
      legalComments: "none",
      sourcefile: path.relative(root, file),
      logLevel: "warning",
    });
    writeFileSync(file, code);
  }
}
