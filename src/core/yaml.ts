/**
 * The yaml package as skillgate loads it: the build's single-file copy when there is one (see
 * `vendored.ts`; its 72 modules loaded one by one cost a process ~6 MB more). Its node checks
 * (`isMap`…) recognise nodes by a shared symbol, so they hold for nodes any copy made; types come from
 * `yaml` as usual.
 */
import type * as Yaml from "yaml";
import { requireVendored } from "./vendored.js";

/** The package's exports: `parse`, `parseDocument`, `stringify`, the node classes and checks. */
export const YAML: typeof Yaml = requireVendored<typeof Yaml>("yaml");

export const { isAlias, isMap, isScalar, isSeq } = YAML;
