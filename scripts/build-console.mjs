#!/usr/bin/env node
// Bundles the web console's front-end (web/console) into dist/console with esbuild: app.js (every
// page), charts.js (the charts page, with Chart.js), app.css. Runs as part of `npm run build`, so
// `npm install` (its `prepare` script) produces a console that works offline.
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "web", "console");
const out = path.join(root, "dist", "console");
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: path.join(source, "app.ts"), charts: path.join(source, "charts.ts") },
  outdir: out,
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2022",
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(path.join(source, "style.css"), path.join(out, "app.css"));
