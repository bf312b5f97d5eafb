// Pieces the three pages share: a table's status, its shoe, the dealer's
// cards, the boxes, a settled round and the alerts. Each returns elements.

import { card, cardLabel, cards, clock, h, money, unknownCard } from "./dom.js";
import { phaseName, playerName, roundNow } from "./model.js";

const LIVENESS = {
  online: "Online",
  offline: "Offline",
  lost: "Lost",
  unknown: "No status",
};

/** The table's liveness badge, and a second one when what is shown may be old. */
export function badges(table, linkUp) {
  const live = table.liveness();
  const stale = table.staleness(linkUp);
  return h("span", { class: "badges" },
    h("span", { class: `badge liveness ${live}`, "data-liveness": live }, LIVENESS[live] ?? live),
    stale ? h("span", { class: "badge stale", "data-stale": "", title: stale }, "Stale: ", stale) : null,
  );
}

export function facts(table) {
  const state = table.state;
  const rules = table.info?.rules?.title ?? state?.rules ?? "";
  const limits = state?.limits ?? table.info?.limits;
  return h("dl", { class: "facts" },
    h("div", null, h("dt", null, "Round"), h("dd", { "data-round": "" }, state ? String(roundNow(state)) : "—")),
    h("div", null, h("dt", null, "Phase"), h("dd", { "data-phase": state?.phase ?? "" }, phaseName(state?.phase))),
    rules ? h("div", null, h("dt", null, "Rules"), h("dd", null, rules)) : null,
    limits ? h("div", null, h("dt", null, "Limits"), h("dd", null, money(limits.min), " – ", money(limits.max))) : null,
  );
}

/** Shoe progress: cards out of the shoe's size, and the cut card once it is out. */
export function shoe(state) {
  if (!state?.shoe) return h("div", { class: "shoe" });
  const { cards_out: out, size, cut_card_reached: cut, burns_due: burns } = state.shoe;
  const share = size ? Math.round((100 * out) / size) : 0;
  return h("div", { class: "shoe" },
    h("span", { class: "shoe-label", id: `shoe-${state.table}` }, "Shoe"),
    h("progress", { max: size, value: out, "aria-labelledby": `shoe-${state.table}`, "aria-valuetext": `${out} of ${size} cards dealt` }),
    h("span", { class: "shoe-count" }, `${out} / ${size} cards (${share}%)`),
    cut ? h("span", { class: "tag cut" }, "cut card out") : null,
    burns ? h("span", { class: "tag" }, `${burns} to burn`) : null,
  );
}

function total(hand) {
  if (hand.total === undefined) return "?"; // a closed card: no total until it turns over
  if (hand.blackjack) return "BJ";
  if (hand.soft && hand.total < 21 && !hand.done) return `${hand.total - 10}/${hand.total}`;
  return String(hand.total);
}

/** The dealer's visible cards (a face-down hole card as a card back) and their total. */
export function dealer(state) {
  const d = state?.dealer;
  const hidden = d ? d.cards.some((c) => c === null) : false;
  return h("div", { class: "dealer", "data-box": "0" },
    h("h3", null, "Dealer"),
    d ? cards(d.cards) : h("span", { class: "empty" }, "no cards"),
    d && d.cards.length ? h("span", { class: "total" }, h("span", { class: "visually-hidden" }, "total "), String(d.total), hidden ? " + ?" : "") : null,
    d && !hidden && d.total > 21 ? h("span", { class: "tag bust" }, "bust") : null,
  );
}

function resultsOf(outcome, round) {
  const byHand = new Map();
  if (!outcome || outcome.round !== round) return byHand;
  for (const box of outcome.boxes) for (const hand of box.hands) byHand.set(`${box.box}:${hand.hand}`, hand);
  return byHand;
}

function stakes(box, list) {
  return h("ul", { class: "stakes" },
    list.map((s) => h("li", { "data-player": s.player, class: s.player === `box${box}` ? "holder" : "behind" },
      h("span", { class: "who" }, playerName(s.player, box)), " ", money(s.amount, false, "stake"))),
  );
}

function hand(box, hnd, result, active, split) {
  const tags = [];
  if (hnd.doubled) tags.push("doubled");
  if (hnd.surrendered) tags.push("surrendered");
  if (hnd.bust && !result) tags.push("bust");
  return h("div", { class: `hand${active ? " active" : ""}`, "data-box": box, "data-hand": hnd.hand, "aria-current": active ? "step" : null },
    split ? h("span", { class: "hand-number" }, `hand ${hnd.hand}`) : null,
    cards(hnd.cards, "fan"),
    h("span", { class: "hand-foot" },
      hnd.cards.length ? h("span", { class: "total" }, total(hnd)) : null,
      h("span", { class: "stake-line" }, "stake ", money(hnd.stake)),
      tags.map((t) => h("span", { class: "tag" }, t)),
      result ? h("span", { class: `result ${result.result}` }, h("span", { class: "result-word" }, result.result), " ", money(result.payout, true, "payout")) : null,
    ),
  );
}

/** Every box of the table: its stakes (holder and bets behind), hands, totals, results. */
export function boxes(table) {
  const state = table.state;
  if (!state) return h("ol", { class: "boxes" });
  const count = state.boxes ?? table.info?.boxes ?? 0;
  const inPlay = new Map((state.in_play ?? []).map((b) => [b.box, b]));
  const betting = state.phase === "betting" || !state.in_play;
  const results = resultsOf(table.lastOutcome(), state.round);
  const e = state.expecting ?? {};
  const items = [];
  for (let n = 1; n <= count; n++) {
    const play = inPlay.get(n);
    const bets = state.bets.filter((b) => b.box === n);
    const active = (e.what === "action" || e.what === "offer") && e.box === n;
    // While bets are open, the box shows the next round's bets over the last round's hands.
    const last = betting && play;
    items.push(h("li", { class: `box${active ? " active" : ""}${!play && !bets.length ? " open" : ""}`, "data-box": n },
      h("h3", null, `Box ${n}`),
      betting && bets.length ? h("div", { class: "next-bets" }, h("span", { class: "label" }, "next round"), stakes(n, bets)) : null,
      play ? h("div", { class: last ? "played" : "playing" },
        last ? h("span", { class: "label" }, `round ${state.round}`) : stakes(n, play.stakes),
        play.insurance.length ? h("div", { class: "insurance" }, "insurance ", play.insurance.map((i) => money(i.amount))) : null,
        play.hands.map((hd) => hand(n, hd, results.get(`${n}:${hd.hand}`), active && e.hand === hd.hand, play.hands.length > 1)),
      ) : null,
      !play && !bets.length ? h("span", { class: "empty" }, "open") : null,
    ));
  }
  return h("ol", { class: "boxes", "aria-label": "boxes" }, items);
}

/** A settled round: each hand's result and payout, each player's net, the house's. */
export function outcome(o) {
  if (!o) return h("div", { class: "outcome empty" }, "No round settled yet.");
  const rows = [];
  for (const box of o.boxes) {
    const hands = box.hands.map((hd) =>
      h("span", { class: "hand-result", "data-box": box.box, "data-hand": hd.hand },
        box.hands.length > 1 ? `hand ${hd.hand}: ` : "",
        h("span", { class: `result-word ${hd.result}` }, hd.result), " ", money(hd.payout, true, "payout")));
    box.players.forEach((p, i) => {
      rows.push(h("tr", { "data-box": box.box, "data-player": p.player },
        i === 0 ? h("th", { scope: "row", rowspan: box.players.length }, `Box ${box.box}`) : null,
        i === 0 ? h("td", { rowspan: box.players.length, class: "hands" }, hands) : null,
        h("td", null, playerName(p.player, box.box)),
        h("td", { class: "num" }, money(p.stake, false, "stake")),
        h("td", { class: "num" }, p.insurance === "0" ? "" : money(p.insurance, false, "insurance")),
        h("td", { class: "num" }, money(p.net, true, "net")),
      ));
    });
  }
  return h("div", { class: "outcome", "data-outcome-id": o.outcome_id ?? "", "data-round": o.round },
    h("h3", null, `Round ${o.round} `, o.voided ? h("span", { class: "tag void" }, "voided") : "settled",
      " · dealer ", cards(o.dealer.cards, "small"), " ", h("span", { class: "total" }, o.dealer.bust ? `${o.dealer.total} bust` : o.dealer.blackjack ? "blackjack" : String(o.dealer.total))),
    o.voided && o.reason ? h("p", { class: "reason" }, o.reason) : null,
    h("table", null,
      h("thead", null, h("tr", null,
        ["Box", "Hands", "Player", "Stake", "Insurance", "Net"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", null, rows),
      h("tfoot", null, h("tr", null, h("th", { scope: "row", colspan: 5 }, "House"), h("td", { class: "num" }, money(o.house_net, true, "house-net")))),
    ),
  );
}

export function alerts(table, limit = 6, dismiss = null) {
  const list = table.openAlerts().slice(0, limit);
  if (!list.length) return h("p", { class: "empty" }, "No alerts.");
  return h("ul", { class: "alert-list" }, list.map((a) =>
    h("li", { class: `alert ${a.alert.kind}`, "data-alert-id": a.alert.alert_id },
      h("span", { class: "alert-time" }, clock(a.at)),
      h("span", { class: "alert-kind" }, a.alert.kind.replaceAll("_", " ")),
      a.alert.box ? h("span", { class: "alert-box" }, `box ${a.alert.box}`) : null,
      h("span", { class: "alert-message" }, a.alert.message),
      // An unreadable card resolves itself when the dealer keys it in; the rest are ticked off.
      dismiss && a.alert.kind !== "unreadable"
        ? h("button", { type: "button", class: "dismiss", onclick: () => dismiss(a.alert.alert_id) }, "Done")
        : null,
    )));
}

/** A card out of the shoe, for the dealer: where it went and how it was read. */
export function read(r) {
  if (r.unreadable) {
    return h("li", { class: "read unreadable" },
      unknownCard("small"),
      h("span", { class: "read-where" }, "unreadable"),
      h("span", { class: "read-how" }, r.confidence === null ? "" : `confidence ${r.confidence.toFixed(2)}`),
    );
  }
  const where = r.burned ? "burned" : r.box === 0 ? "dealer" : `box ${r.box}${r.hand > 1 ? `, hand ${r.hand}` : ""}`;
  return h("li", { class: `read${r.keyed ? " keyed" : ""}`, "data-seq": r.seq },
    card(r.faceDown ? null : r.card, "small"),
    h("span", { class: "read-card" }, r.faceDown ? "face down" : cardLabel(r.card)),
    h("span", { class: "read-where" }, `→ ${where}`,
      r.mistaken ? h("span", { class: "mistaken" }, " mistaken", r.movedTo ? ` → ${r.movedTo}` : ", offered on") : null),
    h("span", { class: "read-how" }, r.onLayout ? "on the layout" : r.keyed ? "keyed in" : "read"),
  );
}

export { card };
