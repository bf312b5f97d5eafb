// The dealer's screen: one table, read at arm's length. What the table
// waits for, the last cards out of the shoe and how each was read, and the
// alerts still to resolve.

import { card, fill, h, throttle } from "./dom.js";
import { Link, settings } from "./link.js";
import { expectation, phaseName, roundNow } from "./model.js";
import { linkStatus, login } from "./page.js";
import { alerts, badges, boxes, dealer, read } from "./views.js";

const TOPICS = ["status", "info", "state", "events", "outcome", "outcome/last", "alerts", "bridge"];

/** When the table or the broker is gone, that comes before anything the last state asked. */
function halted(table, linkUp) {
  if (!linkUp) return { who: "No connection", ask: "reconnecting to the broker…", key: true, halted: true };
  const live = table.liveness();
  if (live === "lost") return { who: "Table lost", ask: "the table stopped: wait for it to restart", key: true, halted: true };
  if (live === "offline") return { who: "Table stopped", ask: "the table is not running", key: true, halted: true };
  return null;
}

function next(table, linkUp) {
  const e = halted(table, linkUp) ?? expectation(table.state);
  const unreadable = e.key ? table.reads.find((r) => r.unreadable) : null;
  return h("section", { class: `next${e.key ? " key" : ""}`, "aria-labelledby": "next-title" },
    h("h2", { id: "next-title", class: "visually-hidden" }, "Next"),
    h("p", { class: "next-who" }, e.who),
    h("p", { class: "next-ask", "data-expecting": e.halted ? "" : table.state?.expecting?.what ?? "" }, e.ask),
    e.card ? h("p", { class: "next-card" }, card(e.card)) : null,
    unreadable?.confidence !== null && unreadable ? h("p", { class: "next-detail" }, `read at confidence ${unreadable.confidence.toFixed(2)}`) : null,
  );
}

function screen(table, linkUp, dismiss) {
  const state = table.state;
  return [
    h("header", { class: "dealer-head", "data-table": table.id, "data-seq": state?.seq ?? "" },
      h("h1", null, "Table ", table.id),
      badges(table, linkUp),
      h("span", { class: "dealer-round" }, state ? `Round ${roundNow(state)} · ${phaseName(state.phase)}` : ""),
    ),
    next(table, linkUp),
    h("div", { class: "dealer-columns" },
      h("section", { class: "reads", "aria-labelledby": "reads-title" },
        h("h2", { id: "reads-title" }, "Last cards"),
        table.reads.length ? h("ol", { class: "read-list" }, table.reads.slice(0, 6).map(read)) : h("p", { class: "empty" }, "No card yet.")),
      h("section", { class: "to-resolve", "aria-labelledby": "resolve-title" },
        h("h2", { id: "resolve-title" }, "Alerts to resolve"),
        alerts(table, 5, dismiss)),
    ),
    h("section", { class: "dealer-table", "aria-label": "the layout" }, dealer(state), boxes(table)),
  ];
}

async function main() {
  const config = await settings();
  const root = document.getElementById("dealer");
  const announce = document.getElementById("announce");
  let link = null;
  let drawnVersion = null;
  const draw = throttle(() => {
    const table = link.tables.list()[0];
    if (!table) {
      fill(root, h("p", { class: "waiting" }, "Waiting for a table on ", config.broker, "…"));
      return;
    }
    const version = `${table.version}:${link.up}`;
    if (version === drawnVersion) return;
    drawnVersion = version;
    const dismiss = (id) => table.dismiss(id) || draw();
    fill(root, screen(table, link.up, dismiss));
    const e = halted(table, link.up) ?? expectation(table.state);
    const say = `${e.who}: ${e.ask}`;
    if (announce.textContent !== say) announce.textContent = say; // read out once per change
  });
  // The dealer's screen is one table's: the first listed.
  link = new Link({ ...config, tables: config.tables.slice(0, 1) }, TOPICS, draw, linkStatus(config));
  login(config, (password) => link.start(password));
  draw();
}

main();
