// The views and the route (location.hash): #overview, #questions[/disagree], #question/<unit>/<id>[/<row>],
// #paired, #judges.
"use strict";
(function () {
  const M = window.MEMSUITE;
  const VIEWS = ["overview", "questions", "paired", "judges"];

  function showView(name) {
    for (const view of VIEWS) {
      const section = document.getElementById(`view-${view}`);
      if (section) section.hidden = view !== name;
    }
    for (const link of document.querySelectorAll("nav a[data-view]")) {
      link.classList.toggle("active", link.dataset.view === name);
    }
  }

  async function route() {
    const parts = decodeURIComponent(location.hash.replace(/^#/, "")).split("/").filter(Boolean);
    const [head, ...rest] = parts.length ? parts : ["overview"];
    try {
      if (head === "question") {
        showView("questions");
        await M.showQuestion(rest);
      } else if (head === "questions") {
        showView("questions");
        await M.showQuestions(rest);
      } else if (head === "paired") {
        showView("paired");
        await M.showPaired();
      } else if (head === "judges" && document.getElementById("view-judges")) {
        showView("judges");
      } else {
        showView("overview");
      }
    } catch (error) {
      document.body.dataset.error = String(error);
      throw error;
    }
  }

  window.addEventListener("hashchange", route);
  M.drawCharts(document.getElementById("view-overview"));
  // Ready: the first view is drawn. readyMs (since navigation start) is what perf/html_report_scale.py reads.
  route().then(() => {
    document.body.dataset.readyMs = performance.now().toFixed(1);
    document.body.dataset.ready = "1";
  });
})();
