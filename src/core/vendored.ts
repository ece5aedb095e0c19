/**
 * Dependencies loaded from the build's minified copies. `npm run build` bundles a few installed packages
 * into one minified, ASCII-only CommonJS file each, `dist/vendor/<package>-<version>.cjs`
 * (`scripts/build-sdk-bundles.mjs`, which says what each saves): the same code, loaded as one file
 * instead of hundreds of modules, or without a two-byte copy of its comments. A copy is loaded only when
 * its version is the installed package's, so an upgrade without a rebuild never runs stale code;
 * otherwise, and before a first build, the package itself.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The file name of `name`'s copy at `version`, as the build writes it. */
export function vendoredFileName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace(/\//g, "-")}-${version}.cjs`;
}

/** Where the build's copy would be: `dist/vendor`, seen from `dist/src/core` or from `src/core`. */
function vendoredCopy(name: string, version: string): string | undefined {
  const file = vendoredFileName(name, version);
  for (const relative of [`../../vendor/${file}`, `../../dist/vendor/${file}`]) {
    const candidate = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** What skillgate reads of a package's manifest. */
export interface PackageManifest {
  name: string;
  version: string;
  license?: string;
}

/**
 * The manifest of the installed package `name`, resolved from the file `from` (default: this module):
 * the nearest `package.json` of that name above its entry point, since a package's `exports` may not
 * offer `package.json` itself. Undefined when none is found.
 */
export function installedManifest(
  name: string,
  from: string = fileURLToPath(import.meta.url),
): PackageManifest | undefined {
  let dir = path.dirname(createRequire(from).resolve(name));
  for (;;) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as Partial<PackageManifest>;
      if (manifest.name === name && typeof manifest.version === "string")
        return { name, version: manifest.version, license: manifest.license };
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * `name`'s exports: the build's copy of the installed version when there is one, else the package. A
 * caller names its own dependency and types the result with the package's own types.
 */
export function requireVendored<T>(name: string): T {
  const version = installedManifest(name)?.version;
  const copy = version === undefined ? undefined : vendoredCopy(name, version);
  return require(copy ?? name) as T;
}
