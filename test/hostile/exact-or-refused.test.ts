/**
 * Exact or refused: a `serve --set` key is checked segment by segment, so a typo in a middle segment is
 * refused naming the near miss instead of being accepted and doing nothing.
 */
import { describe, expect, it } from "vitest";
import { validateOverrides } from "../../src/config/check.js";
import { parseOverride } from "../../src/config/overrides.js";

const check = (text: string) => () => validateOverrides([parseOverride(text)], {});

describe("serve --set keys, segment by segment", () => {
  it("a misspelt middle segment is refused naming the near miss", () => {
    expect(check("gateway.telegrm.webhook.port=9002")).toThrow(
      /--set gateway\.telegrm: .*did you mean gateway\.telegram\?/,
    );
    expect(check("gateway.telegram.webhok.port=9002")).toThrow(/did you mean gateway\.telegram\.webhook\?/);
    expect(check("gateway.telegram.webhook.prot=9002")).toThrow(
      /did you mean gateway\.telegram\.webhook\.port\?/,
    );
  });

  it("a section skillgate does not read is refused, with the near miss", () => {
    expect(check("gatewy.telegram.webhook.port=9002")).toThrow(
      /did you mean gateway\.telegram\.webhook\.port\?/,
    );
    expect(check("display.skin=x")).toThrow(/not a section skillgate reads/);
  });

  it("an exact key is accepted", () => {
    expect(check("gateway.telegram.webhook.port=9002")).not.toThrow();
    expect(check("curator.enabled=false")).not.toThrow();
  });
});
