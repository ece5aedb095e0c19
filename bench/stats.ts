/** Small figures the bench scripts share: the middle of a sample, and the load it was taken under. */
import os from "node:os";

/** The median of `values` (the upper one of an even count); NaN for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The machine's 1, 5 and 15 minute load averages, as printed beside every figure. */
export function loadavg(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
}
