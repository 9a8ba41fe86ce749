// The report's plots drawn with Chart.js from the chart specs of charts.py: bars and curves with their
// 95 % intervals as whiskers (the error-bars plugin), latency as box plots (quartiles, median, p5-p95),
// failure stages as stacked shares, a rate against context tokens as points with vertical intervals.
// Hovering a bar or point shows its value, interval and n.
"use strict";
(function () {
  const { el } = window.MEMSUITE;
  Chart.register(
    ChartErrorBars.BarWithErrorBarsController,
    ChartErrorBars.BarWithErrorBar,
    ChartErrorBars.LineWithErrorBarsController,
    ChartErrorBars.ScatterWithErrorBarsController,
    ChartErrorBars.PointWithErrorBar
  );
  Chart.defaults.animation = false;
  Chart.defaults.font.size = 11;
  Chart.defaults.maintainAspectRatio = false;

  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const STAGE_COLOURS = { encoded: "#c0392b", maintained: "#e67e22", retrieved: "#f1c40f", answered: "#2980b9", none: "#bdc3c7" };
  const fmt = (v, digits = 2) => (v === null || v === undefined ? "–" : Number(v).toFixed(digits));

  // A point's hover text: value, [lo, hi] and n when the spec has them.
  function pointLabel(name, point) {
    let text = `${name}: ${fmt(point.y)}`;
    if (point.lo !== undefined) text += ` [${fmt(point.lo)}, ${fmt(point.hi)}]`;
    if (point.n !== undefined) text += ` n=${point.n}`;
    if (point.too_small) text += " (too small to read)";
    return text;
  }

  function withInterval(point) {
    const y = point.y;
    if (y === null || y === undefined) return { y: null };
    return point.lo !== undefined ? { y, yMin: point.lo, yMax: point.hi } : { y };
  }

  function canvasIn(figure, height) {
    const box = el("div", { class: "chart-box", style: `height:${height}px` });
    const canvas = el("canvas", { role: "img", "aria-label": figure.querySelector("figcaption").textContent });
    box.appendChild(canvas);
    figure.appendChild(box);
    return canvas;
  }

  function tooltips(points) {
    return {
      callbacks: {
        label: (item) => pointLabel(item.dataset.label, points[item.datasetIndex][item.dataIndex]),
      },
    };
  }

  function bars(figure, spec) {
    const points = spec.series.map((s) => s.points);
    const datasets = spec.series.map((s, i) => ({
      label: s.name,
      data: s.points.map(withInterval),
      backgroundColor: s.reference ? "rgba(120,120,120,0.35)" : PALETTE[i % PALETTE.length],
      borderColor: s.reference ? "#555" : PALETTE[i % PALETTE.length],
      borderWidth: s.reference ? 1 : 0,
      errorBarColor: "#222",
      errorBarWhiskerColor: "#222",
    }));
    new Chart(canvasIn(figure, 300), {
      type: "barWithErrorBars",
      data: { labels: spec.x, datasets },
      options: {
        scales: { y: { min: 0, max: spec.unit ? 1 : undefined, title: { display: true, text: spec.ylabel } } },
        plugins: { tooltip: tooltips(points), legend: { position: "right" } },
      },
    });
  }

  function curves(figure, spec) {
    const grid = el("div", { class: "panels" });
    figure.appendChild(grid);
    for (const panel of spec.panels) {
      const cell = el("div", { class: "panel" }, el("h4", { text: panel.title }));
      grid.appendChild(cell);
      const points = panel.series.map((s) => s.points);
      const datasets = panel.series.map((s, i) => ({
        label: s.name,
        data: s.points.map(withInterval),
        borderColor: PALETTE[i % PALETTE.length],
        backgroundColor: PALETTE[i % PALETTE.length],
        errorBarColor: PALETTE[i % PALETTE.length],
        errorBarWhiskerColor: PALETTE[i % PALETTE.length],
        spanGaps: false,
        pointStyle: ["circle", "rect", "triangle", "rectRot", "crossRot", "star"][i % 6],
        pointRadius: 4,
      }));
      const box = el("div", { class: "chart-box small" });
      const canvas = el("canvas", { role: "img", "aria-label": `${spec.title}: ${panel.title}` });
      box.appendChild(canvas);
      cell.appendChild(box);
      new Chart(canvas, {
        type: "lineWithErrorBars",
        data: { labels: spec.x, datasets },
        options: {
          scales: {
            x: { title: { display: true, text: spec.xlabel } },
            y: { min: spec.unit ? 0 : undefined, max: spec.unit ? 1 : undefined, title: { display: true, text: spec.ylabel } },
          },
          plugins: { tooltip: tooltips(points), legend: { position: "bottom" } },
        },
      });
    }
  }

  function latency(figure, spec) {
    // A box plot from floating bars that overlap (grouped: false): the whisker p5-p95 as a thin bar,
    // the box p25-p75, the median as a narrow dark bar (a fixed ratio wide, so equally wide on the
    // log axis). A bar from the axis' edge would have a length set by where the axis starts.
    const boxes = spec.boxes;
    const at = (v) => Math.max(v, 0.001);
    const bar = (label, data, colour, thickness, order) => ({
      label, data, backgroundColor: colour, grouped: false, barThickness: thickness, order,
    });
    new Chart(canvasIn(figure, 60 + 34 * boxes.length), {
      type: "bar",
      data: {
        labels: boxes.map((b) => b.name),
        datasets: [
          bar("p25-p75", boxes.map((b) => [at(b.p25), at(b.p75)]), "rgba(31,119,180,0.6)", 18, 2),
          bar("p5-p95", boxes.map((b) => [at(b.p5), at(b.p95)]), "#333", 2, 3),
          bar("median", boxes.map((b) => [at(b.p50) / 1.015, at(b.p50) * 1.015]), "#0b3a5c", 18, 1),
        ],
      },
      options: {
        indexAxis: "y",
        scales: {
          x: {
            type: "logarithmic",
            min: Math.max(0.001, Math.min(...boxes.map((b) => b.p5)) / 1.5),
            max: Math.max(...boxes.map((b) => b.p95)) * 1.5,
            title: { display: true, text: "ms per search call (log)" },
            // Ticks at 1, 2 and 5 of each decade only: a log axis labels every step otherwise.
            ticks: { callback: (v) => ([1, 2, 5].includes(Math.round(v / 10 ** Math.floor(Math.log10(v)))) && Number(v.toPrecision(1)) === v ? v : "") },
          },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            filter: (item) => item.datasetIndex === 0,
            callbacks: {
              label: (item) => {
                const b = boxes[item.dataIndex];
                return `${b.name}: median ${fmt(b.p50, 1)} ms, p25-p75 [${fmt(b.p25, 1)}, ${fmt(b.p75, 1)}], p5-p95 [${fmt(b.p5, 1)}, ${fmt(b.p95, 1)}] n=${b.n}`;
              },
            },
          },
        },
      },
    });
  }

  function stages(figure, spec) {
    // One legend for all panels (each stacks the same stages), so every panel keeps the same height.
    figure.appendChild(el("div", { class: "legend" }, spec.outcomes.map((o) =>
      el("span", { class: "legend-item" }, el("span", { class: "swatch", style: `background:${STAGE_COLOURS[o] || "#999"}` }), o === "none" ? "passed" : `fails at ${o}`))));
    const grid = el("div", { class: "panels" });
    figure.appendChild(grid);
    spec.panels.forEach((panel) => {
      const cell = el("div", { class: "panel" }, el("h4", { text: panel.title }));
      grid.appendChild(cell);
      const box = el("div", { class: "chart-box small" });
      const canvas = el("canvas", { role: "img", "aria-label": `${spec.title}: ${panel.title}` });
      box.appendChild(canvas);
      cell.appendChild(box);
      new Chart(canvas, {
        type: "bar",
        data: {
          labels: spec.systems,
          datasets: spec.outcomes.map((o) => ({
            label: o === "none" ? "passed" : `fails at ${o}`,
            data: panel.shares[o],
            backgroundColor: STAGE_COLOURS[o] || "#999",
          })),
        },
        options: {
          scales: { x: { stacked: true }, y: { stacked: true, min: 0, max: 1, title: { display: true, text: "share of questions" } } },
          plugins: { tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${fmt(item.raw)}` } }, legend: { display: false } },
        },
      });
    });
  }

  function scatter(figure, spec) {
    // A rate against the context it was bought with: one line per system through its variants, x the
    // mean context tokens (log), the rate's interval as a vertical bar; hovering names the variant.
    const points = spec.series.map((s) => s.points);
    const datasets = spec.series.map((s, i) => ({
      label: s.name,
      data: s.points.map((p) => ({ x: p.x, ...withInterval(p) })),
      showLine: true,
      borderColor: PALETTE[i % PALETTE.length],
      backgroundColor: PALETTE[i % PALETTE.length],
      errorBarColor: PALETTE[i % PALETTE.length],
      errorBarWhiskerColor: PALETTE[i % PALETTE.length],
      pointStyle: ["circle", "rect", "triangle", "rectRot", "crossRot", "star"][i % 6],
      pointRadius: 4,
    }));
    // Budgets grow by factors of two: the axis spans whole powers of two around the points, with room
    // at both ends so no point sits on the edge, and is ticked at each power as a plain number.
    const xs = points.flat().map((p) => p.x).filter((x) => x > 0);
    const low = 2 ** Math.floor(Math.log2(Math.min(...xs) / 1.2));
    const high = 2 ** Math.ceil(Math.log2(Math.max(...xs) * 1.2));
    const powers = [];
    for (let v = low; v <= high; v *= 2) powers.push(v);
    new Chart(canvasIn(figure, 360), {
      type: "scatterWithErrorBars",
      data: { datasets },
      options: {
        scales: {
          x: {
            type: "logarithmic",
            min: low,
            max: high,
            title: { display: true, text: spec.xlabel },
            afterBuildTicks: (axis) => { axis.ticks = powers.map((value) => ({ value })); },
            ticks: { callback: (v) => Number(v).toLocaleString("en") },
          },
          y: { min: 0, max: 1, title: { display: true, text: spec.ylabel } },
        },
        plugins: {
          tooltip: {
            callbacks: {
              label: (item) => {
                const point = points[item.datasetIndex][item.dataIndex];
                return `${pointLabel(item.dataset.label, point)} at ${fmt(point.x, 0)} tokens (${point.label})`;
              },
            },
          },
          legend: { position: "right" },
        },
      },
    });
  }

  function image(figure, spec) {
    figure.appendChild(el("img", { src: spec.src, alt: spec.title, class: "chart-image" }));
  }

  const DRAW = { bars, curves, latency, stages, scatter, image };

  function drawCharts(root) {
    const specs = JSON.parse(document.getElementById("memsuite-charts").textContent);
    for (const figure of root.querySelectorAll("figure[data-chart]")) {
      if (figure.dataset.drawn) continue;
      const spec = specs[figure.dataset.chart];
      if (spec && DRAW[spec.kind]) DRAW[spec.kind](figure, spec);
      figure.dataset.drawn = "1";
    }
  }

  window.MEMSUITE.drawCharts = drawCharts;
})();
