/**
 * The build's single-file copies of dependencies (`src/core/vendored.ts`, written by `npm run build`):
 * a package with a copy for its installed version loads from `dist/vendor`, one without loads itself,
 * and a package whose `exports` hide its `package.json` (grammy) is still matched by version.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { requireVendored, vendoredFileName } from "../../src/core/vendored.js";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const vendor = path.join(root, "dist", "vendor");

function installedVersion(name: string): string {
  return (
    JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
}

describe("vendored dependencies", () => {
  it("names a copy by package and version, scope included", () => {
    expect(vendoredFileName("@larksuiteoapi/node-sdk", "1.74.0")).toBe("larksuiteoapi-node-sdk-1.74.0.cjs");
    expect(vendoredFileName("@redis/client", "6.3.1")).toBe("redis-client-6.3.1.cjs");
  });

  it.each(["@redis/client", "grammy", "@larksuiteoapi/node-sdk", "yaml", "prom-client", "cli-progress"])(
    "loads %s from the build's copy of the installed version",
    (name) => {
      const copy = path.join(vendor, vendoredFileName(name, installedVersion(name)));
      const loaded = requireVendored<Record<string, unknown>>(name);
      expect(require.cache[copy]?.exports).toBe(loaded);
      expect(loaded).not.toBe(require(name));
    },
  );

  it("the copies keep what the code uses", () => {
    expect(typeof requireVendored<{ createClient: unknown }>("@redis/client").createClient).toBe("function");
    const grammy = requireVendored<Record<string, unknown>>("grammy");
    for (const name of ["Api", "Bot", "GrammyError", "HttpError", "InputFile", "webhookCallback"])
      expect(typeof grammy[name], name).toBe("function");
  });

  it("loads a package the build made no copy of from the package itself", () => {
    expect(requireVendored("commander")).toBe(require("commander"));
  });
});
