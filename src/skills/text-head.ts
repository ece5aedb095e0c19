/**
 * A head read from its SKILL.md in this process. It keeps the frontmatter's YAML text, not the parsed
 * frontmatter: that is parsed again (and then kept) the first time someone asks for it, as a head loaded
 * from the persistent index reads its frontmatter only when asked (`index-cache.ts`). A gateway that
 * scanned a 10k library so holds one string per skill instead of every frontmatter's objects (~15 MB at
 * 10k). What the scan needs from the frontmatter (name, description, gates, whether the index can store
 * the gate inputs) is taken when the head is built.
 */
import { parseFrontmatterBlock } from "./frontmatter.js";
import type { SkillHead } from "./scan-cache.js";

/** See the file's comment. The getter sits on the prototype, so every head keeps one compact shape. */
class TextHead implements SkillHead {
  readonly name: string;
  readonly declaredName: string | undefined;
  readonly frontmatterName: string | undefined;
  readonly description: string;
  readonly osOk: boolean;
  readonly envOk: boolean;
  private parsed: Record<string, unknown> | undefined;

  constructor(
    head: SkillHead,
    private readonly block: string,
    /** The gate inputs survive JSON (`isStorableHead`). */
    readonly storableGates: boolean,
  ) {
    this.name = head.name;
    this.declaredName = head.declaredName;
    this.frontmatterName = head.frontmatterName;
    this.description = head.description;
    this.osOk = head.osOk;
    this.envOk = head.envOk;
  }

  get frontmatter(): Record<string, unknown> {
    this.parsed ??= this.parse();
    return this.parsed;
  }

  /** The frontmatter, parsed again when this head has not kept it (see `SkillHead.frontmatterOnce`). */
  frontmatterOnce(): Record<string, unknown> {
    return this.parsed ?? this.parse();
  }

  private parse(): Record<string, unknown> {
    return parseFrontmatterBlock(this.block).frontmatter;
  }
}

/**
 * `head`, built from the frontmatter text `block`, as a head that parses its frontmatter when asked;
 * `storableGates` is `isStorableHead` of `head`.
 */
export function withFrontmatterText(head: SkillHead, block: string, storableGates: boolean): SkillHead {
  return new TextHead(head, block, storableGates);
}
