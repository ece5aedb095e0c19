/**
 * The run the skills-setup suites share on every platform: a platform booted by the harness with a mock
 * platform beside it, on a home holding `research/arxiv`, `tools/weather` (needing the unset variable
 * `key`) and `devops/deployer`, from a config.yaml the suite writes by hand.
 */
import { createMockAdapter, type MockAdapter } from "../../adapters/mock/index.js";
import type { BootOptions, PlatformName, PlatformRun } from "./harness/index.js";
import { writeArxivAndWeather, writeDeployer } from "./platform-home.js";

/** A platform run, the mock platform beside it and the config.yaml it was booted from. */
export type SetupRun<P extends PlatformName> = PlatformRun<P> & { mock: MockAdapter; file: string };

/** Boots the skills-setup run with `start` (a `usePlatform` boot function); `key` is unset first. */
export async function bootSkillsSetup<P extends PlatformName>(
  start: (options?: BootOptions<P>) => Promise<PlatformRun<P>>,
  key: string,
  configFile: NonNullable<BootOptions<P>["configFile"]>,
): Promise<SetupRun<P>> {
  delete process.env[key];
  const mock = createMockAdapter();
  const run = await start({
    prepare: async (home) => {
      await writeArxivAndWeather(home, key);
      await writeDeployer(home);
    },
    configFile,
    others: [mock],
  });
  mock.settle = () => run.gateway.whenIdle();
  return Object.assign(run, { mock, file: run.file as string });
}
