/** The adapter contract, run for every platform in `DRIVERS` (see suite.ts). */
import { afterAll, beforeAll, describe, it } from "vitest";
import { type Booted, bootContract, DRIVERS } from "./drivers.js";
import { CONTRACT_CASES, contractConfig, contractHome, removeContractHome } from "./suite.js";

for (const platform of DRIVERS) {
  describe(`adapter contract: ${platform}`, () => {
    let home = "";
    let booted: Booted | undefined;
    beforeAll(async () => {
      home = await contractHome();
      booted = await bootContract(platform, home, contractConfig(platform));
    });
    afterAll(async () => {
      await booted?.stop();
      await removeContractHome(home);
    });
    for (const contractCase of CONTRACT_CASES) {
      it(contractCase.name, async (context) => {
        if (!booted) throw new Error("the platform did not start");
        const reason = contractCase.skip?.(booted.run);
        if (reason) {
          context.skip(reason);
          return;
        }
        await contractCase.run({ run: booted.run, home, platform });
      });
    }
  });
}
