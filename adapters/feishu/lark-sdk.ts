/**
 * The Feishu/Lark SDK as the adapter loads it: the build's minified, ASCII-only copy of the installed
 * `@larksuiteoapi/node-sdk` when there is one (see `src/core/vendored.ts`). The package itself is one
 * 6 MB file whose non-ASCII comments made V8 keep its source as a 12 MB two-byte string, and loading it
 * added ~45 MB to a gateway's RSS; the copy is the same code and costs ~20 MB less.
 */
import type * as LarkSdk from "@larksuiteoapi/node-sdk";
import { requireVendored } from "../../src/core/vendored.js";

/** The SDK's exports (values); its types come from `@larksuiteoapi/node-sdk` as usual. */
export const lark: typeof LarkSdk = requireVendored<typeof LarkSdk>("@larksuiteoapi/node-sdk");
