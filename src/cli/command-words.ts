/** The command words in argv (skipping `--home DIR` and options), e.g. `["skills", "list"]`. */
export function commandWords(args: readonly string[]): string[] {
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? "";
    if (word === "--home") index++;
    else if (!word.startsWith("-")) words.push(word);
  }
  return words;
}
