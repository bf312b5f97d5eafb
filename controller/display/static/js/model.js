// What a display knows about each table, built only from the MQTT contract
// (docs/mqtt.md). No DOM here: the pages draw from these models, and the
// unit tests drive them with contract messages.
//
// Money stays the contract's decimal strings: nothing here does arithmetic
// on it.

export const ROOT = "croupier/v1";
export const TABLE_ID = /^[A-Za-z0-9_-]{1,32}$/;
// The topics a display reads (the display role's allow-list, docs/deploy.md).
export const TOPICS = ["status", "info", "state", "events", "outcome", "outcome/last", "alerts", "bridge"];

const KEEP_IDS = 4000; // event ids remembered for de-duplication
const KEEP_ALERTS = 40;
const KEEP_OUTCOMES = 12;
const KEEP_READS = 12;
const HOUR = 3600 * 1000;

/** "croupier/v1/<table>/<sub>" -> {table, sub}, or null for anything else. */
export function route(topic) {
  const parts = topic.split("/");
  if (parts.length < 4 || `${parts[0]}/${parts[1]}` !== ROOT) return null;
  return { table: parts[2], sub: parts.slice(3).join("/") };
}

/** A set that forgets its oldest members beyond `limit`. */
class Recent {
  constructor(limit) {
    this.limit = limit;
    this.set = new Set();
  }
  add(id) {
    if (this.set.has(id)) return false;
    this.set.add(id);
    if (this.set.size > this.limit) this.set.delete(this.set.values().next().value);
    return true;
  }
}

export class TableModel {
  constructor(id) {
    this.id = id;
    this.status = null; // {state: online|offline|lost, session, since}
    this.info = null;
    this.state = null; // the latest retained snapshot
    this.bridge = null; // "1" | "0" on a central broker behind a bridge
    this.seq = 0; // the newest seq seen (events or state)
    this.gap = null; // {from, to}: events missed; stale until a state includes `to`
    this.outcomes = []; // newest round first, one per outcome_id
    this.alerts = []; // newest first: {alert, at, seq (the seq seen then), done}
    this.reads = []; // cards out of the shoe, newest first
    this.settled = []; // [time, round] of rounds seen settling live (rounds per hour)
    this.version = 0; // bumped on every change: renderers compare it
    this.snapshots = 0; // `state` messages received (a re-read shows as one more)
    this._events = new Recent(KEEP_IDS);
    this._alertIds = new Recent(KEEP_IDS);
    this._keyed = false; // an unreadable card waits: the next card is keyed in
    this._cardEvents = 0; // card_dealt / card_burned events seen live
  }

  /**
   * One message below croupier/v1/<table>/. Returns what the link should do:
   * null, {resync: true} (re-read the retained state) or {gap: {from, to}}.
   */
  receive(sub, text, retained, now = Date.now()) {
    if (sub === "bridge") {
      this.bridge = text.trim();
      this.version++;
      return null;
    }
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return null; // not the contract: ignore
    }
    if (data === null || typeof data !== "object") return null;
    let action = null;
    switch (sub) {
      case "status": action = this._status(data); break;
      case "info": this.info = data; break;
      case "state": this._state(data); break;
      case "events": action = this._event(data); break;
      case "outcome": this._outcome(data, !retained, now); break;
      case "outcome/last": this._outcome(data, false, now); break;
      case "alerts": this._alert(data, now); break;
      default: return null;
    }
    this.version++;
    return action;
  }

  _status(data) {
    const before = this.status;
    this.status = data;
    if (before && before.session !== data.session) {
      // A new session: the table restarted (seq carries on, unless its state was reset).
      this.gap = null;
      this.seq = 0;
      return { resync: true };
    }
    return null;
  }

  _state(data) {
    this.state = data;
    this.snapshots++;
    // A page opened mid-round has seen no card event: the cards already on the
    // layout are its last cards, as the snapshot shows them.
    if (!this.reads.length && !this._cardEvents) this.reads = layoutReads(data).slice(0, KEEP_READS);
    if (typeof data.seq === "number") {
      this.seq = Math.max(this.seq, data.seq);
      if (this.gap && data.seq >= this.gap.to) this.gap = null;
    }
    if (!data.awaiting_key) {
      // An unreadable card is resolved once a later snapshot no longer waits for it.
      for (const a of this.alerts) {
        if (a.alert.kind === "unreadable" && data.seq > a.seq) a.done = true;
      }
    }
  }

  _event(data) {
    if (typeof data.seq !== "number" || !this._events.add(data.event_id ?? data.seq)) return null;
    let action = null;
    if (this.seq > 0 && data.seq > this.seq + 1) {
      const from = this.gap ? Math.min(this.gap.from, this.seq + 1) : this.seq + 1;
      this.gap = { from, to: Math.max(this.gap?.to ?? 0, data.seq - 1) };
      action = { gap: { ...this.gap } };
    }
    this.seq = Math.max(this.seq, data.seq);
    if (data.type === "card_dealt" || data.type === "card_burned") {
      this._cardEvents++;
      this._read({
        card: data.card ?? null,
        box: data.type === "card_burned" ? null : data.box,
        hand: data.hand ?? 0,
        burned: data.type === "card_burned",
        faceDown: Boolean(data.face_down) || data.type === "card_burned",
        keyed: this._keyed,
        round: data.round,
        seq: data.seq,
      });
      if (this._keyed) {
        for (const a of this.alerts) if (a.alert.kind === "unreadable") a.done = true;
      }
      this._keyed = false;
    }
    if (data.type === "mistaken_card" || data.type === "card_taken" || data.type === "card_discarded") {
      this._moved(data);
    }
    return action;
  }

  /** A card dealt by mistake: taken back, then taken by a later box or discarded. */
  _moved(data) {
    const read = this.reads.find((r) => r.card === data.card && r.round === data.round);
    if (!read) return;
    if (data.type === "mistaken_card") read.mistaken = true;
    else if (data.type === "card_discarded") read.movedTo = "discarded";
    else read.movedTo = data.box === 0 ? "dealer" : `box ${data.box}`;
  }

  _read(read) {
    this.reads.unshift(read);
    this.reads.length = Math.min(this.reads.length, KEEP_READS);
  }

  _outcome(data, live, now) {
    if (!data.outcome_id) return;
    if (live && !data.voided) {
      this.settled.push([now, data.round]);
      while (this.settled.length && now - this.settled[0][0] > HOUR) this.settled.shift();
    }
    if (this.outcomes.some((o) => o.outcome_id === data.outcome_id)) return; // a duplicate
    this.outcomes.push(data);
    this.outcomes.sort((a, b) => b.round - a.round);
    this.outcomes.length = Math.min(this.outcomes.length, KEEP_OUTCOMES);
  }

  _alert(data, now) {
    if (!data.alert_id || !this._alertIds.add(data.alert_id)) return;
    this.alerts.unshift({ alert: data, at: now, seq: this.seq, done: false });
    this.alerts.length = Math.min(this.alerts.length, KEEP_ALERTS);
    if (data.kind === "unreadable") {
      this._keyed = true;
      this._read({
        unreadable: true,
        confidence: typeof data.confidence === "number" ? data.confidence : null,
        message: data.message,
        round: data.round,
      });
    }
  }

  dismiss(alertId) {
    for (const a of this.alerts) if (a.alert.alert_id === alertId) a.done = true;
    this.version++;
  }

  /** Alerts still to look at: not dismissed, the unreadable one only while it waits. */
  openAlerts() {
    return this.alerts.filter((a) => !a.done);
  }

  alertsSince(now, ms) {
    return this.alerts.filter((a) => now - a.at <= ms).length;
  }

  /** Rounds settled per hour over the last hour of live outcomes (null until known). */
  roundsPerHour(now = Date.now()) {
    const recent = this.settled.filter(([t]) => now - t <= HOUR);
    if (recent.length < 2) return null;
    const [t0, r0] = recent[0];
    const [t1, r1] = recent[recent.length - 1];
    if (t1 - t0 < 20 * 1000 || r1 <= r0) return null;
    return Math.round(((r1 - r0) * HOUR) / (t1 - t0));
  }

  /** Why what is shown may not be the table now (null: live). `link` is the broker link's state. */
  staleness(linkUp) {
    if (!linkUp) return "no connection to the broker";
    if (this.bridge === "0") return "the link to the table's broker is down";
    if (this.gap) return `missed events ${this.gap.from}–${this.gap.to}: re-syncing`;
    return null;
  }

  /** online | offline | lost | unknown */
  liveness() {
    return this.status?.state ?? "unknown";
  }

  /** The latest outcome: from `outcome`/`outcome/last`, or the snapshot's own. */
  lastOutcome() {
    return this.outcomes[0] ?? this.state?.outcome ?? null;
  }
}

/**
 * The cards a snapshot shows on the layout, newest first as far as the
 * snapshot can tell: the deal goes left to right, the dealer's first card,
 * the boxes' second cards; later cards box by box; the dealer's other cards
 * last (drawn after the players, or a hole card shown at the end). How each
 * came out of the shoe (read or keyed in) is not in the snapshot.
 */
export function layoutReads(state) {
  const places = [];
  for (const b of state.in_play ?? []) {
    for (const hd of b.hands) hd.cards.forEach((c, i) => places.push({ box: b.box, hand: hd.hand, card: c, i }));
  }
  (state.dealer?.cards ?? []).forEach((c, i) => places.push({ box: 0, hand: 0, card: c, i }));
  const rank = (p) => {
    if (p.box === 0) return p.i === 0 ? [0, 1] : [3, p.i];
    return p.i < 2 && p.hand <= 1 ? [p.i, 0, p.box] : [2, p.box, p.hand, p.i];
  };
  places.sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    for (let k = 0; k < Math.max(x.length, y.length); k++) if ((x[k] ?? 0) !== (y[k] ?? 0)) return (x[k] ?? 0) - (y[k] ?? 0);
    return 0;
  });
  return places.reverse().map((p) => ({
    card: p.card, box: p.box, hand: p.hand, burned: false, faceDown: p.card === null,
    keyed: false, round: state.round, seq: null, onLayout: true,
  }));
}

/** The round a snapshot is about: while bets are open, the coming one (its bets are for it). */
export function roundNow(state) {
  if (!state) return null;
  return state.phase === "betting" ? state.round + 1 : state.round;
}

/** The tables a page shows: a fixed list, or every table the broker has (`+`). */
export class Tables {
  constructor(ids) {
    this.fixed = ids.length > 0;
    this.map = new Map(ids.map((id) => [id, new TableModel(id)]));
  }

  get(id) {
    if (!TABLE_ID.test(id)) return null;
    if (!this.map.has(id)) {
      if (this.fixed) return null;
      this.map.set(id, new TableModel(id));
    }
    return this.map.get(id);
  }

  list() {
    return [...this.map.values()].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  }

  /** The topic filters to subscribe to: one table's, or every table's. */
  filters(topics = TOPICS) {
    const ids = this.fixed ? [...this.map.keys()] : ["+"];
    return ids.flatMap((id) => topics.map((t) => `${ROOT}/${id}/${t}`));
  }
}

// ---------------------------------------------------------------- wording

const PHASES = {
  betting: "Bets open",
  deal: "Dealing",
  insurance: "Insurance",
  player_turns: "Players",
  dealer: "Dealer's turn",
  settled: "Settled",
  voided: "Voided",
};
const ACTIONS = {
  card: "hit",
  stand: "stand",
  double: "double",
  split: "split",
  surrender: "surrender",
  take_card: "take the card",
  refuse_card: "refuse it",
};

export function phaseName(phase) {
  return PHASES[phase] ?? phase ?? "—";
}

/** Who a player id is: the box holder, or someone betting behind. */
export function playerName(player, box) {
  if (player === `box${box}`) return "holder";
  const behind = player.match(/^box\d+\/(\d+)$/);
  return behind ? `behind ${behind[1]}` : player;
}

function words(list) {
  return list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} or ${list.at(-1)}`;
}

/**
 * Whose card the next one is in the initial deal: left to right over the boxes
 * in play, then the dealer, then a second card each (and a hole card where the
 * rules have one). From the snapshot's visible hands.
 */
export function dealTarget(state) {
  const boxes = state.in_play ?? [];
  const dealt = state.dealer?.cards.length ?? 0;
  for (const pass of [1, 2]) {
    const box = boxes.find((b) => (b.hands[0]?.cards.length ?? 0) < pass);
    if (box) return `box ${box.box}`;
    if (dealt < pass) return "the dealer";
  }
  return null;
}

/**
 * What the table waits for, in the dealer's words: {who, ask}, e.g.
 * {who: "Box 3", ask: "hit, stand or double?"}. From `state.expecting`.
 */
export function expectation(state) {
  if (!state) return { who: "", ask: "waiting for the table" };
  if (state.awaiting_key) return { who: "Unreadable card", ask: "enter the card on the panel", key: true };
  const e = state.expecting ?? { what: "nothing" };
  const hands = state.in_play?.find((b) => b.box === e.box)?.hands.length ?? 1;
  const who = e.box ? `Box ${e.box}${hands > 1 ? `, hand ${e.hand}` : ""}` : "";
  switch (e.what) {
    case "bet": return { who: "Bets", ask: "place bets, then close bets" };
    case "burn": {
      const due = state.shoe?.burns_due ?? 0;
      return { who: "New shoe", ask: due > 1 ? `burn a card (${due} to burn)` : "burn a card" };
    }
    case "card": {
      if (state.phase !== "deal") return { who: "Dealer", ask: "next card to the dealer" };
      const to = dealTarget(state);
      return { who: "Deal", ask: to ? `next card to ${to}` : "next card" };
    }
    case "insurance": return { who: "Insurance", ask: "take insurance, then close insurance" };
    case "action": return { who, ask: `${words(e.actions.map((a) => ACTIONS[a] ?? a))}?` };
    case "offer": return { who, ask: "take the mistaken card or refuse it?", card: state.mistaken_card };
    default: return { who: "", ask: state.phase === "settled" ? "round settled" : "nothing to do" };
  }
}
