/** Temporary folders and homes for tests: one made for each test, or made and removed by hand. */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";

/** Makes a value with `make` before each test of the enclosing `describe` (or file), hands it to `use`, and
 * `remove`s it after the test. */
export function madeForEachTest<T>(
  make: () => Promise<T>,
  remove: (made: T) => Promise<void>,
  use: (made: T) => void,
): void {
  let made: T | undefined;
  beforeEach(async () => {
    made = await make();
    use(made);
  });
  afterEach(async () => {
    if (made !== undefined) await remove(made);
    made = undefined;
  });
}

/**
 * Makes a fresh folder named `<prefix>…` under the system's temporary folder before each test of the
 * enclosing `describe` (or file), hands it to `use`, and removes it after the test.
 */
export function freshDirEachTest(prefix: string, use: (dir: string) => void): void {
  madeForEachTest(() => mkdtemp(path.join(os.tmpdir(), prefix)), removeTempHome, use);
}

/** A fresh temporary home named `<prefix>…` with an empty `skills/`. */
export async function makeTempHome(prefix: string): Promise<string> {
  const home = await mkdtemp(path.join(os.tmpdir(), prefix));
  await mkdir(path.join(home, "skills"), { recursive: true });
  return home;
}

/** Removes a temporary home (or any folder) and everything in it. */
export async function removeTempHome(home: string): Promise<void> {
  await rm(home, { recursive: true, force: true });
}
