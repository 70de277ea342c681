// Stream mode: encode a file, damage the stream, decode it and map what came back.
"use strict";

const stream = { name: "", file: null, encoded: null, damaged: null, restored: null, zeroed: null, urls: [] };

// The slider's bit error rate: 0, then 1e-6 .. 1e-2 on a log scale.
function berValue() {
  const v = Number($("f-ber").value);
  return v === 0 ? 0 : Number((10 ** (-6 + (4 * v) / 100)).toPrecision(2));
}

function showSliders() {
  $("f-ber-out").textContent = berValue() ? berValue().toExponential(1) : "off";
  $("f-burst-out").textContent = Number($("f-burst").value) ? $("f-burst").value + " bits" : "off";
  $("f-zero-out").textContent = Number($("f-zero").value) ? $("f-zero").value + " bytes" : "off";
  $("f-zero-at-out").textContent = $("f-zero-at").value + "% into the stream";
}

function loaded(name, bytes) {
  stream.name = name;
  stream.file = bytes;
  stream.encoded = null;
  $("f-encode").disabled = false;
  $("f-damage").disabled = true;
  $("f-result").hidden = true;
  $("f-encoded").textContent = `${name}: ${bytes.length} bytes, ready to encode.`;
}

// A sample of about 48 KiB: readable text, so a damaged restore is visible when downloaded.
function sample() {
  const line = "The solvable Alien Tiles boards form a code: one row parity and one column parity find a flipped bit.\n";
  return new TextEncoder().encode(Array.from({ length: 480 }, (_, i) => `${i + 1}: ${line}`).join(""));
}

async function encodeFile() {
  try {
    const r = await api("encode", {
      data: toBase64(stream.file), code: $("f-code").value, interleave: Number($("f-interleave").value),
      recovery: Number($("f-recovery").value),
    });
    stream.encoded = fromBase64(r.data);
    $("f-encoded").textContent = `encoded ${r.bytes_in} bytes into ${r.bytes_out} with ${r.code} ` +
      `(n = ${r.n}, k = ${r.k}), interleave ${r.interleave}, ${r.recovery}% recovery chunks: ${(100 * (r.bytes_out / Math.max(1, r.bytes_in) - 1)).toFixed(1)}% overhead.`;
    $("f-damage").disabled = false;
  } catch (e) {
    $("f-encoded").textContent = e.message;
  }
}

async function damageAndDecode() {
  const keys = { data: toBase64(stream.encoded), seed: Number($("f-seed").value) || 0 };
  if (berValue()) keys.ber = berValue();
  const burst = Number($("f-burst").value);
  if (burst) keys.burst = String(Math.min(burst, stream.encoded.length * 8));
  const zero = Math.min(Number($("f-zero").value), stream.encoded.length);
  stream.zeroed = null;
  if (zero) {
    const at = Math.floor(((stream.encoded.length - zero) * Number($("f-zero-at").value)) / 100 / 512) * 512;
    keys.zero = `${zero}@${at}`;
    stream.zeroed = [at, at + zero];
  }
  try {
    stream.damaged = keys.ber || keys.burst || keys.zero
      ? fromBase64((await api("corrupt", keys)).data) : stream.encoded;
    const r = await api("decode", { data: toBase64(stream.damaged) });
    stream.restored = fromBase64(r.data);
    report(r);
  } catch (e) {
    $("f-result").hidden = false;
    setStatus($("f-status"), e.message, "bad");
    $("f-report").innerHTML = "";
  }
}

function report(r) {
  $("f-result").hidden = false;
  const same = stream.restored.length === stream.file.length && stream.restored.every((b, i) => b === stream.file[i]);
  const kind = r.status === "damaged" ? "bad" : "good";
  const says = { clean: "clean: nothing to correct", repaired: "repaired: every byte verified", damaged: "damaged: some bytes could not be restored" };
  setStatus($("f-status"), says[r.status] + (same ? " — the file is restored exactly" : " — the file differs from the original"), kind);
  const flipped = stream.damaged.reduce((n, b, i) => n + popcount(b ^ stream.encoded[i]), 0);
  const lost = r.damaged_ranges.reduce((n, [a, b]) => n + (b - a), 0);
  const rows = [
    ["bits damaged in the stream", flipped], ["corrected bits", r.corrected_bits],
    ["codewords", r.codewords], ["uncorrectable codewords", r.uncorrectable_codewords],
    ["damaged byte ranges", r.damaged_ranges.length ? `${r.damaged_ranges.map(([a, b]) => `[${a}, ${b})`).slice(0, 6).join(" ")}${r.damaged_ranges.length > 6 ? " …" : ""} (${lost} bytes)` : "none"],
    ["checksum", r.checksum_ok ? "ok" : "mismatch"], ["status", r.status],
  ];
  // Format 2 streams also rebuild whole chunks from Reed–Solomon recovery chunks.
  if (r.recovered_chunks !== undefined) {
    rows.splice(4, 0, ["chunks rebuilt from recovery chunks", r.recovered_chunks], ["chunks lost", r.lost_chunks]);
  }
  $("f-report").innerHTML = "";
  for (const [k, v] of rows) {
    const tr = $("f-report").insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = String(v);
  }
  drawMap($("f-map-stream"), stream.encoded.length, (i) =>
    stream.zeroed && i >= stream.zeroed[0] && i < stream.zeroed[1] ? 3 : stream.damaged[i] !== stream.encoded[i] ? 2 : 1,
  ["", "#cfd8dc", "#f4a261", "#264653"]);
  // The page knows the original, so it can tell the reported ranges' wrong bytes from the
  // ones that came back right although no check could prove it.
  drawMap($("f-map-file"), stream.file.length, (i) => {
    const inRange = r.damaged_ranges.some(([a, b]) => i >= a && i < b);
    const right = stream.restored[i] === stream.file[i];
    return inRange ? (right ? 2 : 3) : right ? 1 : 4;
  }, ["", "#2a9d8f", "#f4b6bb", "#e63946", "#9b2fff"]);
  links();
}

function popcount(b) {
  let n = 0;
  for (; b; b &= b - 1) n++;
  return n;
}

// One column of pixels per run of bytes, coloured by the worst class among them.
function drawMap(canvas, len, classOf, colours) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  const per = Math.max(1, Math.ceil(len / w));
  let overall = 0;
  for (let x = 0; x * per < len; x++) {
    let worst = 0;
    for (let i = x * per; i < Math.min(len, (x + 1) * per); i++) worst = Math.max(worst, classOf(i));
    overall = Math.max(overall, worst);
    const columns = Math.ceil(len / per);
    const x0 = Math.floor((x * w) / columns), x1 = Math.floor(((x + 1) * w) / columns);
    ctx.fillStyle = colours[worst];
    ctx.fillRect(x0, 0, Math.max(1, x1 - x0), h);
  }
  canvas.dataset.worst = String(overall);
}

function links() {
  for (const u of stream.urls) URL.revokeObjectURL(u);
  stream.urls = [];
  const box = $("f-links");
  box.innerHTML = "download: ";
  for (const [label, bytes, name] of [
    ["encoded", stream.encoded, stream.name + ".tc"],
    ["damaged", stream.damaged, stream.name + ".damaged.tc"],
    ["restored", stream.restored, "restored-" + stream.name],
  ]) {
    const url = URL.createObjectURL(new Blob([bytes]));
    stream.urls.push(url);
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.textContent = label;
    a.id = "f-get-" + label;
    box.append(a, " ");
  }
}

modes.stream = {
  init() {
    $("f-file").addEventListener("change", async () => {
      const f = $("f-file").files[0];
      if (f) loaded(f.name, new Uint8Array(await f.arrayBuffer()));
    });
    $("f-sample").addEventListener("click", () => loaded("sample.txt", sample()));
    $("f-encode").addEventListener("click", encodeFile);
    $("f-run").addEventListener("click", damageAndDecode);
    for (const id of ["f-ber", "f-burst", "f-zero", "f-zero-at"]) $(id).addEventListener("input", showSliders);
    showSliders();
  },
  show() { urlState.write("stream"); },
};
