// The board of game mode: the game, its moves, pressing, drawing, overlays and history.
"use strict";

const game = {
  kind: "lights-out", rows: 5, cols: 5, states: 2, torus: false, stencil: "010/111/010",
  board: [], past: [], future: [], cursor: 0, quiet: [], quietAt: 0, busy: false,
  cellEls: [], moveEls: [],
};

// The spec the API reads, such as `stencil:010/111/010:5x5`.
function gameSpec() {
  const kind = game.kind === "stencil" ? "stencil:" + game.stencil : game.kind;
  return `${kind}:${game.rows}x${game.cols}`;
}

function gameKeys() {
  return { game: gameSpec(), torus: game.torus, states: game.states };
}

function moveCount() {
  return game.kind === "gale-berlekamp" ? game.rows + game.cols : game.rows * game.cols;
}

// The cells move `mv` changes, each once (as the library's Game::move_cells).
function moveCells(mv) {
  const m = game.rows, n = game.cols;
  if (game.kind === "gale-berlekamp") {
    if (mv < m) return Array.from({ length: n }, (_, j) => mv * n + j);
    return Array.from({ length: m }, (_, i) => i * n + (mv - m));
  }
  const i = Math.floor(mv / n), j = mv % n;
  if (game.kind === "alien") {
    const cells = Array.from({ length: n }, (_, c) => i * n + c);
    for (let r = 0; r < m; r++) if (r !== i) cells.push(r * n + j);
    return cells;
  }
  const pattern = game.kind === "lights-out" ? "010/111/010"
    : game.kind === "squares" ? "111/111/111" : game.stencil;
  const rows = pattern.split("/");
  const ch = (rows.length - 1) / 2, cw = (rows[0].length - 1) / 2;
  const cells = new Set();
  rows.forEach((row, r) => [...row].forEach((v, c) => {
    if (v !== "1") return;
    let y = i + r - ch, x = j + c - cw;
    if (game.torus) { y = ((y % m) + m) % m; x = ((x % n) + n) % n; }
    if (y >= 0 && y < m && x >= 0 && x < n) cells.add(y * n + x);
  }));
  return [...cells];
}

function boardText() {
  const n = game.cols;
  const rows = [];
  for (let i = 0; i < game.rows; i++) rows.push(game.board.slice(i * n, (i + 1) * n).join(""));
  return rows.join("\n");
}

function remember() {
  game.past.push(game.board.slice());
  if (game.past.length > 500) game.past.shift();
  game.future = [];
}

// Presses move `mv` `times` times, animating the cells it changes.
function press(mv, times = 1, record = true) {
  if (record) remember();
  for (const c of moveCells(mv)) {
    game.board[c] = (game.board[c] + times) % game.states;
    const el = game.cellEls[c];
    el.classList.remove("flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("flash");
  }
  changed();
}

function changed(clearOverlay = true) {
  if (clearOverlay) setOverlay("hint", []), setOverlay("quiet", []);
  paint();
  saveUrl();
  refreshLive();
}

function paint() {
  game.board.forEach((v, c) => {
    const el = game.cellEls[c];
    el.classList.toggle("on", v !== 0);
    el.classList.toggle("q", game.states > 2);
    el.textContent = game.states > 2 && v ? v : "";
    el.setAttribute("aria-pressed", String(v !== 0));
  });
  game.cellEls.forEach((el, c) => el.classList.toggle("cursor", c === game.cursor));
}

// Marks the moves (or, for certificates, cells) with `cls`; counts > 1 are written on them.
function setOverlay(cls, counts) {
  const els = cls === "cert" ? game.cellEls : game.moveEls;
  els.forEach((el, i) => {
    const k = counts[i] || 0;
    el.classList.toggle(cls, k !== 0);
    if (cls === "hint") {
      el.dataset.hint = k ? String(k) : "";
      el.classList.toggle("many", k > 1);
    }
  });
}

function saveUrl() {
  urlState.write("game", {
    g: game.kind, m: game.rows, n: game.cols, q: game.states, t: game.torus ? 1 : 0,
    s: game.stencil, b: game.board.join(""),
  });
}

function build() {
  const board = $("g-board");
  board.innerHTML = "";
  const gb = game.kind === "gale-berlekamp";
  board.style.gridTemplateColumns = `repeat(${game.cols + (gb ? 1 : 0)}, auto)`;
  // Cells shrink on large boards so that a 20 x 20 board still fits beside the panel.
  const side = Math.max(game.rows, game.cols) + (gb ? 1 : 0);
  board.style.setProperty("--cell", Math.max(16, Math.min(44, Math.floor(480 / side) - 3)) + "px");
  game.cellEls = [];
  game.moveEls = [];
  const lineButton = (mv, label) => {
    const b = document.createElement("button");
    b.className = "cell line";
    b.textContent = label;
    b.title = mv < game.rows ? `flip row ${mv + 1}` : `flip column ${mv - game.rows + 1}`;
    b.addEventListener("click", () => press(mv));
    game.moveEls[mv] = b;
    return b;
  };
  if (gb) {
    const corner = document.createElement("span");
    corner.className = "cell blank";
    board.append(corner);
    for (let j = 0; j < game.cols; j++) board.append(lineButton(game.rows + j, "▼"));
  }
  for (let i = 0; i < game.rows; i++) {
    if (gb) board.append(lineButton(i, "▶"));
    for (let j = 0; j < game.cols; j++) {
      const c = i * game.cols + j;
      const b = document.createElement("button");
      b.className = "cell";
      b.dataset.row = i;
      b.dataset.col = j;
      b.tabIndex = -1;
      b.setAttribute("aria-label", `row ${i + 1}, column ${j + 1}`);
      if (!gb) {
        b.addEventListener("click", () => { game.cursor = c; press(c); });
        game.moveEls[c] = b;
      }
      game.cellEls[c] = b;
      board.append(b);
    }
  }
}

// Press counts per move from the API's presses or patterns (string or rows/cols object).
function counts(presses) {
  const out = new Array(moveCount()).fill(0);
  if (typeof presses === "string") {
    const digits = presses.includes(",") ? presses.split(",") : [...presses];
    digits.forEach((d, i) => { out[i] = Number(d); });
  } else if (presses.rows) {
    presses.rows.forEach((r) => { out[r] = 1; });
    presses.cols.forEach((c) => { out[game.rows + c] = 1; });
  } else {
    presses.row_counts.forEach((v, i) => { out[i] = v; });
    presses.col_counts.forEach((v, j) => { out[game.rows + j] = v; });
  }
  return out;
}

function undo(from, to) {
  if (!from.length) return;
  to.push(game.board.slice());
  game.board = from.pop();
  changed();
}
