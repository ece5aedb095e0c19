/** Connection URLs as logs and messages may show them: the credentials they carry never appear. */

/**
 * `url` with any user information replaced. A URL that does not parse, or parses with a host other than
 * what follows its last `@` (a password with an unescaped `/`, `?` or `#`), loses everything between
 * `//` and that last `@`, so no part of the password is ever shown.
 */
export function redactUrl(url: string): string {
  const at = url.lastIndexOf("@");
  const start = url.indexOf("//");
  if (parsesWhole(url)) {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  }
  return at > start && start >= 0 ? `${url.slice(0, start + 2)}***@${url.slice(at + 1)}` : url;
}

/**
 * True when `url` parses and its host is what follows its last `@`: no part of a password was taken for
 * the host, a path or a fragment (a password with `/`, `?`, `#` or `@` must be percent-encoded).
 */
export function parsesWhole(url: string): boolean {
  const at = url.lastIndexOf("@");
  try {
    const parsed = new URL(url);
    if (at < 0) return true;
    const afterAt = url.slice(at + 1).split(/[/?#]/)[0] ?? "";
    return parsed.host === afterAt.toLowerCase() && url.indexOf("//") < at;
  } catch {
    return false;
  }
}
