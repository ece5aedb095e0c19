/** The Node.js version check at the very top of the command line (src/cli/node-check.ts). */
import { describe, expect, it } from "vitest";
import { nodeTooOld, nodeTooOldLine } from "../../src/cli/node-check.js";

describe("Node.js version check", () => {
  it("refuses anything older than 20.19 and accepts 20.19 and later", () => {
    for (const old of ["18.19.1", "v18.20.4", "20.0.0", "20.18.3", "16.20.2", "19.9.0"])
      expect(nodeTooOld(old), old).toBe(true);
    for (const fine of ["20.19.0", "v20.19.1", "20.20.2", "22.1.0", "24.0.0"])
      expect(nodeTooOld(fine), fine).toBe(false);
    expect(nodeTooOld(process.versions.node)).toBe(false);
  });

  it("says so in one line, in the reader's language", async () => {
    const en = await nodeTooOldLine("18.19.1", { LANG: "en_US.UTF-8" });
    expect(en).toBe(
      "skillgate needs Node.js 20.19 or newer; this is Node.js 18.19.1. Install a newer Node.js (https://nodejs.org) and run it again.",
    );
    const zh = await nodeTooOldLine("18.19.1", { LANG: "zh_CN.UTF-8" });
    expect(zh).toContain("20.19");
    expect(zh).toContain("18.19.1");
    expect(zh).toMatch(/需要 Node\.js/);
    expect(zh).not.toContain("\n");
  });
});
