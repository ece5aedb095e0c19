/**
 * A line diff of two texts for people to read: the changed lines marked `-` and `+`, a few unchanged lines
 * around each change, longer unchanged runs shortened to "…".
 */

/** Lines of a diff shown at most. */
const MAX_DIFF_LINES = 120;
/** Unchanged lines kept around each change. */
const CONTEXT_LINES = 2;

/** A line diff of two texts (longest common subsequence), unchanged runs shortened to their edges. */
export function lineDiff(before: string, after: string): string[] {
  const a = before.replace(/\r\n/g, "\n").split("\n");
  const b = after.replace(/\r\n/g, "\n").split("\n");
  // Common head and tail first: most edits touch a few lines.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const lengths: Uint32Array[] = [];
  for (let i = 0; i <= midA.length; i++) lengths.push(new Uint32Array(midB.length + 1));
  for (let i = midA.length - 1; i >= 0; i--)
    for (let j = midB.length - 1; j >= 0; j--)
      (lengths[i] as Uint32Array)[j] =
        midA[i] === midB[j]
          ? ((lengths[i + 1] as Uint32Array)[j + 1] as number) + 1
          : Math.max(
              (lengths[i + 1] as Uint32Array)[j] as number,
              (lengths[i] as Uint32Array)[j + 1] as number,
            );
  const lines: [mark: " " | "-" | "+", text: string][] = a.slice(0, head).map((line) => [" ", line]);
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
      lines.push([" ", midA[i] as string]);
      i++;
      j++;
    } else if (
      j < midB.length &&
      (i >= midA.length ||
        ((lengths[i] as Uint32Array)[j + 1] as number) >= ((lengths[i + 1] as Uint32Array)[j] as number))
    ) {
      lines.push(["+", midB[j] as string]);
      j++;
    } else {
      lines.push(["-", midA[i] as string]);
      i++;
    }
  }
  for (const line of a.slice(a.length - tail)) lines.push([" ", line]);
  const near = lines.map((_, index) =>
    lines.slice(Math.max(0, index - CONTEXT_LINES), index + CONTEXT_LINES + 1).some(([mark]) => mark !== " "),
  );
  const shown: string[] = [];
  lines.forEach(([mark, text], index) => {
    if (near[index]) shown.push(`${mark} ${text}`);
    else if (shown[shown.length - 1] !== "…") shown.push("…");
  });
  return shown.length > MAX_DIFF_LINES ? [...shown.slice(0, MAX_DIFF_LINES), "…"] : shown;
}
