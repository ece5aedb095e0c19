/**
 * The charts page: curator transitions per run (from the run reports), a histogram of days since each
 * skill's last activity, and the most and least used skills. Data from `/api/charts`; Chart.js is
 * bundled with only the pieces used here.
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

async function draw(): Promise<void> {
  const response = await fetch("/api/charts", { credentials: "same-origin" });
  if (!response.ok) return;
  const data = (await response.json()) as ChartData;
  for (const chart of charts.splice(0)) chart.destroy();
  const animation = false as const;
  const runs = canvas("chart-runs");
  if (runs) {
    charts.push(
      new Chart(runs, {
        type: "bar",
        data: {
          labels: data.runs.map((run) => run.at.slice(0, 10)),
          datasets: [
            { label: "marked stale", data: data.runs.map((run) => run.stale) },
            { label: "archived", data: data.runs.map((run) => run.archived) },
            { label: "reactivated", data: data.runs.map((run) => run.reactivated) },
            {
              type: "line",
              label: "curated skills after the run",
              data: data.runs.map((run) => run.curated),
            },
          ],
        },
        options: { animation, responsive: true },
      }),
    );
  }
  const idle = canvas("chart-idle");
  if (idle) {
    charts.push(
      new Chart(idle, {
        type: "bar",
        data: {
          labels: data.histogram.map((bucket) => bucket.label),
          datasets: [{ label: "skills", data: data.histogram.map((bucket) => bucket.count) }],
        },
        options: { animation, responsive: true },
      }),
    );
  }
  for (const [id, rows] of [
    ["chart-most", data.mostUsed],
    ["chart-least", data.leastUsed],
  ] as const) {
    const target = canvas(id);
    if (!target) continue;
    charts.push(
      new Chart(target, {
        type: "bar",
        data: {
          labels: rows.map((row) => row.name),
          datasets: [{ label: "activity", data: rows.map((row) => row.activity) }],
        },
        options: { animation, indexAxis: "y", responsive: true },
      }),
    );
  }
  document.body.dataset.chartsReady = String(charts.length);
}

void draw();
document.addEventListener("console:refreshed", () => void draw());
