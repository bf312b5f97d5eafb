// The page's one connection to the broker: MQTT over WebSockets with the
// shipped client (vendor/mqtt.esm.js). It reconnects by itself, feeds every
// message to the table models, and repairs gaps the way the page's rights
// allow: a display re-reads the retained `state`; a page configured with
// republish rights (a supervisor's or recorder's account) asks the table
// with `cmd/republish`.

import mqtt from "../vendor/mqtt.esm.js";
import { ROOT, TABLE_ID, Tables, route } from "./model.js";

const RETRY_MS = 2000;
const REPUBLISH_EVERY_MS = 5000; // at most one request per table in this time

/**
 * The page's settings: the URL's query string first (`broker`, `tables` or
 * `table`, `republish`, `user`, `password`), then `config.json` beside the page
 * (written by `croupier display`; absent on a plain static host), then defaults.
 */
export async function settings() {
  const query = new URLSearchParams(location.search);
  let file = {};
  try {
    const reply = await fetch("config.json", { cache: "no-store" });
    if (reply.ok) file = await reply.json();
  } catch {
    // a static host without config.json: the query string and defaults
  }
  const listed = query.get("tables") ?? query.get("table") ?? (file.tables ?? []).join(",");
  const tables = listed.split(",").map((t) => t.trim()).filter(Boolean);
  const bad = tables.filter((t) => !TABLE_ID.test(t));
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const host = location.hostname || "127.0.0.1";
  const flag = query.get("republish") ?? String(file.republish ?? "");
  return {
    broker: query.get("broker") || file.broker || `${scheme}://${host}:9001/`,
    tables: tables.filter((t) => TABLE_ID.test(t)),
    badTables: bad,
    republish: flag === "1" || flag === "true",
    username: query.get("user") || file.username || null,
    password: query.get("password") || null,
  };
}

export class Link {
  /**
   * `topics`: which of each table's topics this page needs;
   * `onChange()`: something changed (draw); `onLink(state, detail)`: the broker link.
   */
  constructor(config, topics, onChange, onLink) {
    this.config = config;
    this.tables = new Tables(config.tables);
    this.topics = topics;
    this.onChange = onChange;
    this.onLink = onLink;
    this.up = false;
    this.client = null;
    this.asked = new Map(); // table -> time of the last republish request
    this.counter = 0;
  }

  filters() {
    const filters = this.tables.filters(this.topics);
    if (this.config.republish) filters.push(...this.tables.filters(["cmd/republish/response"]));
    return filters;
  }

  start(password = this.config.password) {
    this.refused = false;
    const id = `croupier-display-${Math.random().toString(16).slice(2, 10)}`;
    this.onLink("connecting", this.config.broker);
    this.client = mqtt.connect(this.config.broker, {
      clientId: id,
      clean: true, // the retained topics redraw every table on each (re)connect
      keepalive: 20,
      protocolVersion: 4,
      reconnectPeriod: RETRY_MS,
      connectTimeout: 8000,
      username: this.config.username ?? undefined,
      password: password ?? undefined,
      resubscribe: true,
    });
    this.client.on("connect", () => {
      this.client.subscribe(this.filters(), { qos: 1 }, (err) => {
        if (err) this.onLink("error", `subscription refused: ${err.message}`);
      });
      this.up = true;
      this.onLink("up", this.config.broker);
      this.onChange();
    });
    this.client.on("reconnect", () => this.onLink("connecting", this.config.broker));
    this.client.on("close", () => this._down("no connection to the broker, retrying"));
    this.client.on("offline", () => this._down("the broker is unreachable, retrying"));
    this.client.on("error", (err) => {
      const refused = err && (err.code === 4 || err.code === 5 || err.code === 134 || err.code === 135);
      if (refused) {
        this.refused = true;
        this.client.end(true); // a wrong password does not become right by retrying
        this.onLink("refused", err.message);
      } else {
        this.onLink("error", err?.message ?? String(err));
      }
    });
    this.client.on("message", (topic, payload, packet) => this._message(topic, payload, packet.retain));
  }

  stop() {
    this.client?.end(true);
  }

  _down(detail) {
    if (this.up) {
      this.up = false;
      this.onChange();
    }
    if (!this.refused) this.onLink("down", detail); // else the login form says why
  }

  _message(topic, payload, retained) {
    const where = route(topic);
    if (!where) return;
    const table = this.tables.get(where.table);
    if (!table) return;
    const text = new TextDecoder().decode(payload);
    if (where.sub === "cmd/republish/response") {
      this._answer(table, text);
      return;
    }
    if (text === "" && retained) return; // a cleared retained topic
    const action = table.receive(where.sub, text, retained);
    if (action?.resync) this.resync(table);
    if (action?.gap) this.repair(table, action.gap);
    this.onChange();
  }

  /** Missed events: ask the table for them where allowed, else re-read `state`. */
  repair(table, gap) {
    if (!this.config.republish) {
      this.resync(table);
      return;
    }
    const now = Date.now();
    if (now - (this.asked.get(table.id) ?? 0) < REPUBLISH_EVERY_MS) return;
    this.asked.set(table.id, now);
    const transaction = `display-${++this.counter}-${now}`;
    table.republishing = transaction;
    const request = JSON.stringify({ transaction, from_seq: gap.from });
    this.client.publish(`${ROOT}/${table.id}/cmd/republish`, request, { qos: 1 });
  }

  _answer(table, text) {
    let answer;
    try {
      answer = JSON.parse(text);
    } catch {
      return;
    }
    if (answer.transaction !== table.republishing) return; // another console's
    table.republishing = null;
    if (!answer.ok) this.resync(table); // e.g. no longer kept: the snapshot is what there is
  }

  /** Re-read the retained snapshot: subscribing again sends retained messages again. */
  resync(table) {
    if (!this.client || !this.up) return;
    const topic = `${ROOT}/${table.id}/state`;
    if (this.tables.fixed) {
      this.client.unsubscribe(topic, () => this.client.subscribe(topic, { qos: 1 }));
    } else {
      // Every table comes through `+`: a subscription of this table's own brings its
      // retained state, then goes (the `+` one stays).
      this.client.subscribe(topic, { qos: 1 }, () => this.client.unsubscribe(topic));
    }
  }
}
