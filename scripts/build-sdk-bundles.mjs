#!/usr/bin/env node
// Writes dist/vendor/lark-node-sdk-<version>.cjs: the installed @larksuiteoapi/node-sdk, minified and
// ASCII-only, its own dependencies left to node_modules. The package is one 6 MB CommonJS file whose
// comments hold non-ASCII text, so V8 kept its whole source as a two-byte string and a Feishu gateway
// paid ~45 MB of RSS for loading it; the copy is the same code in a quarter of the bytes (see
// adapters/feishu/lark-sdk.ts, which loads it when its version matches the installed package). Runs as
// part of `npm run build`.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const entry = require.resolve("@larksuiteoapi/node-sdk");
const { version, license } = require("@larksuiteoapi/node-sdk/package.json");
const out = path.join(root, "dist", "vendor");
mkdirSync(out, { recursive: true });
// Copies of other versions (an earlier install) are never loaded again.
for (const file of readdirSync(out))
  if (file.startsWith("lark-node-sdk-")) rmSync(path.join(out, file), { force: true });
// The package's own licence header (its first comment) stays at the top of the copy.
const header = /^\/\*[\s\S]*?\*\//.exec(readFileSync(entry, "utf8"))?.[0] ?? "";
await build({
  entryPoints: [entry],
  outfile: path.join(out, `lark-node-sdk-${version}.cjs`),
  bundle: true,
  packages: "external",
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: true,
  keepNames: true,
  charset: "ascii",
  legalComments: "none",
  banner: {
    js: `// @larksuiteoapi/node-sdk ${version} (${license}), minified by skillgate's build.\n${header}`,
  },
  logLevel: "warning",
});
