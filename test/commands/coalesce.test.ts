import { describe, expect, it } from "vitest";
import { CoalescedWork } from "../../commands/coalesce.js";

/** A computation the test finishes by hand; records when each one started. */
function gate() {
  const started: number[] = [];
  const finishers: ((value: number) => void)[] = [];
  const failers: ((error: Error) => void)[] = [];
  let clock = 0;
  const compute = () =>
    new Promise<number>((resolve, reject) => {
      started.push(clock);
      finishers.push(resolve);
      failers.push(reject);
    });
  return {
    started,
    compute,
    tick: () => {
      clock += 1;
    },
    finish: (index: number, value: number) => finishers[index]?.(value),
    fail: (index: number, error: Error) => failers[index]?.(error),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("CoalescedWork", () => {
  it("runs a lone request at once and forgets it afterwards", async () => {
    const work = new CoalescedWork<string, number>();
    const g = gate();
    const first = work.run("k", g.compute);
    await settle();
    expect(g.started).toHaveLength(1);
    g.finish(0, 1);
    expect(await first).toBe(1);
    const second = work.run("k", g.compute);
    await settle();
    expect(g.started).toHaveLength(2);
    g.finish(1, 2);
    expect(await second).toBe(2);
  });

  it("never hands a request a result computed before it arrived; later arrivals share one run", async () => {
    const work = new CoalescedWork<string, number>();
    const g = gate();
    const early = work.run("k", g.compute);
    await settle();
    g.tick(); // these arrive while the first computation runs
    const late = [work.run("k", g.compute), work.run("k", g.compute), work.run("k", g.compute)];
    await settle();
    expect(g.started).toEqual([0]);
    g.finish(0, 10);
    expect(await early).toBe(10);
    await settle();
    // One computation for the three, started after they arrived.
    expect(g.started).toEqual([0, 1]);
    g.finish(1, 20);
    expect(await Promise.all(late)).toEqual([20, 20, 20]);
  });

  it("keeps keys apart and passes a failure to the requests that shared it only", async () => {
    const work = new CoalescedWork<string, number>();
    const g = gate();
    const a = work.run("a", g.compute);
    const b = work.run("b", g.compute);
    await settle();
    expect(g.started).toHaveLength(2);
    const aLater = work.run("a", g.compute);
    g.fail(0, new Error("disk gone"));
    await expect(a).rejects.toThrow("disk gone");
    await settle();
    g.finish(2, 3);
    expect(await aLater).toBe(3);
    g.finish(1, 7);
    expect(await b).toBe(7);
  });
});
