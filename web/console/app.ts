/**
 * The console's behaviour in the browser, loaded as a module from this origin (the CSP allows nothing
 * inline): confirmation dialogs for action buttons, the POSTs that carry the session's CSRF token,
 * live page refreshes from the server's event stream, the curator run's progress, auto-submitting
 * filter forms, and logging out (this session, or every session). The event stream is closed when the
 * page is hidden (`pagehide`: navigating away keeps the page in the back/forward cache, and a browser
 * allows only a few open connections per host) and opened again when it is shown. Everything untrusted
 * is put into the page with `textContent`. Its texts come from the page (`texts.ts`). The header's
 * language switch stores the choice in the `skillgate_lang` cookie (SameSite=Strict, a year) and loads
 * the page again; the server reads it on every request. On the pages without a session (login errors,
 * logged out) only the switch is active.
 */
import { text } from "./texts.js";

interface ActionAnswer {
  kind?: "confirm" | "done";
  question?: string;
  details?: { restored: string[]; removed: string[] };
  ok?: boolean;
  text?: string;
  error?: string;
}

const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";

function toast(message: string, ok: boolean): void {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = message;
  box.className = ok ? "ok" : "error";
  box.hidden = false;
}

async function post(
  body: unknown,
  endpoint = "/api/action",
): Promise<{ status: number; answer: ActionAnswer }> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let answer: ActionAnswer = {};
  try {
    answer = (await response.json()) as ActionAnswer;
  } catch {
    answer = { error: text("http", { status: response.status }) };
  }
  return { status: response.status, answer };
}

function fileList(title: string, files: string[]): HTMLElement | null {
  if (files.length === 0) return null;
  const section = document.createElement("section");
  const heading = document.createElement("h3");
  heading.textContent = `${title} (${files.length})`;
  const list = document.createElement("ul");
  for (const file of files.slice(0, 200)) {
    const item = document.createElement("li");
    item.textContent = file;
    list.append(item);
  }
  section.append(heading, list);
  return section;
}

function ask(question: string, details?: ActionAnswer["details"]): Promise<boolean> {
  const dialog = document.getElementById("confirm-dialog") as HTMLDialogElement | null;
  const questionBox = document.getElementById("confirm-question");
  const extra = document.getElementById("confirm-details");
  if (!dialog || !questionBox || !extra) return Promise.resolve(window.confirm(question));
  questionBox.textContent = question;
  extra.replaceChildren();
  if (details) {
    for (const part of [
      fileList(text("putBack"), details.restored),
      fileList(text("removed"), details.removed),
    ]) {
      if (part) extra.append(part);
    }
  }
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

async function runAction(button: HTMLButtonElement): Promise<void> {
  const command = button.dataset.command ?? "";
  const args = JSON.parse(button.dataset.args ?? "[]") as string[];
  const options = JSON.parse(button.dataset.options ?? "{}") as Record<string, unknown>;
  button.disabled = true;
  try {
    const first = await post({ command, args, options, confirmed: false });
    if (first.answer.kind !== "confirm") {
      toast(first.answer.text ?? first.answer.error ?? text("refused", { status: first.status }), false);
      return;
    }
    if (!(await ask(first.answer.question ?? text("proceed"), first.answer.details))) {
      toast(text("cancelled"), true);
      return;
    }
    const progress = document.getElementById("progress");
    if (progress && command === "curator run") {
      progress.hidden = false;
      progress.textContent = "";
    }
    const done = await post({ command, args, options, confirmed: true });
    toast(
      done.answer.text ?? done.answer.error ?? text("http", { status: done.status }),
      done.answer.ok === true,
    );
    await refresh();
  } catch (error) {
    toast(text("failed", { detail: (error as Error).message }), false);
  } finally {
    button.disabled = false;
  }
}

let refreshing = false;

/** Reloads the current page's main content in place (scroll position and open dialogs are kept). */
async function refresh(): Promise<void> {
  if (refreshing) return;
  refreshing = true;
  try {
    const response = await fetch(window.location.href, { credentials: "same-origin" });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("main");
    const main = document.getElementById("main");
    if (!next || !main) return;
    const progress = document.getElementById("progress");
    main.replaceChildren(...Array.from(next.childNodes));
    // A running curator's progress survives the refresh.
    const fresh = document.getElementById("progress");
    if (progress && fresh && !progress.hidden) fresh.replaceWith(progress);
    document.dispatchEvent(new CustomEvent("console:refreshed"));
  } finally {
    refreshing = false;
  }
}

let source: EventSource | undefined;

function listen(): void {
  source?.close();
  const live = document.getElementById("live");
  source = new EventSource("/events");
  source.addEventListener("hello", () => live?.classList.add("on"));
  source.addEventListener("error", () => live?.classList.remove("on"));
  source.addEventListener("change", () => void refresh());
  // An action finished in this or another tab: show its effect without waiting for the change check.
  source.addEventListener("run-finished", () => void refresh());
  source.addEventListener("progress", (event) => {
    const progress = document.getElementById("progress");
    if (!progress) return;
    progress.hidden = false;
    const data = JSON.parse((event as MessageEvent<string>).data) as {
      line: string;
      lines?: Record<string, string>;
    };
    const line = data.lines?.[document.documentElement.lang] ?? data.line;
    progress.textContent = `${progress.textContent ?? ""}${line}\n`;
  });
}

/** Ends this session ("logout") or, after asking, every session ("end-all"), then leaves the page. */
async function endSession(which: string): Promise<void> {
  if (which === "end-all" && !(await ask(text("endAll")))) return;
  const { answer } = await post({}, which === "end-all" ? "/api/sessions/end-all" : "/api/logout");
  if (answer.ok !== true) {
    toast(answer.error ?? text("sessionNotEnded"), false);
    return;
  }
  source?.close();
  window.location.assign("/logged-out");
}

/** Remembers `locale` for this console (every path, this site only) and shows the page in it. */
function chooseLanguage(locale: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from some browsers the console supports.
  document.cookie = `skillgate_lang=${encodeURIComponent(locale)}; Path=/; Max-Age=31536000; SameSite=Strict`;
  window.location.reload();
}

document.addEventListener("click", (event) => {
  const target = event.target as Element | null;
  const language = target?.closest<HTMLAnchorElement>("a[data-lang]");
  if (language) {
    event.preventDefault();
    chooseLanguage(language.dataset.lang ?? "en");
    return;
  }
  const button = target?.closest<HTMLButtonElement>("button.action");
  if (button) {
    event.preventDefault();
    void runAction(button);
    return;
  }
  const session = target?.closest<HTMLButtonElement>("button.session");
  if (session) {
    event.preventDefault();
    void endSession(session.dataset.session ?? "logout");
  }
});

let timer: number | undefined;
document.addEventListener("input", (event) => {
  const target = event.target as Element | null;
  // A select fires `input` and `change` together: its `change` submits once, at once. A second, late
  // submit would abort the navigation the first one started.
  if (target instanceof HTMLSelectElement) return;
  const form = target?.closest<HTMLFormElement>("form[data-autosubmit]");
  if (!form) return;
  window.clearTimeout(timer);
  timer = window.setTimeout(() => form.requestSubmit(), 300);
});
document.addEventListener("change", (event) => {
  const target = event.target as Element | null;
  const form = target?.closest<HTMLFormElement>("form[data-autosubmit]");
  if (!form || !(target instanceof HTMLSelectElement)) return;
  // Typed text still waiting for its submit goes with this one.
  window.clearTimeout(timer);
  form.requestSubmit();
});

// A page kept in the back/forward cache must not hold its stream open; a page shown again reopens it.
window.addEventListener("pagehide", () => {
  source?.close();
  source = undefined;
  document.getElementById("live")?.classList.remove("on");
});
// Only a page of a session (it carries the session's CSRF token) listens to the event stream.
const hasSession = csrf !== "";
window.addEventListener("pageshow", (event) => {
  if (hasSession && (event.persisted || source === undefined)) listen();
});

if (hasSession) listen();
