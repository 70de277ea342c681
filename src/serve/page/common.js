// Shared helpers: the API, the tabs and the state kept in the address bar.
"use strict";

const $ = (id) => document.getElementById(id);

// POST /api/<command>: resolves to the JSON answer, rejects with the server's error message.
async function api(command, body) {
  const res = await fetch("/api/" + command, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error || res.status + " " + res.statusText);
  return json;
}

// Runs the latest call of `fn` only, `ms` after the last request for it.
function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

function setStatus(el, text, kind) {
  el.textContent = text;
  el.className = "status" + (kind ? " " + kind : "");
}

// The address bar holds `#mode&key=value...`; each mode reads and writes its own keys.
const urlState = {
  read() {
    const [mode, ...rest] = location.hash.slice(1).split("&");
    const params = new URLSearchParams(rest.join("&"));
    return { mode: mode || "game", params };
  },
  write(mode, params) {
    const query = params ? "&" + new URLSearchParams(params).toString() : "";
    history.replaceState(null, "", "#" + mode + query);
  },
};

const modes = {};

function showMode(mode) {
  for (const tab of document.querySelectorAll("nav button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.mode === mode));
  }
  for (const section of document.querySelectorAll(".mode")) {
    section.hidden = section.id !== "mode-" + mode;
  }
  if (modes[mode]) modes[mode].show();
}

window.addEventListener("DOMContentLoaded", () => {
  for (const tab of document.querySelectorAll("nav button")) {
    tab.addEventListener("click", () => showMode(tab.dataset.mode));
  }
  const { mode, params } = urlState.read();
  for (const name of Object.keys(modes)) modes[name].init(mode === name ? params : null);
  showMode(modes[mode] ? mode : "game");
});

// Base64 of bytes and back, for the stream commands.
function toBase64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
