// The playground of `tilecode serve` in headless Debian Chromium: play and solve a board, take
// a hint, correct a codeword bit, repair a file. Screenshots go to docs/ (the README shows
// them). Run by tests/browser/run.sh; TILECODE_BIN names the binary to serve.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = process.env.TILECODE_BIN || root + "target/release/tilecode";
const shot = (name) => root + "docs/" + name;
let server, url, browser, page;

before(async () => {
  server = spawn(bin, ["serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((ok, fail) => {
    createInterface({ input: server.stdout }).once("line", ok);
    server.once("exit", (code) => fail(new Error("tilecode serve exited with " + code)));
  });
  url = line.match(/http:\/\/127\.0\.0\.1:\d+\//)[0];
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  page.on("pageerror", (e) => { throw e; });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

async function api(command, body) {
  const res = await fetch(url + "api/" + command, { method: "POST", body: JSON.stringify(body) });
  assert.equal(res.status, 200, command);
  return res.json();
}

const status = () => page.textContent("#g-status");
const litCells = () => page.$$eval("#g-board .cell.on", (els) => els.length);

test("a 5x5 Lights Out board is solved by clicks, and the hint's presses solve it", async () => {
  const { board } = await api("random", { game: "lights-out:5x5", seed: 11 });
  const b = board.replace(/\s+/g, "");
  await page.goto(`${url}#game&g=lights-out&m=5&n=5&q=2&t=0&b=${b}`);
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Solvable"));
  assert.equal(await litCells(), [...b].filter((c) => c === "1").length);

  // By clicks: the presses the server finds, clicked one by one.
  const { presses } = await api("solve", { game: "lights-out:5x5", board });
  for (let c = 0; c < 25; c++) {
    if (presses[c] === "1") await page.click(`#g-board .cell[data-row="${Math.floor(c / 5)}"][data-col="${c % 5}"]`);
  }
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Solved!"));
  assert.equal(await litCells(), 0);
  assert.match(page.url(), /b=0{25}/);

  // Undo brings the last position back; redo clears it again.
  await page.click("#g-undo");
  assert.notEqual(await litCells(), 0);
  await page.click("#g-redo");
  assert.equal(await litCells(), 0);

  // The hint on the same board: marked cells, proven optimal; clicking them solves it.
  await page.goto(`${url}#game&g=lights-out&m=5&n=5&q=2&t=0&b=${b}`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Solvable"));
  await page.click("#g-hint");
  await page.waitForSelector("#g-board .cell.hint");
  assert.match(await page.textContent("#g-hint-text"), /optimal/);
  await page.screenshot({ path: shot("playground-game.png") });
  const hinted = await page.$$eval("#g-board .cell.hint", (els) => els.map((e) => [e.dataset.row, e.dataset.col]));
  const shortest = await api("solve", { game: "lights-out:5x5", board, shortest: true });
  assert.equal(hinted.length, shortest.press_count);
  for (const [r, c] of hinted) await page.click(`#g-board .cell[data-row="${r}"][data-col="${c}"]`);
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Solved!"));

  // Keyboard: space presses the cursor's cell, z undoes it.
  await page.focus("#g-board");
  await page.keyboard.press("Space");
  assert.equal(await litCells(), 3);
  await page.keyboard.press("z");
  assert.equal(await litCells(), 0);
});

test("an unsolvable board shows its certificate; the solve button plays a solution", async () => {
  await page.goto(`${url}#game&g=lights-out&m=5&n=5&q=2&t=0&b=1${"0".repeat(24)}`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Not solvable"));
  assert.ok((await page.$$("#g-board .cell.cert")).length > 0);
  assert.match(await page.textContent("#g-live"), /Certificate/);
  await page.waitForFunction(() => document.querySelector("#g-quiet-label"));
  await page.screenshot({ path: shot("playground-certificate.png") });

  // A 3-state Alien Tiles board from the random button, solved by the solve button.
  await page.selectOption("#g-game", "alien");
  await page.selectOption("#g-states", "3");
  await page.click("#g-random");
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Solvable"));
  await page.click("#g-solve");
  await page.waitForFunction(() => document.querySelector("#g-status").textContent.startsWith("Solved!"), null, { timeout: 20000 });
});

test("a flipped codeword bit is corrected at its row and column", async () => {
  await page.goto(`${url}#code&text=tile&size=5x5`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector("#c-verdict").textContent.startsWith("clean"));
  await page.click('#c-grid .cell[data-row="2"][data-col="3"]');
  await page.waitForFunction(() => document.querySelector("#c-verdict").textContent.startsWith("corrected"));
  assert.equal(await page.textContent("#c-verdict"), "corrected at (2, 3)");
  assert.equal((await page.$$("#c-grid .par.lit")).length, 2);
  await page.click("#s-bits .cell >> nth=4");
  await page.waitForFunction(() => document.querySelector("#s-verdict").textContent.startsWith("corrected"));
  assert.equal(await page.textContent("#s-verdict"), "corrected at position 4");
  await page.screenshot({ path: shot("playground-code.png"), fullPage: true });
  await page.click('#c-grid .cell[data-row="4"][data-col="1"]');
  await page.waitForFunction(() => document.querySelector("#c-verdict").textContent.startsWith("detected"));
});

test("a small file is encoded, damaged, decoded and downloaded back", async () => {
  const file = Buffer.from(Array.from({ length: 3000 }, (_, i) => `line ${i} of a small file\n`).join(""));
  await page.goto(`${url}#stream`);
  await page.reload();
  await page.setInputFiles("#f-file", { name: "small.txt", mimeType: "text/plain", buffer: file });
  await page.click("#f-encode");
  await page.waitForSelector("#f-damage:not([disabled])");
  // Random flips (the slider at 1e-5) and a burst as long as the interleave depth: repaired.
  await page.fill("#f-ber", "25");
  await page.fill("#f-burst", "64");
  await page.click("#f-run");
  await page.waitForFunction(() => document.querySelector("#f-status").textContent.includes("restored exactly"));
  assert.match(await page.textContent("#f-report"), /corrected bits\d+/);
  assert.equal(await page.getAttribute("#f-map-stream", "data-worst"), "2");
  assert.equal(await page.getAttribute("#f-map-file", "data-worst"), "1");
  await page.screenshot({ path: shot("playground-stream.png"), fullPage: true });
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#f-get-restored")]);
  assert.deepEqual(readFileSync(await download.path()), file);

  // A zeroed sector is more than the code corrects: the recovery chunks rebuild it.
  await page.fill("#f-zero", "4096");
  await page.click("#f-run");
  await page.waitForFunction(() => /rebuilt from recovery chunks[1-9]/.test(document.querySelector("#f-report").textContent));
  assert.match(await page.textContent("#f-status"), /restored exactly/);

  // Without recovery chunks the same sector is lost: reported, in red on the map, and never
  // a wrong byte outside the reported ranges.
  await page.selectOption("#f-recovery", "0");
  await page.click("#f-encode");
  await page.waitForFunction(() => document.querySelector("#f-encoded").textContent.includes(", 0% recovery"));
  await page.click("#f-run");
  await page.waitForFunction(() => document.querySelector("#f-status").textContent.startsWith("damaged"));
  assert.equal(await page.getAttribute("#f-map-file", "data-worst"), "3");
  await page.screenshot({ path: shot("playground-stream-lost.png"), fullPage: true });
});

test("the page presses as the library does: stencils, torus, states, lines, quiet patterns", async () => {
  // An asymmetric stencil on a 6x7 torus with 3 states has unique solutions: after pressing
  // (0, 0) and (2, 3) once, the only solution presses each of them twice more.
  await page.goto(`${url}#game&g=stencil&m=6&n=7&q=3&t=1&s=110/011/010&b=${"0".repeat(42)}`);
  await page.reload();
  await page.click('#g-board .cell[data-row="0"][data-col="0"]');
  await page.click('#g-board .cell[data-row="2"][data-col="3"]');
  const b = new URL(page.url()).hash.match(/b=(\d+)/)[1];
  const board = b.match(/.{7}/g).join("\n");
  const r = await api("solve", { game: "stencil:110/011/010:6x7", torus: true, states: 3, board });
  const expected = "0".repeat(42).split("");
  expected[0] = "2";
  expected[17] = "2";
  assert.equal(r.presses, expected.join(""));

  // Editing the stencil changes the game.
  await page.click("#g-stencil .cell >> nth=0");
  assert.match(decodeURIComponent(page.url()), /s=010\/011\/010/);

  // Gale–Berlekamp flips whole rows and columns.
  await page.goto(`${url}#game&g=gale-berlekamp&m=3&n=4&q=2&t=0&b=${"0".repeat(12)}`);
  await page.reload();
  await page.click("#g-board .cell.line >> nth=4"); // the first row's button
  assert.equal(await litCells(), 4);
  await page.click("#g-board .cell.line >> nth=0"); // the first column's button
  assert.equal(await litCells(), 5);

  // A quiet pattern, shown and pressed, leaves the board as it was.
  await page.goto(`${url}#game&g=lights-out&m=5&n=5&q=2&t=0&b=1100110000000000000000011`);
  await page.reload();
  await page.waitForSelector("#g-quiet-label");
  await page.click("#g-quiet button:text('show')");
  assert.ok((await page.$$("#g-board .cell.quiet")).length > 0);
  const before = new URL(page.url()).hash;
  await page.click("#g-quiet button:text('press it')");
  assert.equal(new URL(page.url()).hash, before);
});
