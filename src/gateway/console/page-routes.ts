/**
 * The console's read-only pages (behind the session check the server applies first): the library, search,
 * overlaps, a skill with its files and version history, the curator with its reports, the ledger,
 * snapshots and charts. Every text shown goes through `scrub`; the library is searched as scrubbed text.
 */
import type { Context, Hono } from "hono";
import { t } from "../../core/i18n/messages.js";
import { scrubText } from "../../core/logger.js";
import { skillText, skillVersions } from "../../curator/versions.js";
import { searchSkills } from "../../skills/search.js";
import { findOverlaps } from "../../skills/search-overlaps.js";
import type { SkillLibrary } from "../../skills/types.js";
import {
  chartData,
  curatorFacts,
  curatorPreview,
  ledgerEntries,
  pastRuns,
  reportText,
  snapshots,
} from "./curator-data.js";
import { archivedSkill, type ConsoleData, hubSkills, type LibraryRow, queryRows } from "./data.js";
import { messagePage, type PageContext } from "./page-frame.js";
import {
  chartsPage,
  curatorPage,
  filePage,
  ledgerPage,
  libraryPage,
  reportPage,
  skillPage,
  snapshotsPage,
} from "./pages.js";
import { type ConsoleEnv, libraryQuery, requestLocale, text } from "./request.js";
import { overlapsPage, searchPage } from "./search-pages.js";
import { comparedVersions, fromDigest, versionsPage } from "./version-pages.js";

/**
 * The Markdown renderer and its sanitiser (markdown-it, sanitize-html and postcss: ~12 MB once loaded),
 * loaded by the first page that shows a skill or a report, not by every gateway that serves `/healthz`.
 */
const markdown = () => import("./markdown.js");

/** What the pages read, lent by the server. */
export interface PageRouteDeps {
  home: string;
  library: SkillLibrary;
  data: ConsoleData;
  /** The known secrets, longest first. */
  secrets: () => string[];
  scrub: (value: string) => string;
  /** The library's rows, cached until the library changes. */
  rows: () => Promise<LibraryRow[]>;
  /** The page frame's context of a request (role, CSRF token, locale, zone). */
  page: (c: Context<ConsoleEnv>) => PageContext;
  /** Seconds since the gateway last handled a message, when it runs beside one. */
  idleSeconds?: () => number | Promise<number>;
}

/** Adds the read-only pages to `app`. */
export function registerPageRoutes(app: Hono<ConsoleEnv>, deps: PageRouteDeps): void {
  const { home, library, data, secrets, scrub, rows, page } = deps;
  app.get("/", (c) => c.redirect("/library", 302));

  app.get("/library", async (c) => {
    // Searched and shown as scrubbed text: a query never matches a secret a page would not show.
    const known = secrets();
    const all = (await rows()).map((row) => ({
      ...row,
      description: scrubText(row.description, known),
      category: row.category === null ? null : scrubText(row.category, known),
    }));
    const query = libraryQuery(c);
    const categories = [
      ...new Set(all.map((row) => row.category).filter((v): v is string => v !== null)),
    ].sort();
    const provenances = [...new Set(all.map((row) => row.provenance))].sort();
    return c.html(
      libraryPage(
        page(c),
        query,
        queryRows(all, query),
        { categories, provenances, all: all.length },
        await hubSkills(home),
      ),
    );
  });

  app.get("/search", async (c) => {
    const query = text(c.req.query("q"));
    // A query holding a secret finds nothing: a hit must not confirm a value no page shows.
    const blank = query.trim() === "" || scrubText(query, secrets()) !== query;
    const hits = blank ? [] : await searchSkills(library, query, { platform: null, limit: 50 });
    return c.html(searchPage(page(c), query, hits));
  });

  app.get("/overlaps", async (c) =>
    c.html(overlapsPage(page(c), await findOverlaps(library, { limit: 200 }))),
  );

  app.get("/skill/:name", async (c) => {
    const name = c.req.param("name");
    const row = (await rows()).find((item) => item.name === name);
    if (!row)
      return c.html(
        messagePage(requestLocale(c), t("console.error.noSkill"), t("console.error.noSkillText", { name })),
        404,
      );
    let frontmatter: string | null = null;
    let bodyHtml: string | null = null;
    let linkedFiles: string[] = [];
    let warnings: string[] = [];
    if (row.onDisk) {
      const view = await library.view(name);
      if (view.success && typeof view.content === "string") {
        const { renderMarkdown, splitFrontmatter } = await markdown();
        const split = splitFrontmatter(scrub(view.content));
        frontmatter = split.frontmatter;
        bodyHtml = renderMarkdown(split.body);
        const linked = view.linked_files as Record<string, string[]> | null | undefined;
        linkedFiles = linked ? Object.values(linked).flat() : [];
        warnings = (view.security_warnings as string[] | undefined) ?? [];
      }
    }
    // Not in the library: its archived copy, if there is one, is shown as it is in `.archive/`.
    const archived = row.onDisk ? null : ((await archivedSkill(home, name)) ?? null);
    if (archived?.content !== undefined) {
      const { renderMarkdown, splitFrontmatter } = await markdown();
      const split = splitFrontmatter(scrub(archived.content));
      frontmatter = split.frontmatter;
      bodyHtml = renderMarkdown(split.body);
    }
    const history = await ledgerEntries(home, { skill: name, actor: "", action: "" }, 100);
    return c.html(
      skillPage(page(c), { row, frontmatter, bodyHtml, linkedFiles, warnings, history, archived }),
    );
  });

  app.get("/skill/:name/versions", async (c) => {
    const name = c.req.param("name");
    const versions = await skillVersions(home, name);
    const { from, to } = comparedVersions(versions, c.req.query("from"), c.req.query("to"));
    const [fromText, toText] = await Promise.all([
      skillText(home, fromDigest(from, to)),
      skillText(home, to?.digest ?? null),
    ]);
    return c.html(versionsPage(page(c), { name, versions, from, to, fromText, toText }));
  });

  app.get("/skill/:name/file", async (c) => {
    const name = c.req.param("name");
    const file = text(c.req.query("path"), 500);
    const view = await library.view(name, { filePath: file });
    if (!view.success || typeof view.content !== "string")
      return c.html(
        messagePage(
          requestLocale(c),
          t("console.error.noFile"),
          view.error ? String(view.error) : t("console.error.noFileText"),
        ),
        404,
      );
    return c.html(filePage(page(c), name, file, view.content));
  });

  app.get("/curator", async (c) => {
    const idle = (await deps.idleSeconds?.()) ?? Number.POSITIVE_INFINITY;
    const [facts, preview, runs] = await Promise.all([
      curatorFacts(data, idle),
      curatorPreview(data),
      pastRuns(home, 50),
    ]);
    return c.html(curatorPage(page(c), facts, preview, runs));
  });

  app.get("/curator/report/:id", async (c) => {
    const id = c.req.param("id");
    const report = await reportText(home, id);
    if (report === undefined)
      return c.html(
        messagePage(requestLocale(c), t("console.error.noReport"), t("console.error.noReportText")),
        404,
      );
    const { renderMarkdown } = await markdown();
    return c.html(reportPage(page(c), id, renderMarkdown(scrub(report))));
  });

  app.get("/api/curator/preview", async (c) => c.json(await curatorPreview(data)));

  app.get("/ledger", async (c) => {
    const query = {
      skill: text(c.req.query("skill")),
      actor: text(c.req.query("actor"), 20),
      action: text(c.req.query("action"), 40),
    };
    const all = await ledgerEntries(home, { skill: "", actor: "", action: "" }, Number.MAX_SAFE_INTEGER);
    const entries = await ledgerEntries(home, query);
    const actors = [...new Set(all.map((entry) => entry.actor))].sort();
    const actions = [...new Set(all.map((entry) => entry.action))].sort();
    return c.html(ledgerPage(page(c), query, entries, { actors, actions }));
  });

  app.get("/snapshots", async (c) => c.html(snapshotsPage(page(c), await snapshots(home))));

  app.get("/charts", (c) => c.html(chartsPage(page(c))));

  app.get("/api/charts", async (c) => c.json(await chartData(data, await rows(), requestLocale(c))));
}
