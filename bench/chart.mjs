// The chart of BENCHMARKS.md: ns/op against requests in flight (both axes logarithmic),
// mcp-cancel and the pure-JS baseline, for scenario 1 with and without a signal. A plain
// SVG written by hand: no browser, no dependency.

const WIDTH = 760;
const HEIGHT = 440;
const M = { left: 70, right: 230, top: 40, bottom: 50 };

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

/**
 * @param {Array<{ name: string, color: string, dash?: boolean, points: Array<[number, number]> }>} series
 * @returns {string} the SVG document
 */
export function lineChart(series, { title, xLabel, yLabel }) {
  const xs = series.flatMap((s) => s.points.map(([x]) => x));
  const ys = series.flatMap((s) => s.points.map(([, y]) => y));
  const x0 = Math.log10(Math.min(...xs));
  const x1 = Math.log10(Math.max(...xs));
  const y0 = Math.floor(Math.log10(Math.min(...ys)));
  const y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const pw = WIDTH - M.left - M.right;
  const ph = HEIGHT - M.top - M.bottom;
  const px = (x) => M.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * pw;
  const py = (y) => M.top + ph - ((Math.log10(y) - y0) / (y1 - y0 || 1)) * ph;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`);
  out.push(`<text x="${M.left}" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`);
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    out.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    const label = 10 ** e >= 1000 ? `${10 ** (e - 3)} µs` : `${10 ** e} ns`;
    out.push(`<text x="${M.left - 8}" y="${y + 4}" text-anchor="end">${label}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${M.top}" y2="${M.top + ph}" stroke="#eee"/>`);
    out.push(`<text x="${px(x)}" y="${M.top + ph + 18}" text-anchor="middle">${x.toLocaleString("en-US")}</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${HEIGHT - 10}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const d = s.points.map(([x, y], j) => `${j ? "L" : "M"}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
    const dash = s.dash ? ' stroke-dasharray="6 4"' : "";
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    for (const [x, y] of s.points) out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    const ly = M.top + 10 + i * 20;
    const lx = M.left + pw + 16;
    out.push(`<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 30}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** The scenario-1 chart from the rows of bench/ops.mjs. */
export function scenarioOneChart(rows) {
  const pick = (scenario, ids, key) =>
    rows.filter((r) => r.scenario === scenario && r.ids === ids).map((r) => [r.inFlight, r[key]]);
  const series = [];
  const colors = { mcp: "#d62728", js: "#1f77b4" };
  for (const [scenario, what] of [["1", "signal"], ["1b", "no signal"]]) {
    for (const ids of ["number", "string"]) {
      const dash = ids === "string";
      series.push({ name: `mcp-cancel, ${what}, ${ids} ids`, color: scenario === "1" ? colors.mcp : "#ff9896", dash, points: pick(scenario, ids, "mcpNs") });
      series.push({ name: `JS baseline, ${what}, ${ids} ids`, color: scenario === "1" ? colors.js : "#9edae5", dash, points: pick(scenario, ids, "jsNs") });
    }
  }
  return lineChart(series, { title: "Scenario 1: track → response, ns per request", xLabel: "requests in flight", yLabel: "ns per operation (log)" });
}
