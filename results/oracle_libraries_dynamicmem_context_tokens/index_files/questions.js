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
    const cut = meta.context_cut
      ? `${meta.context_cut} of ${meta.rows} contexts are kept in part: the search reads what the page keeps (rows.jsonl has them whole)`
      : null;
    form.appendChild(el("label", { class: "filter" }, el("span", { text: "text" }),
      el("input", { type: "search", name: "text", id: "filter-text", "data-filter": "text", placeholder: "question, gold, answer, id, context", title: cut })));
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

  // The filters but free text, as one test of an index entry.
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
    return (r) => tests.every((t) => t(r));
  }

  function searchText() {
    const input = document.getElementById("filter-text");
    return input ? input.value.trim().toLowerCase() : "";
  }

  function inIndex(r, text) {
    if (r.haystack === undefined) {
      r.haystack = [r.unit, r.question_id, r.question, r.gold, r.answer || ""].join("\n").toLowerCase();
    }
    return r.haystack.includes(text);
  }

  // What the context search knows for its last text: the rows read and those that matched. A text that
  // holds the last one can match only where the last one did, so the rows it missed are not read again.
  let contextHits = { text: null, checked: new Set(), matched: new Set() };
  let searchRun = 0;

  // The rows of `candidates` whose kept context holds `text`, reading one context chunk at a time;
  // null when a newer search started meanwhile.
  async function searchContexts(candidates, text, run, status) {
    if (contextHits.text !== text) {
      const narrower = contextHits.text !== null && text.includes(contextHits.text);
      const missed = new Set();
      if (narrower) for (const row of contextHits.checked) if (!contextHits.matched.has(row)) missed.add(row);
      contextHits = { text, checked: missed, matched: new Set() };
    }
    const hits = contextHits;
    const byChunk = new Map();
    for (const r of candidates) {
      if (hits.checked.has(r.row)) continue;
      const chunk = M.contextChunk(r.row);
      if (!byChunk.has(chunk)) byChunk.set(chunk, []);
      byChunk.get(chunk).push(r.row);
    }
    let done = 0;
    for (const [chunk, wanted] of byChunk) {
      status.textContent = `searching the retrieved contexts: ${done} of ${byChunk.size} parts read`;
      const part = await M.contextPart(chunk);
      if (run !== searchRun) return null;
      for (const row of wanted) {
        const [kept, spans] = part[row - chunk[1]];
        // Each kept part on its own: a match may not run across a cut.
        let at = 0;
        for (const [start, end] of spans) {
          if (kept.slice(at, at + end - start).toLowerCase().includes(text)) {
            hits.matched.add(row);
            break;
          }
          at += end - start;
        }
        hits.checked.add(row);
      }
      done++;
    }
    return new Set(candidates.filter((r) => hits.matched.has(r.row)).map((r) => r.row));
  }

  // Filter the index; free text matches the index texts at once and the retrieved contexts after
  // their chunks are read. #result-count's data-state is "searching" until the count is final.
  async function apply(toPage) {
    const run = ++searchRun;
    const count = document.getElementById("result-count");
    const status = document.getElementById("search-status");
    const keep = matcher();
    const base = rows.filter(keep);
    const text = searchText();
    const show = (list, state, note) => {
      shown = list;
      count.textContent = String(list.length);
      count.dataset.state = state;
      status.textContent = note;
    };
    if (!text) {
      show(base, "done", "");
      render(toPage);
      return;
    }
    const quick = new Set();
    const rest = [];
    for (const r of base) (inIndex(r, text) ? quick.add(r.row) : rest.push(r));
    show(base.filter((r) => quick.has(r.row)), "searching", "searching the retrieved contexts");
    render(toPage);
    const inContext = await searchContexts(rest, text, run, status);
    if (inContext === null) return;
    const partly = meta.context_cut ? ` (as the page keeps it: ${meta.context_cut} of ${meta.rows} contexts in part)` : "";
    show(base.filter((r) => quick.has(r.row) || inContext.has(r.row)), "done",
      `${quick.size} in question, gold, answer or id; ${inContext.size} more in the retrieved context${partly}`);
    render(page);
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

  // The context with each retrieved evidence item (plain strings, as they are) and the free-text
  // search (in any case) marked.
  function marked(text, items, search) {
    const found = items.filter((i) => i.length > 0);
    // Lower-casing may change a string's length (a few letters outside ASCII); then positions would
    // not line up, and the search is not marked.
    const lower = search && text.toLowerCase();
    const caseless = lower && lower.length === text.length;
    const nodes = [];
    let at = 0;
    while (at < text.length) {
      let best = -1;
      let length = 0;
      let kind = "";
      for (const candidate of found) {
        const i = text.indexOf(candidate, at);
        if (i >= 0 && (best < 0 || i < best || (i === best && candidate.length > length))) {
          [best, length, kind] = [i, candidate.length, "evidence"];
        }
      }
      if (caseless) {
        const i = lower.indexOf(search, at);
        if (i >= 0 && (best < 0 || i < best)) [best, length, kind] = [i, search.length, "search"];
      }
      if (best < 0) break;
      nodes.push(text.slice(at, best), el("mark", { class: kind, text: text.slice(best, best + length) }));
      at = best + length;
    }
    nodes.push(text.slice(at));
    return nodes;
  }

  function contextBlock(d, context) {
    const items = d.evidence.filter((e) => e.found).map((e) => e.item);
    const parts = [];
    let offset = 0;
    let previous = 0;
    for (const [start, end] of context.spans) {
      if (start > previous) parts.push(el("span", { class: "gap", text: `\n… ${start - previous} characters left out …\n` }));
      parts.push(...marked(context.text.slice(offset, offset + end - start), items, searchText()));
      offset += end - start;
      previous = end;
    }
    if (previous < d.context_chars) parts.push(el("span", { class: "gap", text: `\n… ${d.context_chars - previous} characters left out` }));
    const showing = context.text.length < d.context_chars
      ? `showing ${context.text.length} of ${d.context_chars} characters (the rest is in rows.jsonl)`
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
    const [d, context] = await Promise.all([M.details(index), M.context(index)]);
    if (box.dataset.row !== String(index)) return; // another question was opened meanwhile
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
      ...contextBlock(d, context),
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
    const series = meta.series;
    const options = series.map(([, , label], i) => el("option", { value: i, text: label }));
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
    const ia = Number(form.elements.a.value);
    const ib = Number(form.elements.b.value);
    const [ra, sa, la] = series[ia] || [];
    const [rb, sb, lb] = series[ib] || [];
    const j = Number(form.elements.judge.value);
    if (!meta.judges.length) {
      out.appendChild(el("p", { class: "note", text: "No row carries a judge's verdict (the benchmark scores its rows by other measures): there is nothing to pair." }));
      return;
    }
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
      mcnemarLine(ia, ib, j, counts, la, lb),
      el("p", { class: "note", text: `Questions both systems were asked and judge ${meta.judges[j]} decided for both; ${counts.undecided} shared questions left out (undecided, failed or not judged). The ${discordant.length} discordant pairs below are the ones McNemar's test counts.` }));
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

  function pValue(p) {
    return p >= 0.001 ? p.toFixed(3) : p.toExponential(1);
  }

  // McNemar's exact test of the pair as the report computed it (meta.mcnemar: "i-k-judge" for series
  // i < k), checked against the counts the page made from the index.
  function mcnemarLine(ia, ib, j, counts, la, lb) {
    const swap = ia > ib;
    const entry = meta.mcnemar[swap ? `${ib}-${ia}-${j}` : `${ia}-${ib}-${j}`];
    const decided = counts.pp + counts.pf + counts.fp + counts.ff;
    if (!entry) {
      if (decided) throw new Error(`no McNemar test for ${la} and ${lb} though ${decided} questions were decided for both`);
      return el("p", { class: "mcnemar note", text: `No question was decided for both by judge ${meta.judges[j]}: nothing to test.` });
    }
    const [aOnly, bOnly, p] = swap ? [entry[1], entry[0], entry[2]] : entry;
    if (aOnly !== counts.pf || bOnly !== counts.fp) {
      throw new Error(`McNemar counts ${aOnly}/${bOnly} differ from the page's ${counts.pf}/${counts.fp}`);
    }
    const text = aOnly + bOnly
      ? `McNemar's exact test (two-sided) on the ${aOnly + bOnly} discordant pairs: p = ${pValue(p)}`
      : "McNemar's exact test: no discordant pair, nothing to test (p = 1)";
    return el("p", { class: "mcnemar", "data-p": p, "data-a-only": aOnly, "data-b-only": bOnly, text });
  }

  M.showQuestions = showQuestions;
  M.showQuestion = showQuestion;
  M.showPaired = showPaired;
})();
