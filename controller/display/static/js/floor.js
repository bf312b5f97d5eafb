// The floor overview: every table on one page, live; status at a glance,
// rounds per hour, shoe, the last round and the alerts. A tile opens the
// table's pit display.

import { clock, fill, h, money, throttle } from "./dom.js";
import { Link, settings } from "./link.js";
import { phaseName, roundNow } from "./model.js";
import { linkStatus, login } from "./page.js";
import { badges } from "./views.js";

// No `events`: a floor of tables does not need every operation.
const TOPICS = ["status", "info", "state", "outcome", "outcome/last", "alerts", "bridge"];
const RECENT_MS = 10 * 60 * 1000; // an alert this recent marks the tile

function pitLink(config, id) {
  const query = new URLSearchParams({ tables: id });
  const own = new URLSearchParams(location.search);
  for (const key of ["broker", "republish", "user"]) if (own.has(key)) query.set(key, own.get(key));
  return `./?${query}`;
}

function tile(config, table, linkUp, now) {
  const state = table.state;
  const rate = table.roundsPerHour(now);
  const last = table.lastOutcome();
  const recent = table.alertsSince(now, RECENT_MS);
  const newest = table.alerts.find((a) => now - a.at <= RECENT_MS);
  const shoe = state?.shoe;
  return h("li", { class: `tile ${table.liveness()}${recent ? " alerting" : ""}${table.staleness(linkUp) ? " stale" : ""}`, "data-table": table.id },
    h("a", { href: pitLink(config, table.id), title: `open table ${table.id}'s display` },
      h("div", { class: "tile-head" }, h("h2", null, table.id), badges(table, linkUp)),
      h("dl", { class: "tile-facts" },
        h("div", null, h("dt", null, "Round"), h("dd", null, state ? String(roundNow(state)) : "—")),
        h("div", null, h("dt", null, "Phase"), h("dd", null, phaseName(state?.phase))),
        h("div", null, h("dt", null, "Rounds/hour"), h("dd", { "data-rate": rate ?? "" }, rate === null ? "—" : String(rate))),
        h("div", null, h("dt", null, "Shoe"), h("dd", null, shoe ? `${Math.round((100 * shoe.cards_out) / shoe.size)}%` : "—")),
        h("div", null, h("dt", null, "House, last round"), h("dd", null, last ? money(last.house_net, true) : "—")),
        h("div", null, h("dt", null, "Alerts, 10 min"), h("dd", { "data-alerts": recent }, String(recent))),
      ),
      shoe ? h("progress", { max: shoe.size, value: shoe.cards_out, "aria-label": "shoe" }) : null,
      newest ? h("p", { class: `tile-alert ${newest.alert.kind}` }, clock(newest.at), " ", newest.alert.message) : null,
      h("p", { class: "rules" }, table.info?.rules?.title ?? state?.rules ?? ""),
    ),
  );
}

function summary(tables, now) {
  const count = (s) => tables.filter((t) => t.liveness() === s).length;
  const alerting = tables.filter((t) => t.alertsSince(now, RECENT_MS) > 0).length;
  return [
    h("span", null, `${tables.length} ${tables.length === 1 ? "table" : "tables"}`),
    h("span", { class: "online" }, `${count("online")} online`),
    h("span", { class: "offline" }, `${count("offline")} offline`),
    h("span", { class: "lost" }, `${count("lost")} lost`),
    h("span", { class: "alerting" }, `${alerting} with alerts`),
  ];
}

async function main() {
  const config = await settings();
  const grid = document.getElementById("floor");
  const head = document.getElementById("summary");
  let link = null;
  const draw = throttle(() => {
    const now = Date.now();
    const tables = link.tables.list();
    const line = summary(tables, now);
    if (head.textContent !== line.map((el) => el.textContent).join("")) fill(head, line);
    if (!tables.length) {
      fill(grid, h("li", { class: "waiting" }, "Waiting for tables on ", config.broker, "…"));
      return;
    }
    fill(grid, tables.map((t) => tile(config, t, link.up, now)));
  }, 250);
  link = new Link(config, TOPICS, draw, linkStatus(config));
  login(config, (password) => link.start(password));
  setInterval(draw, 15000); // rates and "recent" age even when nothing arrives
  draw();
}

main();
