// The question browser (filters over the whole index, a page of questions at a time, a question's
// details loaded with its chunk) and the paired view (two systems, the questions one passes and the
// other fails).
"use strict";
(function () {
  const M = window.MEMSUITE;
  const { meta, el } = M;
  const PAGE = 50;
  const VERDICT = { p: "pass", f: "fail", u: "undecided" };
  let rows = null;
  let shown = [];
  let page = 0;

  function counter(values, key) {
    const counts = new Map();
    for (const row of rows) {
      const value = key(row);
      if (value === null || value === undefined) continue;
      counts.set(value, (counts.get(value) || 0) + 1);
    }
    return counts;
  }

  function select(name, label, options) {
    const node = el("select", { name, id: `filter-${name}`, "data-filter": name },
      el("option", { value: "", text: "any" }),
      options.map(([value, text, count]) => el("option", { value: String(value), "data-count": count, text: `${text} (${count})` })));
    return el("label", { class: "filter" }, el("span", { text: label }), node);
  }

  function buildFilters() {
    const form = document.getElementById("filters");
    form.textContent = "";
    const byIndex = (names, field) => {
      const counts = counter(rows, (r) => r[field]);
      return names.map((name, i) => [i, name, counts.get(i) || 0]).filter((o) => o[2] > 0);
    };
    form.appendChild(el("label", { class: "filter" }, el("span", { text: "text" }),
      el("input", { type: "search", name: "text", id: "filter-text", "data-filter": "text", placeholder: "question, gold, answer, id" })));
    form.appendChild(select("run", "run", byIndex(meta.runs, "run")));
    form.appendChild(select("system", "system", byIndex(meta.systems, "system")));
    if (meta.cells.length) form.appendChild(select("cell", "task / category", byIndex(meta.cells, "cell")));
    meta.judges.forEach((judge, j) => {
      const counts = counter(rows, (r) => r.verdicts[j]);
      const options = Object.entries(VERDICT).map(([letter, text]) => [letter, text, counts.get(letter) || 0]).filter((o) => o[2] > 0);
      if (options.length) form.appendChild(select(`judge-${j}`, `judge ${judge}`, options));
    });
    if (meta.stages.length) form.appendChild(select("stage", "failure stage", byIndex(meta.stages, "stage")));
    const disagreeing = rows.filter((r) => r.disagree).length;
    if (disagreeing) {
      form.appendChild(el("label", { class: "filter check" },
        el("input", { type: "checkbox", name: "disagree", id: "filter-disagree", "data-filter": "disagree", "data-count": disagreeing }),
        el("span", { text: `judges disagree (${disagreeing})` })));
    }
    form.appendChild(el("button", { type: "reset", text: "clear filters" }));
    form.addEventListener("input", () => apply(0));
    form.addEventListener("reset", () => setTimeout(() => apply(0)));
  }

  function matcher() {
    const form = document.getElementById("filters");
    const value = (name) => (form.elements[name] ? form.elements[name].value : "");
    const tests = [];
    for (const field of ["run", "system", "cell", "stage"]) {
      const wanted = value(field);
      if (wanted !== "") tests.push((r) => r[field] === Number(wanted));
    }
    meta.judges.forEach((_, j) => {
      const wanted = value(`judge-${j}`);
      if (wanted) tests.push((r) => r.verdicts[j] === wanted);
    });
    if (form.elements.disagree && form.elements.disagree.checked) tests.push((r) => r.disagree === 1);
    const text = value("text").trim().toLowerCase();
    if (text) {
      tests.push((r) => {
        if (r.haystack === undefined) {
          r.haystack = [r.unit, r.question_id, r.question, r.gold, r.answer || ""].join("\n").toLowerCase();
        }
        return r.haystack.includes(text);
      });
    }
    return (r) => tests.every((t) => t(r));
  }

  function apply(toPage) {
    const keep = matcher();
    shown = rows.filter(keep);
    document.getElementById("result-count").textContent = String(shown.length);
    render(toPage);
  }

  function badge(letter, judge) {
    return el("span", { class: `verdict v-${letter}`, title: `${judge}: ${VERDICT[letter] || "not judged"}`, text: `${judge} ${VERDICT[letter] || "–"}` });
  }

  function render(toPage) {
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(Math.max(0, toPage), pages - 1);
    const list = document.getElementById("question-list");
    list.textContent = "";
    for (const row of shown.slice(page * PAGE, (page + 1) * PAGE)) {
      const badges = meta.judges.map((judge, j) => (row.verdicts[j] === "-" ? null : badge(row.verdicts[j], judge)));
      const item = el("li", { class: "question", "data-question": M.questionKey(row), "data-row": row.row, tabindex: 0 },
        el("div", { class: "q-head" },
          el("span", { class: "q-id", text: M.questionKey(row) }),
          el("span", { class: "q-system", text: `${meta.runs[row.run]} / ${meta.systems[row.system]}` }),
          row.cell !== null ? el("span", { class: "q-cell", text: meta.cells[row.cell] }) : null,
          row.stage !== null ? el("span", { class: `q-stage stage-${meta.stages[row.stage]}`, text: `stage: ${meta.stages[row.stage]}` }) : null,
          row.disagree ? el("span", { class: "q-disagree", text: "judges disagree" }) : null,
          badges),
        el("div", { class: "q-text", text: row.question }),
        row.answer !== null ? el("div", { class: "q-answer", text: `answer: ${row.answer}` }) : null);
      item.addEventListener("click", () => openRow(row.row));
      item.addEventListener("keydown", (e) => e.key === "Enter" && openRow(row.row));
      list.appendChild(item);
    }
    document.getElementById("page-info").textContent = shown.length ? `· page ${page + 1} of ${pages}` : "";
    document.getElementById("prev-page").disabled = page === 0;
    document.getElementById("next-page").disabled = page >= pages - 1;
  }

  function marked(text, items) {
    // The context with each retrieved evidence item marked; items are plain strings.
    const found = items.filter((i) => i.length > 0);
    const nodes = [];
    let at = 0;
    while (at < text.length && found.length) {
      let best = -1;
      let item = "";
      for (const candidate of found) {
        const i = text.indexOf(candidate, at);
        if (i >= 0 && (best < 0 || i < best || (i === best && candidate.length > item.length))) {
          best = i;
          item = candidate;
        }
      }
      if (best < 0) break;
      nodes.push(text.slice(at, best), el("mark", { class: "evidence", text: item }));
      at = best + item.length;
    }
    nodes.push(text.slice(at));
    return nodes;
  }

  function contextBlock(d) {
    const items = d.evidence.filter((e) => e.found).map((e) => e.item);
    const parts = [];
    let offset = 0;
    let previous = 0;
    for (const [start, end] of d.context_spans) {
      if (start > previous) parts.push(el("span", { class: "gap", text: `\n… ${start - previous} characters left out …\n` }));
      parts.push(...marked(d.context.slice(offset, offset + end - start), items));
      offset += end - start;
      previous = end;
    }
    if (previous < d.context_chars) parts.push(el("span", { class: "gap", text: `\n… ${d.context_chars - previous} characters left out` }));
    const showing = d.context.length < d.context_chars
      ? `showing ${d.context.length} of ${d.context_chars} characters (the rest is in rows.jsonl)`
      : `${d.context_chars} characters`;
    return [el("h4", { text: `Retrieved context (${showing})` }), el("pre", { class: "context" }, parts)];
  }

  function verdictTable(d) {
    const rowsOut = Object.entries(d.verdicts).map(([judge, v]) => {
      const letter = typeof v === "object" && v !== null ? (v.failure || typeof v.correct !== "boolean" ? "u" : v.correct ? "p" : "f") : "-";
      const extra = typeof v === "object" && v !== null
        ? Object.entries(v).filter(([k]) => !["correct", "reason", "judge"].includes(k)).map(([k, x]) => `${k}: ${typeof x === "object" ? JSON.stringify(x) : x}`).join("; ")
        : String(v);
      return el("tr", { class: "verdict-row", "data-judge": judge },
        el("td", { text: judge }), el("td", {}, badge(letter, "")),
        el("td", { text: (v && v.reason) || "" }), el("td", { class: "extra", text: extra }));
    });
    return el("table", { class: "verdicts" },
      el("thead", {}, el("tr", {}, el("th", { text: "judge" }), el("th", { text: "verdict" }), el("th", { text: "reason" }), el("th", { text: "details" }))),
      el("tbody", {}, rowsOut));
  }

  function fieldList(pairs) {
    return el("dl", { class: "fields" }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== "").flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: typeof v === "object" ? JSON.stringify(v) : String(v) })]));
  }

  async function openRow(index) {
    const row = rows[index];
    const box = document.getElementById("question-detail");
    box.hidden = false;
    box.dataset.question = M.questionKey(row);
    box.dataset.row = String(index);
    box.textContent = "";
    box.appendChild(el("p", { class: "loading", text: "Loading…" }));
    for (const item of document.querySelectorAll(".question.open")) item.classList.remove("open");
    const item = document.querySelector(`.question[data-row="${index}"]`);
    if (item) item.classList.add("open");
    const d = await M.details(index);
    // The details repeat a text only when the index holds it cut.
    const question = d.question ?? row.question;
    const gold = d.gold ?? row.gold;
    const answer = d.answer ?? row.answer;
    const siblings = rows.filter((r) => r.unit === row.unit && r.question_id === row.question_id && r.row !== index);
    box.textContent = "";
    const parts = [
      el("button", { type: "button", class: "close", text: "close", onclick: () => { box.hidden = true; } }),
      el("h3", { class: "detail-title", text: `${M.questionKey(row)} · ${meta.runs[row.run]} / ${meta.systems[row.system]}` }),
      el("p", { class: "detail-question", text: question }),
      fieldList([
        ["gold", typeof gold === "string" ? gold : JSON.stringify(gold)],
        ["answer", answer === null ? "(no answer LLM: retrieval only)" : answer],
        ["task / category", row.cell !== null ? meta.cells[row.cell] : null],
        ["failure stage", row.stage !== null ? meta.stages[row.stage] : null],
        ["outcome", row.outcome === null ? "left out of the rate" : row.outcome],
        ["outcome judge", d.judge],
        ["retrieval latency (ms)", d.retrieve_ms === null ? null : Number(d.retrieve_ms).toFixed(1)],
        ["answer latency (ms)", d.answer_ms === null ? null : Number(d.answer_ms).toFixed(1)],
        ...Object.entries(d.usage || {}).filter(([k]) => !k.endsWith("_ms")).map(([k, v]) => [k.replaceAll("_", " "), v]),
      ]),
      el("h4", { text: "Verdicts" }),
      verdictTable(d),
      d.evidence.length
        ? el("div", { class: "evidence-list" }, el("h4", { text: "Evidence items" }),
          el("ul", {}, d.evidence.map((e) => el("li", { class: e.found ? "found" : "missing", text: `${e.item} — ${e.found ? "retrieved" : "not retrieved"}` }))))
        : null,
      ...contextBlock(d),
      siblings.length
        ? el("div", { class: "siblings" }, el("h4", { text: "The same question elsewhere" }),
          el("ul", {}, siblings.map((s) => el("li", {}, el("a", { href: `#question/${M.questionKey(s)}/${s.row}`, text: `${meta.runs[s.run]} / ${meta.systems[s.system]}` }), " ", meta.judges.map((j, k) => (s.verdicts[k] === "-" ? null : badge(s.verdicts[k], j)))))))
        : null,
      el("details", { class: "metadata" }, el("summary", { text: "metadata" }), el("pre", { text: JSON.stringify(d.metadata, null, 1) })),
    ];
    box.append(...parts.filter((part) => part !== null));
    box.scrollIntoView({ block: "nearest" });
  }

  async function showQuestions(route) {
    if (!rows) {
      rows = await M.loadIndex();
      buildFilters();
      document.getElementById("prev-page").addEventListener("click", () => render(page - 1));
      document.getElementById("next-page").addEventListener("click", () => render(page + 1));
      apply(0);
    }
    if (route[0] === "disagree" && document.getElementById("filter-disagree")) {
      document.getElementById("filter-disagree").checked = true;
      apply(0);
    }
  }

  // #question/<unit>/<question_id>[/<row>]: that row, else the first row of that question.
  async function showQuestion(route) {
    await showQuestions([]);
    // Unit ids may hold "/" and question ids may be numbers: try "<key>/<row>" first, then "<key>".
    const last = route[route.length - 1];
    const withRow = route.slice(0, -1).join("/");
    let index = null;
    if (/^\d+$/.test(last) && rows[Number(last)] && M.questionKey(rows[Number(last)]) === withRow) {
      index = Number(last);
    } else {
      const found = rows.find((r) => M.questionKey(r) === route.join("/"));
      index = found ? found.row : null;
    }
    if (index !== null) await openRow(index);
  }

  // -- paired view ---------------------------------------------------------------------------------

  async function showPaired() {
    if (!rows) await showQuestions([]);
    const form = document.getElementById("paired-form");
    if (form.dataset.built) return;
    form.dataset.built = "1";
    const series = [];
    for (const [r, run] of meta.runs.entries()) {
      for (const system of meta.run_systems[run] || []) series.push([r, meta.systems.indexOf(system), `${run} / ${system}`]);
    }
    const options = series.map(([r, s, label], i) => el("option", { value: i, text: label }));
    const judges = meta.judges.map((j, i) => el("option", { value: i, text: j }));
    form.append(
      el("label", {}, "system A ", el("select", { name: "a", id: "paired-a" }, options.map((o) => o.cloneNode(true)))),
      el("label", {}, "system B ", el("select", { name: "b", id: "paired-b" }, options.map((o) => o.cloneNode(true)))),
      el("label", {}, "judge ", el("select", { name: "judge", id: "paired-judge" }, judges)));
    if (series.length > 1) form.elements.b.value = "1";
    form.addEventListener("input", () => renderPaired(series));
    renderPaired(series);
  }

  function renderPaired(series) {
    const form = document.getElementById("paired-form");
    const out = document.getElementById("paired-result");
    out.textContent = "";
    const [ra, sa, la] = series[Number(form.elements.a.value)] || [];
    const [rb, sb, lb] = series[Number(form.elements.b.value)] || [];
    const j = Number(form.elements.judge.value);
    if (la === undefined || lb === undefined || la === lb) {
      out.appendChild(el("p", { class: "note", text: "Pick two different systems." }));
      return;
    }
    const of = (r, s) => new Map(rows.filter((x) => x.run === r && x.system === s).map((x) => [M.questionKey(x), x]));
    const a = of(ra, sa);
    const b = of(rb, sb);
    const counts = { pp: 0, pf: 0, fp: 0, ff: 0, undecided: 0 };
    const discordant = [];
    for (const [key, x] of a) {
      const y = b.get(key);
      if (!y) continue;
      const vx = x.verdicts[j];
      const vy = y.verdicts[j];
      if (!"pf".includes(vx) || !"pf".includes(vy) || vx === "-" || vy === "-") {
        counts.undecided++;
        continue;
      }
      counts[vx + vy]++;
      if (vx !== vy) discordant.push([key, x, y, vx]);
    }
    out.append(
      el("table", { class: "data paired-counts" },
        el("thead", {}, el("tr", {}, el("th", { text: "" }), el("th", { text: `${lb} passes` }), el("th", { text: `${lb} fails` }))),
        el("tbody", {},
          el("tr", {}, el("th", { text: `${la} passes` }), el("td", { class: "num", text: counts.pp }), el("td", { class: "num", "data-count": "a-only", text: counts.pf })),
          el("tr", {}, el("th", { text: `${la} fails` }), el("td", { class: "num", "data-count": "b-only", text: counts.fp }), el("td", { class: "num", text: counts.ff })))),
      el("p", { class: "note", text: `Questions both systems were asked and judge ${meta.judges[j]} decided for both; ${counts.undecided} shared questions left out (undecided, failed or not judged). The ${discordant.length} discordant pairs are the ones McNemar's test counts (memsuite compare gives the test).` }));
    const list = el("ol", { class: "pairs", id: "paired-list" });
    const pager = el("div", { class: "pager" });
    out.append(list, pager);
    const pages = Math.max(1, Math.ceil(discordant.length / PAGE));
    const show = (at) => {
      list.textContent = "";
      list.start = at * PAGE + 1;
      for (const [key, x, y, vx] of discordant.slice(at * PAGE, (at + 1) * PAGE)) {
        list.appendChild(el("li", { class: "pair", "data-question": key },
          el("span", { class: "q-id", text: key }), " ",
          el("span", { class: vx === "p" ? "a-wins" : "b-wins", text: vx === "p" ? `only ${la} passes` : `only ${lb} passes` }), " ",
          el("a", { href: `#question/${key}/${x.row}`, text: "A" }), " · ",
          el("a", { href: `#question/${key}/${y.row}`, text: "B" }),
          el("div", { class: "q-text", text: x.question })));
      }
      pager.textContent = "";
      if (pages > 1) {
        pager.append(
          el("button", { type: "button", id: "paired-prev", disabled: at === 0, onclick: () => show(at - 1), text: "previous" }),
          el("span", { class: "note", text: ` page ${at + 1} of ${pages} ` }),
          el("button", { type: "button", id: "paired-next", disabled: at >= pages - 1, onclick: () => show(at + 1), text: "next" }));
      }
    };
    show(0);
  }

  M.showQuestions = showQuestions;
  M.showQuestion = showQuestion;
  M.showPaired = showPaired;
})();
