// What every page has: the broker link in the header, and a password form
// when the page logs in with an account (`user=` in the URL or config.json).

import { fill, h } from "./dom.js";

const WORDS = {
  connecting: "Connecting…",
  up: "Live",
  down: "No connection",
  error: "Connection error",
  refused: "Login refused",
};

/** Shows the link's state in #link; returns the Link's onLink callback. */
export function linkStatus(config) {
  const el = document.getElementById("link");
  for (const a of document.querySelectorAll("nav a")) a.search = location.search; // same broker, tables
  return (state, detail) => {
    el.dataset.link = state;
    fill(el, h("span", { class: "dot", "aria-hidden": "true" }), WORDS[state] ?? state,
      h("span", { class: "link-detail" }, state === "up" ? config.broker : detail ?? ""));
    if (state === "refused") askPassword(config, `The broker refused the login: ${detail}`);
  };
}

let starter = null;

function askPassword(config, message) {
  const dialog = document.getElementById("login");
  if (!dialog || !starter) return;
  const field = h("input", { type: "password", id: "password", name: "password", autocomplete: "current-password", required: true });
  fill(dialog,
    h("form", { method: "dialog", onsubmit: (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(`croupier:${config.broker}:${config.username}`, field.value);
      dialog.close();
      starter(field.value);
    } },
      h("h2", null, "Log in to the broker"),
      message ? h("p", { class: "login-error", role: "alert" }, message) : null,
      h("p", null, "Account ", h("strong", null, config.username), " on ", config.broker),
      h("label", { for: "password" }, "Password"), field,
      h("button", { type: "submit" }, "Connect"),
    ));
  dialog.showModal();
  field.focus();
}

/** Starts the link at once, or after asking for the account's password. */
export function login(config, start) {
  starter = start;
  if (!config.username || config.password) {
    start(config.password);
    return;
  }
  const kept = sessionStorage.getItem(`croupier:${config.broker}:${config.username}`);
  if (kept) start(kept);
  else askPassword(config, null);
}
