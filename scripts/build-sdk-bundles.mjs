#!/usr/bin/env node
// Writes dist/vendor/<package>-<version>.cjs for a few installed dependencies: each one CommonJS file,
// minified and ASCII-only, with the packages named in its `inline` list bundled in and every other
// dependency left to node_modules. src/core/vendored.ts loads a copy when its version is the installed
// package's; this script names and versions the copies with its functions. Runs as part of `npm run build`. Why each is worth it (RSS of a process that loads it):
// - @larksuiteoapi/node-sdk is one 6 MB file whose comments hold non-ASCII text, so V8 kept its whole
//   source as a two-byte string: a Feishu gateway paid ~45 MB for it; the copy is a quarter of the bytes.
// - @redis/client (node-redis) is 1,700 small modules, one per command: a coordinated gateway paid ~16 MB
//   for loading them one by one and ~8 MB less for the one file.
// - grammy with its HTTP client (node-fetch and the URL parser under it) is ~100 modules: ~5 MB less.
// - yaml (72 modules, loaded by every command and the gateway), prom-client and the OpenTelemetry API
//   under it and under node-redis (~80 modules), cli-progress with string-width: ~6 MB less each,
//   ~1 MB each as one file.
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
// Built by tsc just before this script (`npm run build`): the copies' names and manifests as the loader
// reads them.
import { installedManifest, vendoredFileName } from "../dist/src/core/vendored.js";

/** The packages copied, and the dependencies bundled into each copy (a name, or a scope ending in `/`). */
const BUNDLES = [
  { name: "@larksuiteoapi/node-sdk", inline: [] },
  { name: "@redis/client", inline: ["@opentelemetry/api"] },
  { name: "yaml", inline: [] },
  { name: "prom-client", inline: ["@opentelemetry/api", "bintrees", "tdigest"] },
  {
    name: "cli-progress",
    inline: ["ansi-regex", "emoji-regex", "is-fullwidth-code-point", "string-width", "strip-ansi"],
  },
  {
    name: "grammy",
    inline: [
      "@grammyjs/types",
      "abort-controller",
      "debug",
      "event-target-shim",
      "ms",
      "node-fetch",
      "tr46",
      "webidl-conversions",
      "whatwg-url",
    ],
  },
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const out = path.join(root, "dist", "vendor");
mkdirSync(out, { recursive: true });
// Copies of other versions (an earlier install) are never loaded again.
for (const file of readdirSync(out)) if (file.endsWith(".cjs")) rmSync(path.join(out, file), { force: true });

/** The manifest of `name` as seen from the file `from`; fails the build when it is not installed. */
function manifestOf(name, from) {
  const manifest = installedManifest(name, from);
  if (!manifest) throw new Error(`no package.json of ${name} above its entry point`);
  return manifest;
}

const inlined = (inline, specifier) =>
  inline.some((entry) =>
    entry.endsWith("/")
      ? specifier.startsWith(entry)
      : specifier === entry || specifier.startsWith(`${entry}/`),
  );

for (const { name, inline } of BUNDLES) {
  const entry = require.resolve(name);
  const { version, license } = manifestOf(name, path.join(root, "package.json"));
  // The package's own licence header (its first comment) stays at the top of the copy; the packages
  // bundled in are named with their licences.
  const header = /^\/\*[\s\S]*?\*\//.exec(readFileSync(entry, "utf8"))?.[0] ?? "";
  const included = new Set();
  const outfile = path.join(out, vendoredFileName(name, version));
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: true,
    keepNames: true,
    charset: "ascii",
    legalComments: "none",
    plugins: [
      {
        name: "dependencies",
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.kind === "entry-point") return undefined;
            if (!inlined(inline, args.path)) return { path: args.path, external: true };
            included.add(
              args.path.startsWith("@")
                ? args.path.split("/").slice(0, 2).join("/")
                : args.path.split("/")[0],
            );
            return undefined;
          });
        },
      },
    ],
    banner: { js: `// ${name} ${version} (${license}), minified by skillgate's build.\n${header}` },
    logLevel: "warning",
  });
  for (const dependency of [...included].sort()) {
    const manifest = manifestOf(dependency, entry);
    appendFileSync(outfile, `// Includes ${dependency} ${manifest.version} (${manifest.license}).\n`);
  }
}
