/**
 * The console's version history of a skill (`/skill/<name>/versions`): each SKILL.md text the skill had,
 * read back from the audit log's blobs (`src/curator/versions.ts`) — when, by whom, through which change,
 * with which `version` field — and the line diff of any two (`?from=<entry>&to=<entry>`; by default the
 * newest against the text its change replaced). Every value goes through hono's escaping `html` tag and the scrubber.
 */
import { html } from "hono/html";
import { lineDiff } from "../../core/line-diff.js";
import type { SkillVersion } from "../../curator/versions.js";
import { type Html, layout, named, type PageContext, tr, when } from "./page-frame.js";

/** How a version is named in the compare lists and the diff heading. */
function versionLabel(ctx: PageContext, version: SkillVersion): string {
  const at = when(ctx, version.ts);
  if (version.digest === null) return `${at} · ${tr(ctx, "console.versions.removed")}`;
  return version.version === null
    ? tr(ctx, "console.versions.optionNoVersion", { when: at })
    : tr(ctx, "console.versions.option", { when: at, version: ctx.scrub(version.version) });
}

/**
 * The two versions compared: `to` is the asked one, else the newest; `from` the asked one, else none,
 * which compares `to` with the text just before its change.
 */
export function comparedVersions(
  versions: SkillVersion[],
  fromId: string | undefined,
  toId: string | undefined,
): { from: SkillVersion | undefined; to: SkillVersion | undefined } {
  const byId = (id: string | undefined) => versions.find((version) => version.entryId === id);
  return { from: byId(fromId), to: byId(toId) ?? versions.at(-1) };
}

/** The SKILL.md blob a comparison starts from: `from`'s, else the one `to` replaced. */
export function fromDigest(from: SkillVersion | undefined, to: SkillVersion | undefined): string | null {
  return from ? from.digest : (to?.previousDigest ?? null);
}

/** What the versions page shows. */
export interface VersionsView {
  name: string;
  /** Oldest first. */
  versions: SkillVersion[];
  from: SkillVersion | undefined;
  to: SkillVersion | undefined;
  /** The SKILL.md texts compared (`fromDigest`'s and `to`'s; "" for none or a removed one). */
  fromText: string;
  toText: string;
}

/** The version history page of a skill. */
export function versionsPage(ctx: PageContext, view: VersionsView): Html {
  const { name, versions, from, to } = view;
  const href = (entryId: string) =>
    `/skill/${encodeURIComponent(name)}/versions?to=${encodeURIComponent(entryId)}`;
  const options = (selected: SkillVersion | undefined) =>
    [...versions]
      .reverse()
      .map(
        (version) =>
          html`<option value="${version.entryId}"${version === selected ? " selected" : ""}>${versionLabel(ctx, version)}</option>`,
      );
  const diff = to
    ? view.fromText === view.toText
      ? html`<p class="muted">${tr(ctx, "console.versions.same")}</p>`
      : html`<pre class="file diff" id="version-diff" translate="no">${ctx.scrub(lineDiff(view.fromText, view.toText).join("\n"))}</pre>`
    : "";
  const body = html`<h1>${tr(ctx, "console.versions.title", { name })}</h1>
<p><a href="/skill/${encodeURIComponent(name)}" translate="no">${name}</a></p>
<p class="muted">${tr(ctx, "console.versions.hint")}</p>
${
  versions.length === 0
    ? html`<p class="count" id="versions-none">${tr(ctx, "console.versions.none")}</p>`
    : html`<div class="table-box"><table class="grid" id="versions-table">
<thead><tr><th>${tr(ctx, "console.col.when")}</th><th>${tr(ctx, "console.versions.col.version")}</th><th>${tr(ctx, "console.col.actor")}</th><th>${tr(ctx, "console.col.action")}</th><th>${tr(ctx, "console.col.entry")}</th></tr></thead>
<tbody>
${[...versions]
  .reverse()
  .map(
    (version) =>
      html`<tr data-entry="${version.entryId}"><td><a href="${href(version.entryId)}">${when(ctx, version.ts)}</a></td><td translate="no">${version.digest === null ? tr(ctx, "console.versions.removed") : ctx.scrub(version.version ?? "—")}</td><td><span class="actor">${named(ctx, "console.actor", version.actor)}</span></td><td>${named(ctx, "console.ledgerAction", version.action)}</td><td><code translate="no">${version.entryId}</code></td></tr>`,
  )}
</tbody></table></div>
<form method="get" class="filters" id="versions-compare">
<label>${tr(ctx, "console.versions.from")} <select name="from"><option value=""${from ? "" : " selected"}>${tr(ctx, "console.versions.before")}</option>${options(from)}</select></label>
<label>${tr(ctx, "console.versions.to")} <select name="to">${options(to)}</select></label>
<button type="submit">${tr(ctx, "console.versions.compare")}</button>
</form>
${to ? html`<h2>${tr(ctx, "console.versions.diffHeading", { from: from ? versionLabel(ctx, from) : tr(ctx, "console.versions.before"), to: versionLabel(ctx, to) })}</h2>` : ""}
${diff}`
}`;
  return layout("library", tr(ctx, "console.versions.title", { name }), ctx, body);
}
