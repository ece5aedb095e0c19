/**
 * The texts the console's scripts show, in the page's language: the server puts them in the page as a
 * JSON in the `console-texts` meta element, so the browser keeps no catalog of its own. `{name}` parameters
 * are filled here; a text the page lacks reads as its name (a page served by an older build).
 */

let texts: Record<string, string> | undefined;

function load(): Record<string, string> {
  if (texts) return texts;
  try {
    texts = JSON.parse(
      document.querySelector<HTMLMetaElement>('meta[name="console-texts"]')?.content ?? "{}",
    ) as Record<string, string>;
  } catch {
    texts = {};
  }
  return texts;
}

/** The page's text `name`, its `{param}` placeholders filled from `params`. */
export function text(name: string, params: Record<string, string | number> = {}): string {
  const template = load()[name] ?? name;
  return template.replace(/\{([A-Za-z_]+)\}/g, (whole, key: string) =>
    key in params ? String(params[key]) : whole,
  );
}
