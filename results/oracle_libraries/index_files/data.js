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
    const waiting = pending[name];
    if (!waiting) return;
    inflate(payload).then(waiting.resolve, waiting.reject);
  }

  function load(name) {
    if (loaded[name]) return loaded[name];
    loaded[name] = new Promise((resolve, reject) => {
      pending[name] = { resolve, reject };
      const script = document.createElement("script");
      script.src = `${meta.files}/data/${name}.js`;
      script.onerror = () => reject(new Error(`cannot load ${script.src}`));
      script.onload = () => script.remove();
      document.head.appendChild(script);
    });
    return loaded[name];
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

  return { meta, chunk, load, loadIndex, details, questionKey, el };
})();
