// Game mode: the panel around the board: analysis, live status, quiet patterns, hint,
// solve, random boards, keyboard and the stencil editor.
"use strict";

// A new game: rebuild the board (kept when it still fits) and analyse the game.
function newGame(keepBoard) {
  const cells = game.rows * game.cols;
  if (!keepBoard || game.board.length !== cells) game.board = new Array(cells).fill(0);
  game.board = game.board.map((v) => Math.min(v, game.states - 1));
  game.past = [];
  game.future = [];
  game.cursor = Math.min(game.cursor, cells - 1);
  $("g-stencil-box").hidden = game.kind !== "stencil";
  build();
  setOverlay("cert", []);
  changed();
  analyse();
}

async function analyse() {
  const spec = gameSpec();
  try {
    const a = await api("analyze", gameKeys());
    if (spec !== gameSpec()) return;
    game.quiet = a.quiet_patterns;
    game.quietAt = 0;
    const q = game.states;
    const total = q === 2 ? `2^${a.cells}` : `${q}^${a.cells}`;
    const space = q === 2
      ? `The solvable boards form a space of dimension ${a.rank} (2^${a.rank} of ${total} boards, ${a.solvable_fraction})`
      : `Solvable boards: ${a.solvable_boards} of ${total} (${a.solvable_fraction}); rank ${a.rank}`;
    $("g-live").dataset.space = space + (a.completely_solvable ? " — every board is solvable" : "");
    showQuiet();
    refreshLive();
  } catch (e) {
    $("g-live").dataset.space = "";
    setStatus($("g-status"), e.message, "bad");
  }
}

function showQuiet(overlay = false) {
  const box = $("g-quiet");
  box.innerHTML = "";
  if (!game.quiet.length) {
    box.textContent = "No quiet patterns: every solvable board has exactly one solution.";
    return;
  }
  const k = game.quietAt;
  const nav = document.createElement("div");
  nav.className = "qnav";
  const button = (label, fn) => {
    const b = document.createElement("button");
    b.textContent = label;
    b.addEventListener("click", fn);
    nav.append(b);
    return b;
  };
  button("‹", () => { game.quietAt = (k + game.quiet.length - 1) % game.quiet.length; showQuiet(true); });
  const label = document.createElement("span");
  label.id = "g-quiet-label";
  label.textContent = `quiet pattern ${k + 1} of ${game.quiet.length}`;
  nav.append(label);
  button("›", () => { game.quietAt = (k + 1) % game.quiet.length; showQuiet(true); });
  button("show", () => showQuiet(true));
  button("press it", () => {
    remember();
    counts(game.quiet[k]).forEach((t, mv) => t && press(mv, t, false));
    showQuiet(true);
  });
  box.append(nav);
  const note = document.createElement("p");
  note.className = "small";
  note.textContent = "A quiet pattern: pressing its moves (marked by “show”) changes nothing, so adding it to a solution gives another one.";
  box.append(note);
  setOverlay("quiet", overlay ? counts(game.quiet[k]) : []);
}

// Solvable or not, live; an unsolvable board shows its certificate.
const refreshLive = debounce(async () => {
  const text = boardText();
  const status = $("g-status");
  const space = $("g-live").dataset.space || "";
  $("g-live").textContent = space;
  if (game.board.every((v) => v === 0)) {
    setOverlay("cert", []);
    setStatus(status, "Solved! Every light is off.", "good");
    return;
  }
  try {
    const r = await api("solve", { ...gameKeys(), board: text });
    if (text !== boardText()) return;
    if (r.solvable) {
      setOverlay("cert", []);
      setStatus(status, `Solvable: ${game.board.filter((v) => v).length} lights on.`, "");
    } else {
      setOverlay("cert", r.certificate ? counts(r.certificate) : []);
      setStatus(status, "Not solvable.", "bad");
      $("g-live").textContent = (r.certificate
        ? (game.states === 2
          ? "Certificate: the outlined cells meet every move an even number of times but the board an odd number of times, so no presses can clear it."
          : `Certificate: weights on the outlined cells sum to 0 mod ${game.states} over every move but not over the board.`)
        : "Light chasing proved it.") + " " + space;
    }
  } catch (e) {
    setStatus(status, e.message, "bad");
  }
}, 120);

async function hint() {
  try {
    const r = await api("solve", { ...gameKeys(), board: boardText(), shortest: game.states === 2 });
    if (!r.solvable) { $("g-hint-text").textContent = "No hint: this board cannot be solved."; return null; }
    const c = counts(r.presses);
    setOverlay("hint", c);
    const why = r.optimal
      ? (r.search ? "optimal, proven by " + r.search : "optimal: the only solution")
      : (r.lower_bound != null ? `best found; every solution needs at least ${r.lower_bound}` : `one of ${r.solutions} solutions`);
    $("g-hint-text").textContent = `Press the ${r.press_count} marked moves (${why}).`;
    $("g-hint-text").dataset.optimal = String(r.optimal);
    return c;
  } catch (e) {
    $("g-hint-text").textContent = e.message;
    return null;
  }
}

async function solveIt() {
  if (game.busy) return;
  const c = await hint();
  if (!c) return;
  game.busy = true;
  remember();
  for (let mv = 0; mv < c.length; mv++) {
    if (!c[mv]) continue;
    press(mv, c[mv], false);
    setOverlay("hint", c.map((v, i) => (i > mv ? v : 0)));
    await new Promise((ok) => setTimeout(ok, 180));
  }
  game.busy = false;
}

async function randomBoard() {
  try {
    const r = await api("random", gameKeys());
    remember();
    game.board = r.board.replace(/\s+/g, "").split("").map(Number);
    changed();
  } catch (e) {
    setStatus($("g-status"), e.message, "bad");
  }
}

function keydown(e) {
  const n = game.cols, c = game.cursor;
  const move = { ArrowLeft: c % n ? c - 1 : c, ArrowRight: c % n < n - 1 ? c + 1 : c,
    ArrowUp: c >= n ? c - n : c, ArrowDown: c + n < game.board.length ? c + n : c };
  if (e.key in move) { game.cursor = move[e.key]; paint(); }
  else if (e.key === " " || e.key === "Enter") {
    const i = Math.floor(c / n);
    press(game.kind === "gale-berlekamp" ? (e.shiftKey ? game.rows + (c % n) : i) : c);
  } else if (e.key === "h") hint();
  else if (e.key === "s") solveIt();
  else if (e.key === "n") randomBoard();
  else if (e.key === "z") undo(game.past, game.future);
  else if (e.key === "y") undo(game.future, game.past);
  else return;
  e.preventDefault();
}

// The stencil re-centred in a `size` x `size` grid (cells beyond it are dropped).
function resizeStencil(size) {
  const rows = game.stencil.split("/");
  const h = rows.length, w = rows[0].length;
  return Array.from({ length: size }, (_, r) => Array.from({ length: size }, (_, c) => {
    const y = r - (size - h) / 2, x = c - (size - w) / 2;
    return y >= 0 && y < h && x >= 0 && x < w ? rows[y][x] : "0";
  }).join("")).join("/");
}

function buildStencilEditor() {
  $("g-stencil-size").value = String(game.stencil.split("/").length);
  const box = $("g-stencil");
  box.innerHTML = "";
  const rows = game.stencil.split("/");
  box.style.gridTemplateColumns = `repeat(${rows[0].length}, auto)`;
  rows.forEach((row, r) => [...row].forEach((v, c) => {
    const b = document.createElement("button");
    b.className = "cell" + (v === "1" ? " on" : "");
    b.title = r === (rows.length - 1) / 2 && c === (row.length - 1) / 2 ? "the pressed cell" : "";
    b.addEventListener("click", () => {
      const grid = game.stencil.split("/").map((x) => [...x]);
      grid[r][c] = grid[r][c] === "1" ? "0" : "1";
      game.stencil = grid.map((x) => x.join("")).join("/");
      buildStencilEditor();
      newGame(true);
    });
    box.append(b);
  }));
}

modes.game = {
  init(params) {
    const states = $("g-states");
    for (let q = 2; q <= 9; q++) states.add(new Option(String(q), String(q)));
    if (params) {
      const num = (k, lo, hi, d) => Math.max(lo, Math.min(hi, Number(params.get(k)) || d));
      game.kind = params.get("g") || game.kind;
      game.rows = num("m", 1, 20, 5);
      game.cols = num("n", 1, 20, 5);
      game.states = num("q", 2, 9, 2);
      game.torus = params.get("t") === "1";
      const st = params.get("s") || "";
      if (/^([01]{3}\/){2}[01]{3}$|^([01]{5}\/){4}[01]{5}$|^([01]{7}\/){6}[01]{7}$/.test(st)) game.stencil = st;
      const b = (params.get("b") || "").split("").map(Number);
      if (b.length === game.rows * game.cols && b.every((v) => v >= 0 && v < game.states)) game.board = b;
    }
    $("g-game").value = game.kind;
    $("g-rows").value = game.rows;
    $("g-cols").value = game.cols;
    states.value = String(game.states);
    $("g-torus").checked = game.torus;
    const controls = () => {
      game.kind = $("g-game").value;
      game.rows = Math.max(1, Math.min(20, Number($("g-rows").value) || 5));
      game.cols = Math.max(1, Math.min(20, Number($("g-cols").value) || 5));
      game.states = Number(states.value);
      game.torus = $("g-torus").checked;
      newGame(false);
    };
    for (const id of ["g-game", "g-rows", "g-cols", "g-states", "g-torus"]) $(id).addEventListener("change", controls);
    $("g-hint").addEventListener("click", hint);
    $("g-solve").addEventListener("click", solveIt);
    $("g-random").addEventListener("click", randomBoard);
    $("g-clear").addEventListener("click", () => { remember(); game.board.fill(0); changed(); });
    $("g-undo").addEventListener("click", () => undo(game.past, game.future));
    $("g-redo").addEventListener("click", () => undo(game.future, game.past));
    $("g-board").addEventListener("keydown", keydown);
    $("g-stencil-size").addEventListener("change", () => {
      game.stencil = resizeStencil(Number($("g-stencil-size").value));
      buildStencilEditor();
      newGame(true);
    });
    buildStencilEditor();
    newGame(true);
  },
  show() { saveUrl(); },
};
