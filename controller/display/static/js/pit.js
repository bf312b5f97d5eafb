// The pit display: one table or several, each in full.

import { fill, h, throttle } from "./dom.js";
import { Link, settings } from "./link.js";
import { alerts, badges, boxes, dealer, facts, outcome, shoe } from "./views.js";
import { linkStatus, login } from "./page.js";

const TOPICS = ["status", "info", "state", "events", "outcome", "outcome/last", "alerts", "bridge"];

function tableSection(table, linkUp) {
  const heading = `table-${table.id}`;
  return h("section", {
    class: `table ${table.liveness()}`, "data-table": table.id, "aria-labelledby": heading,
    "data-seq": table.state?.seq ?? "", "data-snapshots": table.snapshots,
  },
    h("header", { class: "table-head" },
      h("h2", { id: heading }, "Table ", table.id),
      badges(table, linkUp),
      facts(table),
      shoe(table.state),
    ),
    h("div", { class: "layout" },
      dealer(table.state),
      boxes(table),
    ),
    h("div", { class: "below" },
      h("section", { class: "last-round", "aria-label": `last settled round, table ${table.id}` }, outcome(table.lastOutcome())),
      h("section", { class: "alerts", "aria-label": `alerts, table ${table.id}` }, h("h3", null, "Alerts"), alerts(table)),
    ),
  );
}

async function main() {
  const config = await settings();
  const main = document.getElementById("tables");
  const drawn = new Map(); // table id -> [version, linkUp, element]
  let link = null;
  const draw = throttle(() => {
    const list = link.tables.list();
    if (!list.length) {
      fill(main, h("p", { class: "waiting" }, "Waiting for tables on ", config.broker, "…"));
      drawn.clear();
      return;
    }
    if (drawn.size === 0) main.replaceChildren();
    const added = list.some((t) => !drawn.has(t.id));
    for (const table of list) {
      const before = drawn.get(table.id);
      if (before && before[0] === table.version && before[1] === link.up) continue;
      const section = tableSection(table, link.up);
      if (before) before[2].replaceWith(section);
      else main.append(section);
      drawn.set(table.id, [table.version, link.up, section]);
    }
    if (added) main.append(...list.map((t) => drawn.get(t.id)[2])); // in table order
    document.body.classList.toggle("many", list.length > 1);
  });
  link = new Link(config, TOPICS, draw, linkStatus(config));
  if (config.badTables.length) console.warn("not table ids, ignored:", config.badTables);
  login(config, (password) => link.start(password));
  draw();
}

main();
