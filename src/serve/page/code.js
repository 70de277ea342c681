// Code mode: a message, its Alien Tiles codeword and a SECDED codeword of the same length;
// flip bits and watch each decoder's verdict.
"use strict";

const code = { m: 5, n: 5, alien: [], sent: [], secded: [], secdedSent: [], k: 0, secdedK: 0 };

// The first `k` bits of the message's UTF-8 bytes, most significant bit first, zero-padded.
function messageBits(text, k) {
  const bytes = new TextEncoder().encode(text);
  return Array.from({ length: k }, (_, i) =>
    i < bytes.length * 8 ? (bytes[i >> 3] >> (7 - (i & 7))) & 1 : 0);
}

// The role of cell (i, j) of an odd-by-odd alien codeword (the library's layout).
function role(i, j) {
  if (i === 0 && j === 0) return "msg";
  if (i === 0) return "rowpar";
  if (j === 0) return "colpar";
  return "msg";
}

async function encodeCodes() {
  const text = $("c-text").value;
  [code.m, code.n] = $("c-size").value.split("x").map(Number);
  const spec = `alien:${code.m}x${code.n}`;
  const len = code.m * code.n;
  try {
    const info = await api("info", { spec });
    const sinfo = await api("info", { spec: `secded:${len}` });
    code.k = info.k;
    code.secdedK = sinfo.k;
    const a = await api("word/encode", { spec, bits: messageBits(text, info.k).join("") });
    const s = await api("word/encode", { spec: `secded:${len}`, bits: messageBits(text, sinfo.k).join("") });
    code.alien = [...a.codeword].map(Number);
    code.sent = code.alien.slice();
    code.secded = [...s.codeword].map(Number);
    code.secdedSent = code.secded.slice();
    $("c-title").textContent = `${spec}: n = ${len}, k = ${info.k}, d = ${info.d}`;
    $("s-title").textContent = `secded:${len}: n = ${len}, k = ${sinfo.k}, d = ${sinfo.d}`;
    $("c-message").textContent = `message bits: ${a.message} (the first ${info.k} bits of “${text}”)`;
    urlState.write("code", { text, size: $("c-size").value });
    drawCode();
    await decodeBoth();
  } catch (e) {
    setStatus($("c-verdict"), e.message, "bad");
  }
}

function drawCode() {
  const grid = $("c-grid");
  grid.innerHTML = "";
  grid.style.gridTemplateColumns = `repeat(${code.n + 1}, auto)`;
  const rowPar = [], colPar = new Array(code.n).fill(0);
  for (let i = 0; i < code.m; i++) {
    let p = 0;
    for (let j = 0; j < code.n; j++) {
      const c = i * code.n + j, v = code.alien[c];
      p ^= v;
      colPar[j] ^= v;
      const b = document.createElement("button");
      b.className = `cell ${role(i, j)}` + (v ? " one" : "") + (v !== code.sent[c] ? " flipped" : "");
      b.dataset.row = i;
      b.dataset.col = j;
      b.title = `row ${i}, column ${j}: click to flip`;
      b.addEventListener("click", () => { code.alien[c] ^= 1; drawCode(); decodeBoth(); });
      grid.append(b);
    }
    rowPar.push(p);
    grid.append(parity(p, `parity of row ${i}`));
  }
  // In a codeword every row has the same parity and so has every column: the odd ones out
  // are the syndrome, and a single error sits where they cross.
  const odd = (ps) => { const ones = ps.filter((x) => x).length; return ones * 2 > ps.length ? 0 : 1; };
  const rowOdd = odd(rowPar), colOdd = odd(colPar);
  [...grid.querySelectorAll(".par")].forEach((el, i) => el.classList.toggle("lit", rowPar[i] === rowOdd));
  colPar.forEach((p, j) => {
    const el = parity(p, `parity of column ${j}`);
    el.classList.toggle("lit", p === colOdd);
    grid.append(el);
  });
}

function parity(p, title) {
  const el = document.createElement("span");
  el.className = "par";
  el.textContent = String(p);
  el.title = title;
  return el;
}

function drawSecded() {
  const box = $("s-bits");
  box.innerHTML = "";
  code.secded.forEach((v, i) => {
    const b = document.createElement("button");
    b.className = "cell" + (v ? " on" : "") + (v !== code.secdedSent[i] ? " flipped" : "");
    b.textContent = String(v);
    b.title = `bit ${i}: click to flip`;
    b.addEventListener("click", () => { code.secded[i] ^= 1; drawSecded(); decodeBoth(); });
    box.append(b);
  });
}

function verdict(r, where) {
  if (r.status === "clean") return ["clean: no error", "good"];
  if (r.status === "corrected") return [`corrected at ${where(r)}`, "good"];
  return ["detected: more errors than the code corrects", "warn"];
}

async function decodeBoth() {
  drawSecded();
  const len = code.m * code.n;
  try {
    const a = await api("word/decode", { spec: `alien:${code.m}x${code.n}`, bits: code.alien.join("") });
    const [text, kind] = verdict(a, (r) => r.error_cells.map((c) => `(${c.row}, ${c.column})`).join(" "));
    setStatus($("c-verdict"), text, kind);
    for (const c of a.error_cells || []) {
      const el = $("c-grid").querySelector(`[data-row="${c.row}"][data-col="${c.column}"]`);
      if (el) el.classList.add("fixed");
    }
    const s = await api("word/decode", { spec: `secded:${len}`, bits: code.secded.join("") });
    const [stext, skind] = verdict(s, (r) => "position " + r.errors.join(", "));
    setStatus($("s-verdict"), stext, skind);
  } catch (e) {
    setStatus($("c-verdict"), e.message, "bad");
  }
}

modes.code = {
  init(params) {
    if (params) {
      if (params.get("text") != null) $("c-text").value = params.get("text");
      if (["3x3", "5x5", "7x7", "9x9"].includes(params.get("size"))) $("c-size").value = params.get("size");
    }
    $("c-text").addEventListener("input", debounce(encodeCodes, 200));
    $("c-size").addEventListener("change", encodeCodes);
    $("c-reset").addEventListener("click", encodeCodes);
    this.ready = false;
  },
  show() {
    if (!this.ready) { this.ready = true; encodeCodes(); }
    else urlState.write("code", { text: $("c-text").value, size: $("c-size").value });
  },
};
