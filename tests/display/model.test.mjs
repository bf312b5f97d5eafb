// The display's table model, driven with contract messages (node --test).
// Run by tests/display/test_model.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Tables, TableModel, dealTarget, expectation, roundNow, route } from "../../controller/display/static/js/model.js";

const state = (seq, extra = {}) => JSON.stringify({
  phase: "player_turns", round: 3, rules: "be-casino", boxes: 7, table: "t1", seq, awaiting_key: false,
  limits: { min: "5", max: "500" }, shoe: { cards_out: 20, size: 312, cut_card_reached: false, burns_due: 0 },
  bets: [], expecting: { what: "action", box: 3, hand: 1, actions: ["card", "stand", "double"] }, ...extra,
});
const event = (seq, extra = {}) => JSON.stringify({ seq, event_id: `t1:${seq}`, table: "t1", source: seq, round: 3, type: "stood", box: 1, hand: 1, ...extra });

test("routes only the contract's topics", () => {
  assert.deepEqual(route("croupier/v1/t1/outcome/last"), { table: "t1", sub: "outcome/last" });
  assert.equal(route("other/v1/t1/state"), null);
  assert.equal(route("croupier/v1/t1"), null);
});

test("a gap in seq makes the table stale until a snapshot includes the missed events", () => {
  const t = new TableModel("t1");
  t.receive("state", state(10), true);
  assert.equal(t.receive("events", event(11), false), null);
  assert.equal(t.staleness(true), null);
  const action = t.receive("events", event(15), false);
  assert.deepEqual(action, { gap: { from: 12, to: 14 } });
  assert.match(t.staleness(true), /missed events 12–14/);
  t.receive("state", state(13), false); // not enough
  assert.ok(t.gap);
  t.receive("state", state(15), false);
  assert.equal(t.gap, null);
  assert.equal(t.staleness(true), null);
});

test("duplicates are dropped by id and do not count as gaps", () => {
  const t = new TableModel("t1");
  t.receive("state", state(10), true);
  t.receive("events", event(11, { type: "card_dealt", card: "7H", face_down: false }), false);
  const before = t.version;
  assert.equal(t.receive("events", event(11, { type: "card_dealt", card: "7H", face_down: false }), false), null);
  assert.equal(t.reads.length, 1);
  const o = JSON.stringify({ round: 2, outcome_id: "t1:2", table: "t1", seq: 9, dealer: { cards: [], total: 0, blackjack: false, bust: false }, boxes: [], house_net: "-12.50" });
  t.receive("outcome", o, false);
  t.receive("outcome/last", o, true);
  assert.equal(t.outcomes.length, 1);
  assert.equal(t.lastOutcome().house_net, "-12.50"); // the contract's string, untouched
  assert.ok(t.version > before);
});

test("a new session (the table restarted) asks for the state again", () => {
  const t = new TableModel("t1");
  assert.equal(t.receive("status", JSON.stringify({ state: "online", session: "a", table: "t1" }), true), null);
  t.receive("status", JSON.stringify({ state: "lost", session: "a", table: "t1" }), false);
  assert.equal(t.liveness(), "lost");
  assert.deepEqual(t.receive("status", JSON.stringify({ state: "online", session: "b", table: "t1" }), false), { resync: true });
});

test("an unreadable card: the dealer enters it; the next card is marked keyed in", () => {
  const t = new TableModel("t1");
  t.receive("state", state(10), true);
  t.receive("alerts", JSON.stringify({ alert_id: "t1:50:unreadable", table: "t1", kind: "unreadable", message: "key it in", round: 3, box: null, confidence: 0.2 }), false);
  t.receive("state", state(10, { awaiting_key: true }), false);
  assert.deepEqual(expectation(t.state), { who: "Unreadable card", ask: "enter the card on the panel", key: true });
  assert.equal(t.reads[0].unreadable, true);
  assert.equal(t.reads[0].confidence, 0.2);
  assert.equal(t.openAlerts().length, 1);
  t.receive("events", event(11, { type: "card_dealt", box: 3, hand: 1, card: "9S", face_down: false }), false);
  assert.equal(t.reads[0].keyed, true);
  assert.equal(t.reads[0].card, "9S");
  assert.equal(t.openAlerts().length, 0, "keyed in: resolved");
});

test("rounds per hour from rounds settling live, not from retained copies", () => {
  const t = new TableModel("t1");
  const o = (round) => JSON.stringify({ round, outcome_id: `t1:${round}`, table: "t1", seq: round, dealer: { cards: [], total: 0, blackjack: false, bust: false }, boxes: [], house_net: "0" });
  t.receive("outcome/last", o(1), true, 0);
  assert.equal(t.roundsPerHour(0), null);
  t.receive("outcome", o(2), false, 0);
  t.receive("outcome", o(3), false, 60_000);
  t.receive("outcome", o(5), false, 180_000); // round 4 missed: still counted
  assert.equal(t.roundsPerHour(180_000), 60); // 3 rounds in 3 minutes
  assert.equal(t.roundsPerHour(180_000 + 3600_000), null); // an hour of nothing: unknown
});

test("what the dealer is asked", () => {
  const s = JSON.parse(state(1));
  assert.deepEqual(expectation(s), { who: "Box 3", ask: "hit, stand or double?" });
  s.in_play = [{ box: 3, stakes: [], insurance: [], hands: [{ hand: 1, cards: ["8H", "8S"] }, { hand: 2, cards: ["8S"] }] }];
  s.expecting = { what: "action", box: 3, hand: 2, actions: ["card"] };
  assert.deepEqual(expectation(s), { who: "Box 3, hand 2", ask: "hit?" });
  const deal = { phase: "deal", expecting: { what: "card" }, dealer: { cards: ["5D"] },
    in_play: [{ box: 1, hands: [{ cards: ["AS", "KD"] }] }, { box: 4, hands: [{ cards: ["7C"] }] }] };
  assert.equal(dealTarget(deal), "box 4");
  assert.deepEqual(expectation(deal), { who: "Deal", ask: "next card to box 4" });
  deal.in_play[1].hands[0].cards.push("2C");
  assert.equal(dealTarget(deal), "the dealer"); // the hole card, in a hole-card game
  assert.equal(expectation({ ...deal, phase: "dealer" }).ask, "next card to the dealer");
});

test("a fixed list of tables ignores others; no list takes every table", () => {
  const fixed = new Tables(["t1"]);
  assert.equal(fixed.get("t2"), null);
  assert.deepEqual(fixed.filters(["state"]), ["croupier/v1/t1/state"]);
  const all = new Tables([]);
  assert.ok(all.get("t2"));
  assert.equal(all.get("bad/id"), null);
  assert.deepEqual(all.filters(["state"]), ["croupier/v1/+/state"]);
});

test("a mistaken card: taken back from its box, then taken by a later one", () => {
  const t = new TableModel("t1");
  t.receive("state", state(10), true);
  t.receive("events", event(11, { type: "card_dealt", box: 1, hand: 1, card: "7C", face_down: false }), false);
  t.receive("events", event(12, { type: "mistaken_card", box: 1, hand: 1, card: "7C" }), false);
  assert.equal(t.reads[0].mistaken, true);
  assert.equal(t.reads[0].movedTo, undefined);
  t.receive("events", event(13, { type: "card_taken", box: 5, hand: 1, card: "7C" }), false);
  assert.equal(t.reads[0].movedTo, "box 5");
  assert.equal(t.reads.length, 1, "the same card, not a new one");
});

test("a page opened mid-round lists the cards already on the layout as its last cards", () => {
  const t = new TableModel("t1");
  t.receive("state", state(40, {
    dealer: { cards: ["6H", null], total: 6 },
    in_play: [
      { box: 1, stakes: [], insurance: [], hands: [{ hand: 1, cards: ["AS", "6S", "5H"], stake: "20", doubled: false, done: false, surrendered: false }] },
      { box: 3, stakes: [], insurance: [], hands: [{ hand: 1, cards: ["9D", "7C"], stake: "10", doubled: false, done: false, surrendered: false }] },
    ],
  }), true);
  // Newest first: the hit, the hole card, then the deal backwards.
  assert.deepEqual(t.reads.map((r) => [r.box, r.card]), [[0, null], [1, "5H"], [3, "7C"], [1, "6S"], [0, "6H"], [3, "9D"], [1, "AS"]]);
  assert.ok(t.reads.every((r) => r.onLayout));
  assert.equal(t.reads[0].faceDown, true, "a hidden card stays face down");
  // The next card out is read live, above them; a later snapshot adds nothing.
  t.receive("events", event(41, { type: "card_dealt", box: 3, hand: 1, card: "2C", face_down: false }), false);
  t.receive("state", state(41), false);
  assert.equal(t.reads.length, 8);
  assert.equal(t.reads[0].card, "2C");
  assert.equal(t.reads[0].onLayout, undefined);
});

test("a page that saw the cards come out does not list the layout again", () => {
  const t = new TableModel("t1");
  t.receive("state", state(10), true);
  t.receive("events", event(11, { type: "card_dealt", card: "7H", face_down: false }), false);
  t.receive("state", state(11, { in_play: [{ box: 1, stakes: [], insurance: [], hands: [{ hand: 1, cards: ["7H"], stake: "5", doubled: false, done: false, surrendered: false }] }] }), false);
  assert.deepEqual(t.reads.map((r) => r.card), ["7H"]);
});

test("while bets are open the round shown is the one the bets are for", () => {
  assert.equal(roundNow(JSON.parse(state(5, { phase: "betting", round: 6 }))), 7);
  assert.equal(roundNow(JSON.parse(state(5, { phase: "settled", round: 6 }))), 6);
  assert.equal(roundNow(JSON.parse(state(5, { phase: "player_turns", round: 6 }))), 6);
  assert.equal(roundNow(null), null);
});
