/**
 * The console's language: `Accept-Language` negotiated with q-values (zh, zh-CN, zh-SG and zh-Hans*
 * read Simplified Chinese; zh-TW and zh-Hant read Traditional Chinese of Taiwan, zh-HK, zh-MO and
 * zh-Hant-HK that of Hong Kong; every other language falls to the next range, then English), the switch's cookie over the header, and the served pages, JSON answers and headers in
 * that language (English unchanged).
 */
import { describe, expect, it } from "vitest";
import { browserLocale, matchBrowserLocale, negotiateLocale } from "../../src/core/i18n/locale.js";
import type { ConsoleServer } from "../../src/gateway/console/server.js";
import { consoleForDescribe } from "./helpers.js";

describe("Accept-Language negotiation", () => {
  it("maps zh, zh-CN, zh-SG and zh-Hans* to zh-CN and en-* to en, in any case", () => {
    for (const tag of ["zh", "zh-CN", "zh-cn", "ZH-SG", "zh-Hans", "zh-Hans-CN", "zh-hans-sg"])
      expect(matchBrowserLocale(tag), tag).toBe("zh-CN");
    for (const tag of ["en", "en-US", "EN-gb"]) expect(matchBrowserLocale(tag), tag).toBe("en");
    for (const tag of ["zh-TW", "zh-tw", "zh-Hant", "zh-Hant-TW", "zh-hant-us"])
      expect(matchBrowserLocale(tag), tag).toBe("zh-TW");
    for (const tag of ["zh-HK", "zh-MO", "zh-Hant-HK", "ZH-HANT-MO"])
      expect(matchBrowserLocale(tag), tag).toBe("zh-HK");
    expect(matchBrowserLocale("zh-Hans-HK")).toBe("zh-CN");
    for (const tag of ["fr", "ja-JP", "", "*"]) expect(matchBrowserLocale(tag), tag).toBeUndefined();
  });

  it("honours q-values, takes the first of equal weights, skips q=0 and unknown languages", () => {
    expect(negotiateLocale("zh-CN")).toBe("zh-CN");
    expect(negotiateLocale("zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh-CN");
    expect(negotiateLocale("en-US,en;q=0.9,zh-CN;q=0.8")).toBe("en");
    expect(negotiateLocale("en;q=0.5, zh-Hans;q=0.9")).toBe("zh-CN");
    expect(negotiateLocale("zh-CN;q=0.5, en;q=0.5")).toBe("zh-CN");
    expect(negotiateLocale("en;q=0.5, zh-CN;q=0.5")).toBe("en");
    expect(negotiateLocale("zh-CN;q=0, en;q=0.1")).toBe("en");
    expect(negotiateLocale("fr-FR, de;q=0.9, zh-SG;q=0.3")).toBe("zh-CN");
    expect(negotiateLocale("zh-TW,zh;q=0.9,en;q=0.8")).toBe("zh-TW");
    expect(negotiateLocale("zh-HK, en;q=0.8")).toBe("zh-HK");
    expect(negotiateLocale("en, zh-TW;q=0.8")).toBe("en");
    expect(negotiateLocale("fr, *;q=0.1")).toBe("en");
    expect(negotiateLocale("fr, ja")).toBeUndefined();
    expect(negotiateLocale("")).toBeUndefined();
    expect(negotiateLocale(undefined)).toBeUndefined();
    expect(negotiateLocale(" zh-cn ; q = 0.7 , en ; q=0.6")).toBe("zh-CN");
  });

  it("prefers the switch's cookie, ignores a cookie that names no locale, and defaults to English", () => {
    expect(browserLocale("en", "zh-CN")).toBe("en");
    expect(browserLocale("zh-CN", "en-US")).toBe("zh-CN");
    expect(browserLocale("klingon", "zh-CN")).toBe("zh-CN");
    expect(browserLocale(undefined, "fr")).toBe("en");
    expect(browserLocale(undefined, undefined)).toBe("en");
  });
});

describe("the console serves the negotiated language", () => {
  let server: ConsoleServer;
  let cookie: string;

  consoleForDescribe(
    async () => undefined,
    (running) => {
      ({ server, cookie } = running);
    },
  );

  const get = (path: string, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, { headers: { cookie, ...headers } });

  it("answers Chinese to a Chinese browser and English otherwise, with lang and Content-Language", async () => {
    const zh = await get("/library", { "accept-language": "zh-CN,zh;q=0.9,en;q=0.8" });
    const zhPage = await zh.text();
    expect(zh.headers.get("content-language")).toBe("zh-CN");
    expect(zh.headers.get("vary")).toMatch(/Accept-Language/);
    expect(zhPage).toContain('<html lang="zh-CN">');
    expect(zhPage).toContain("<h1>技能库</h1>");
    expect(zhPage).toContain("共 4 个技能，显示 4 个");
    const en = await get("/library", { "accept-language": "en-GB,zh;q=0.5" });
    const enPage = await en.text();
    expect(en.headers.get("content-language")).toBe("en");
    expect(enPage).toContain('<html lang="en">');
    expect(enPage).toContain("<h1>Library</h1>");
    expect(enPage).toContain("4 of 4 skills");
  });

  it("answers Traditional Chinese to a zh-TW or zh-HK browser, and offers it in the language switch", async () => {
    const tw = await get("/library", { "accept-language": "zh-TW,zh;q=0.9,en;q=0.8" });
    const twPage = await tw.text();
    expect(tw.headers.get("content-language")).toBe("zh-TW");
    expect(twPage).toContain('<html lang="zh-TW">');
    expect(twPage).toContain("<h1>技能庫</h1>");
    expect(twPage).toContain("共 4 個技能，顯示 4 個");
    expect(twPage).toContain('data-lang="zh-HK"');
    expect(twPage).toContain("繁體中文（台灣）");
    const hk = await get("/library", { "accept-language": "zh-Hant-HK" });
    expect(hk.headers.get("content-language")).toBe("zh-HK");
    expect(await hk.text()).toContain("<h1>技能庫</h1>");
    const chosen = await get("/library", {
      "accept-language": "en",
      cookie: `${cookie}; skillgate_lang=zh-TW`,
    });
    expect(await chosen.text()).toContain("<h1>技能庫</h1>");
  });

  it("lets the switch's cookie win over the header", async () => {
    const page = await (
      await get("/curator", { "accept-language": "zh-CN", cookie: `${cookie}; skillgate_lang=en` })
    ).text();
    expect(page).toContain('<html lang="en">');
    expect(page).toContain("<h1>Curator</h1>");
    const back = await (
      await get("/curator", { "accept-language": "en", cookie: `${cookie}; skillgate_lang=zh-CN` })
    ).text();
    expect(back).toContain("<h1>管理器</h1>");
  });

  it("puts the browser script's texts in the page as escaped JSON, no inline script", async () => {
    const page = await (await get("/library", { "accept-language": "zh-CN" })).text();
    const content = /<meta name="console-texts" content="([^"]*)">/.exec(page)?.[1] ?? "";
    const texts = JSON.parse(content.replaceAll("&quot;", '"').replaceAll("&amp;", "&")) as Record<
      string,
      string
    >;
    expect(texts.cancelled).toBe("已取消；未做任何更改。");
    expect(texts.refused).toBe("被拒绝（HTTP {status}）");
    expect(texts.noRuns).toContain("管理器还没有运行过");
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it("writes error pages and JSON refusals in the reader's language", async () => {
    const missing = await fetch(`${server.url}/login?token=nope`, { headers: { "accept-language": "zh" } });
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain("登录链接无效");
    const anonymous = await fetch(`${server.url}/library`, { headers: { "accept-language": "zh-SG" } });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("请先登录");
    const api = await fetch(`${server.url}/api/charts`, { headers: { "accept-language": "zh-Hans" } });
    expect(await api.json()).toEqual({ ok: false, error: "未登录" });
    const apiEn = await fetch(`${server.url}/api/charts`);
    expect(await apiEn.json()).toEqual({ ok: false, error: "not logged in" });
    const notFound = await get("/nowhere", { "accept-language": "zh-CN" });
    expect(notFound.status).toBe(404);
    expect(await notFound.text()).toContain("页面不存在");
  });

  it("labels the chart buckets in the reader's language", async () => {
    const zh = (await (await get("/api/charts", { "accept-language": "zh-CN" })).json()) as {
      histogram: { label: string }[];
    };
    expect(zh.histogram.map((bucket) => bucket.label)).toContain("0–6 天");
    expect(zh.histogram.at(-1)?.label).toBe("从未");
    const en = (await (await get("/api/charts", {})).json()) as { histogram: { label: string }[] };
    expect(en.histogram.map((bucket) => bucket.label)).toContain("0–6 d");
    expect(en.histogram.at(-1)?.label).toBe("never");
  });
});
