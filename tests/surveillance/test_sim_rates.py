"""The detectors in the simulator, a small seeded version of `python -m bench surveillance`
(the rates in docs/benchmarks.md come from the full run)."""

from __future__ import annotations

from bench.surveillance import count_rates, decision_rates, payout_rates, shoe_rates


def test_counters_are_flagged_within_two_shoes_and_nobody_else_over_twenty() -> None:
    r = count_rates([1, 2], shoes=20, rules_name="be-casino", jobs=1)
    for kind in ("counter-8", "counter-12"):
        assert r.seated[kind] == 2 and r.caught[kind] == 2, kind
    assert sum(r.others.values()) >= 20 and sum(r.others_flagged.values()) == 0
    assert r.payout_alerts == 0 and r.payout_checked > 1000  # an honest dealer


def test_a_dealers_payout_mistakes_are_caught_and_nothing_else() -> None:
    p = payout_rates([5], rounds=120, rules_name="be-casino", rate=0.1, jobs=1)
    assert p.mistakes >= 30 and set(p.by_what) >= {"overpaid", "underpaid", "not_collected"}
    assert p.caught >= 0.9 * p.mistakes and p.false == 0


def test_shoe_findings_are_exact() -> None:
    s = shoe_rates(120, seed=2)
    assert s.injected and s.past_cut and s.early and s.missing
    assert s.detected == s.detectable  # caught whenever every copy of the code was dealt
    assert (s.false_foreign, s.false_cut, s.false_early) == (0, 0, 0)
    assert s.past_cut_flagged == s.past_cut and s.early_flagged == s.early
    assert s.reconciled["honest"] == 0 and s.reconciled["missing"] == s.missing


def test_random_decisions_show_as_deviations() -> None:
    d = decision_rates(1500, seed=1, rules_name="ref-peek")
    basic, mixed = d.players.values()
    assert basic["per_1000"] < 5  # the tables are basic strategy, but for two soft doubles
    picked = mixed["random_picks"]
    assert picked > 20 and picked <= mixed["deviations"] <= picked + basic["deviations"] + 5
