/**
 * The Feishu/Lark SDK as the adapter loads it. `npm run build` writes a minified, ASCII-only copy of the
 * installed `@larksuiteoapi/node-sdk` to `dist/vendor/lark-node-sdk-<version>.cjs`
 * (`scripts/build-sdk-bundles.mjs`): the package itself is one 6 MB file whose non-ASCII comments made V8
 * keep its source as a 12 MB two-byte string, and loading it added ~45 MB to a gateway's RSS; the copy is
 * the same code and costs ~20 MB less. The copy is loaded when its version is the installed package's (so
 * an upgrade without a rebuild never runs stale code), the package otherwise.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as LarkSdk from "@larksuiteoapi/node-sdk";

const require = createRequire(import.meta.url);

/** Where the build's copy of `version` would be: `dist/vendor`, seen from dist/ or from the sources. */
function bundledCopy(version: string): string | undefined {
  const name = `lark-node-sdk-${version}.cjs`;
  for (const relative of [`../../vendor/${name}`, `../../dist/vendor/${name}`]) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(file)) return file;
  }
  return undefined;
}

function loadLark(): typeof LarkSdk {
  const { version } = require("@larksuiteoapi/node-sdk/package.json") as { version: string };
  const copy = bundledCopy(version);
  return require(copy ?? "@larksuiteoapi/node-sdk") as typeof LarkSdk;
}

/** The SDK's exports (values); its types come from `@larksuiteoapi/node-sdk` as usual. */
export const lark: typeof LarkSdk = loadLark();
