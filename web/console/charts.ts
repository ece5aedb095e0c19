/**
 * The charts page: curator transitions per run (from the run reports), a histogram of days since each
 * skill's last activity, and the most and least used skills. Data from `/api/charts`; Chart.js is
 * bundled with only the pieces used here. Every series has its own colour (from the stylesheet's
 * `--series-N`) and a legend entry; a chart with nothing to show says so in words instead of drawing
 * bare axes. Titles, legends and empty states are the page's texts (`texts.ts`); bucket labels come
 * from the server in the page's language.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from "chart.js";
import { text } from "./texts.js";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Legend,
  Tooltip,
);

interface ChartData {
  runs: { at: string; curated: number; stale: number; archived: number; reactivated: number }[];
  histogram: { label: string; count: number }[];
  mostUsed: { name: string; activity: number }[];
  leastUsed: { name: string; activity: number }[];
}

const charts: Chart[] = [];

function canvas(id: string): HTMLCanvasElement | null {
  return document.getElementById(id) as HTMLCanvasElement | null;
}

/** The stylesheet's colour `--name` (so the charts follow light and dark mode). */
function cssColor(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** Fill and border of series `n` (1-based). */
function series(n: number): { backgroundColor: string; borderColor: string; borderWidth: number } {
  const fallbacks = ["#d69e2e", "#c53030", "#2f855a", "#2b6cb0"];
  const color = cssColor(`--series-${n}`, fallbacks[(n - 1) % fallbacks.length] as string);
  return { backgroundColor: `${color}cc`, borderColor: color, borderWidth: 1 };
}

/**
 * Shows `message` in place of the chart on `target` when there is nothing to draw (and the chart
 * again when there is); true when the chart should be drawn.
 */
function showEmpty(target: HTMLCanvasElement, empty: boolean, message: string): boolean {
  const id = `${target.id}-empty`;
  let note = document.getElementById(id);
  if (empty) {
    if (!note) {
      note = document.createElement("p");
      note.id = id;
      note.className = "empty";
      target.after(note);
    }
    note.textContent = message;
    target.hidden = true;
    return false;
  }
  note?.remove();
  target.hidden = false;
  return true;
}

/** Axis titles and colours shared by every chart. */
function axes(x: string, y: string) {
  const muted = cssColor("--muted", "#6b7280");
  const line = cssColor("--line", "#dfe2e6");
  const axis = (title: string) => ({
    title: { display: true, text: title, color: muted },
    ticks: { color: muted, precision: 0 },
    grid: { color: line },
    beginAtZero: true,
  });
  return { x: axis(x), y: axis(y) };
}

async function draw(): Promise<void> {
  const response = await fetch("/api/charts", { credentials: "same-origin" });
  if (!response.ok) return;
  const data = (await response.json()) as ChartData;
  for (const chart of charts.splice(0)) chart.destroy();
  const animation = false as const;
  const legend = { labels: { color: cssColor("--fg", "#1d1f23") } };
  const runs = canvas("chart-runs");
  if (runs && showEmpty(runs, data.runs.length === 0, text("noRuns"))) {
    charts.push(
      new Chart(runs, {
        type: "bar",
        data: {
          labels: data.runs.map((run) => run.at.slice(0, 16).replace("T", " ")),
          datasets: [
            { label: text("markedStale"), data: data.runs.map((run) => run.stale), ...series(1) },
            { label: text("archived"), data: data.runs.map((run) => run.archived), ...series(2) },
            { label: text("reactivated"), data: data.runs.map((run) => run.reactivated), ...series(3) },
            {
              type: "line",
              label: text("curatedAfter"),
              data: data.runs.map((run) => run.curated),
              ...series(4),
              borderWidth: 2,
            },
          ],
        },
        options: {
          animation,
          responsive: true,
          plugins: { legend },
          scales: axes(text("run"), text("skills")),
        },
      }),
    );
  }
  const idle = canvas("chart-idle");
  const anySkill = data.histogram.some((bucket) => bucket.count > 0);
  if (idle && showEmpty(idle, !anySkill, text("noSkills"))) {
    charts.push(
      new Chart(idle, {
        type: "bar",
        data: {
          labels: data.histogram.map((bucket) => bucket.label),
          datasets: [
            {
              label: text("skills"),
              data: data.histogram.map((bucket) => bucket.count),
              ...series(4),
            },
          ],
        },
        options: {
          animation,
          responsive: true,
          plugins: { legend },
          scales: axes(text("idleAxis"), text("skills")),
        },
      }),
    );
  }
  for (const [id, rows, n] of [
    ["chart-most", data.mostUsed, 3],
    ["chart-least", data.leastUsed, 1],
  ] as const) {
    const target = canvas(id);
    if (!target) continue;
    // Empty only while nothing at all was used: then "least used" (all zero) is a list of zeros too.
    const used = data.mostUsed.some((row) => row.activity > 0);
    const message = rows.length === 0 ? text("noSkills") : text("noUse");
    if (!showEmpty(target, !used, message)) continue;
    charts.push(
      new Chart(target, {
        type: "bar",
        data: {
          labels: rows.map((row) => row.name),
          datasets: [{ label: text("activity"), data: rows.map((row) => row.activity), ...series(n) }],
        },
        options: {
          animation,
          indexAxis: "y",
          responsive: true,
          plugins: { legend },
          scales: axes(text("activity"), text("skill")),
        },
      }),
    );
  }
  // Each canvas names its series and their colours (what the legend shows), for tools and tests.
  for (const chart of charts)
    chart.canvas.dataset.series = JSON.stringify(
      chart.data.datasets.map((dataset) => ({ label: dataset.label, color: dataset.borderColor })),
    );
  document.body.dataset.chartsReady = String(charts.length);
  document.body.dataset.chartsEmpty = String(document.querySelectorAll(".chart .empty").length);
}

void draw();
document.addEventListener("console:refreshed", () => void draw());
