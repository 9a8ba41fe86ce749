// The page's data: the metadata inlined in index.html, and the chunks (index and details) that arrive
// as script files beside it. A chunk script calls MEMSUITE.chunk(name, base64 of gzip of JSON); the
// promise of load(name) resolves with the parsed JSON. Nothing is fetched: file:// pages may not fetch.
"use strict";
window.MEMSUITE = (function () {
  const meta = JSON.parse(document.getElementById("memsuite-meta").textContent);
  const pending = {};
  const loaded = {};

  async function inflate(base64) {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function chunk(name, payload) {
    const waiting = pending[name] || [];
    delete pending[name];
    if (!waiting.length) return;
    const parsed = inflate(payload);
    for (const w of waiting) parsed.then(w.resolve, w.reject);
  }

  function fetchChunk(name) {
    return new Promise((resolve, reject) => {
      (pending[name] = pending[name] || []).push({ resolve, reject });
      const script = document.createElement("script");
      script.src = `${meta.files}/data/${name}.js`;
      script.onerror = () => reject(new Error(`cannot load ${script.src}`));
      script.onload = () => script.remove();
      document.head.appendChild(script);
    });
  }

  // A chunk, kept once loaded (the index, the details).
  function load(name) {
    if (!loaded[name]) loaded[name] = fetchChunk(name);
    return loaded[name];
  }

  // The context chunk holding a row: [name, first row] from meta.context_chunks (ordered by first row).
  function contextChunk(row) {
    const chunks = meta.context_chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (chunks[mid][1] <= row) lo = mid;
      else hi = mid - 1;
    }
    return chunks[lo];
  }

  // Context chunks are not kept: the free-text filter reads every one of them in turn, and holding
  // them all would hold every context of a large run. The last one read stays for the next question.
  let lastContext = null;
  async function contextPart(chunk) {
    if (!lastContext || lastContext.name !== chunk[0]) {
      lastContext = { name: chunk[0], part: fetchChunk(chunk[0]) };
    }
    return lastContext.part;
  }

  // One row's kept context: { text, spans } (spans: [start, end) of the kept parts in the whole text).
  async function context(row) {
    const chunk = contextChunk(row);
    const [text, spans] = (await contextPart(chunk))[row - chunk[1]];
    return { text, spans };
  }

  let index = null;
  // Every index entry as an object named by meta.fields, with its position as `row`.
  function loadIndex() {
    if (index) return index;
    index = Promise.all(meta.index_chunks.map(load)).then((parts) => {
      const rows = [];
      for (const part of parts) {
        for (const entry of part) {
          const row = { row: rows.length };
          meta.fields.forEach((field, i) => (row[field] = entry[i]));
          rows.push(row);
        }
      }
      return rows;
    });
    return index;
  }

  // The details of one row (its chunk is loaded on first use).
  async function details(row) {
    const name = meta.details_chunks[Math.floor(row / meta.details_chunk)];
    const part = await load(name);
    return part[row % meta.details_chunk];
  }

  function questionKey(row) {
    return `${row.unit}/${row.question_id}`;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  return { meta, chunk, load, loadIndex, details, context, contextChunk, contextPart, questionKey, el };
})();
