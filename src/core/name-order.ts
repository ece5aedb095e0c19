/**
 * The order skill names are listed in everywhere (command menus, `/curator status`, the console):
 * ICU's root collation, the order `localeCompare` gives on a host in an English or neutral locale.
 * For names made only of lowercase ASCII letters, digits, `-` and `.` (nearly every library's) root
 * collation is plain code-point order (`-` before `.` before digits before letters, and no case or
 * accent to weigh), so such pairs are compared directly; any other pair goes to a root collator made on
 * first use. The first comparison ICU makes maps ~2.6 MB of its collation data into the process, which
 * an idle gateway whose menus list 10k plain names never needs. `test/core/name-order.test.ts` holds the
 * shortcut to ICU's answers.
 */

/** 1 for each code unit below 128 whose root-collation order is its code-point order among the others. */
const PLAIN = new Uint8Array(128);
for (const char of "-.0123456789abcdefghijklmnopqrstuvwxyz") PLAIN[char.charCodeAt(0)] = 1;

function isPlain(name: string): boolean {
  for (let index = 0; index < name.length; index++) {
    if (PLAIN[name.charCodeAt(index)] !== 1) return false;
  }
  return true;
}

let rootCompare: Intl.Collator["compare"] | undefined;

/** Negative, zero or positive as `a` sorts before, with or after `b` (root collation). */
export function compareNames(a: string, b: string): number {
  if (isPlain(a) && isPlain(b)) return a < b ? -1 : a > b ? 1 : 0;
  rootCompare ??= new Intl.Collator("und").compare;
  return rootCompare(a, b);
}
