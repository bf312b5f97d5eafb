"""The `croupier` command as a user runs it: exit status, stdout, stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parent / "scripts"


def croupier(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_replay_prints_one_settlement_per_round():
    done = croupier("replay", str(SCRIPTS / "be-casino.jsonl"))
    assert done.returncode == 0, done.stderr
    rounds = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["round"] for r in rounds] == [1, 2]


def test_replay_reads_stdin_and_the_command_line_overrides_the_shoe_line():
    script = (SCRIPTS / "fr-2007.jsonl").read_text()
    done = croupier("replay", "-", "--rules", "fr-2007", "--boxes", "3", stdin=script)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 2


HEAD = '{"type": "shoe", "rules": "fr-2007"}\n{"type": "bet", "box": 1, "amount": "10"}\n'


@pytest.mark.parametrize(
    ("script", "line", "why"),
    [
        (HEAD + '{"type": "close_bets"\n', 3, "bad JSON"),
        (HEAD + '{"type": "close_bets"}\n{"type": "card", "card": "ZZ"}\n', 4, "unknown card 'ZZ'"),
        (HEAD.replace('"10"', '"-10"'), 2, "negative"),
        (HEAD.replace('"10"', '"lots"'), 2, "not a number"),
        (HEAD.replace('"10"', '"600"'), 2, "over the table maximum of 500"),
        (
            HEAD + '{"type": "close_bets"}\n' + '{"type": "card", "card": "2S"}\n' * 7,
            10,
            "a 6-deck shoe holds 6",
        ),
        ('{"type": "bet", "box": 1, "amount": "10"}\n', 1, "no rule profile"),
        (HEAD + "[1, 2]\n", 3, "a JSON object is expected"),
        (HEAD + '{"type": "action", "box": 1, "action": "stand"}\n', 3, "no round is in play"),
    ],
)
def test_replay_refuses_a_line_with_status_2_and_says_which_and_why(script, line, why):
    done = croupier("replay", "-", stdin=script)
    assert done.returncode == 2
    assert done.stderr.startswith(f"line {line}: ")
    assert why in done.stderr


def test_replay_prints_the_rounds_settled_before_a_refused_line():
    good = (SCRIPTS / "fr-2007.jsonl").read_text()
    done = croupier("replay", "-", stdin=good + '{"type": "card", "card": "AS"}\n')
    assert done.returncode == 2
    assert len(done.stdout.splitlines()) == 2
    assert done.stderr.startswith(f"line {len(good.splitlines()) + 1}: no card is expected")


def test_replay_of_a_script_that_stops_mid_round_exits_1():
    done = croupier(
        "replay", "-", stdin=HEAD + '{"type": "close_bets"}\n{"type": "card", "card": "2S"}\n'
    )
    assert done.returncode == 1
    assert "ends in round 1 before it settles" in done.stderr


def test_replay_missing_file():
    done = croupier("replay", "/no/such/script.jsonl")
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_rules_lists_and_shows_profiles():
    listing = croupier("rules")
    assert listing.returncode == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()] == [
        "fr-classic",
        "fr-2007",
        "us-holecard",
        "pt",
        "be-casino",
        "ref-peek",
        "ref-enhc",
    ]
    shown = croupier("rules", "be-casino")
    assert shown.returncode == 0
    assert "forced_draw_to" in shown.stdout and "notes:" in shown.stdout
    bad = croupier("rules", "klondike")
    assert bad.returncode == 2 and "unknown rule profile 'klondike'" in bad.stderr


def test_a_profile_file_extends_a_shipped_profile(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('extends = "be-casino"\nname = "house"\ntable_min = "10"\ntable_max = "1000"\n')
    shown = croupier("rules", str(path))
    assert shown.returncode == 0, shown.stderr
    assert "* table_max" in shown.stdout and "1000" in shown.stdout
    path.write_text('extends = "be-casino"\nname = "house"\nsurender = true\n')
    bad = croupier("rules", str(path))
    assert bad.returncode == 2 and "unknown setting 'surender'" in bad.stderr


def test_simulate_json():
    done = croupier("simulate", "--rules", "ref-peek", "--hands", "20000", "--seed", "4", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) >= {"house_edge_pct", "stderr_pct", "hands", "hands_per_second"}
    assert result["hands"] == 20000 and result["stderr_pct"] > 0


def test_simulate_is_a_function_of_the_seed_not_of_the_jobs():
    # Two chunks (sim/simulate.py: CHUNK), one a job.
    args = ("simulate", "--rules", "fr-classic", "--hands", "250000", "--seed", "9", "--json",
            "--engine", "python")
    one = json.loads(croupier(*args, "--jobs", "1").stdout)
    two = json.loads(croupier(*args, "--jobs", "2").stdout)
    assert (one["house_edge_pct"], one["hands"]) == (two["house_edge_pct"], two["hands"])


def test_simulate_refuses_bad_arguments():
    assert croupier("simulate", "--rules", "nope", "--hands", "10").returncode == 2
    done = croupier("simulate", "--rules", "be-casino", "--hands", "10", "--boxes", "1")
    assert done.returncode == 2 and "--boxes must be between 2 and 7" in done.stderr


def test_edge_prints_the_edge_its_strategy_and_what_each_rule_costs(tmp_path):
    done = croupier("edge", "--rules", "be-casino", "--json", "--strategy", "--costs")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["rules"] == "be-casino" and out["reference"] == "ref-enhc"
    assert 1.0 < out["house_edge_pct"] < 2.0  # the forced draw to hard 12 costs over a point
    assert set(out["costs_pct"]) == {"surrender", "forced draw"}
    assert out["strategy"]["columns"] == "23456789TA"
    assert out["strategy"]["soft"]["19"][4] == "D"  # may not stand on soft 19: doubles vs 6
    text = croupier("edge", "--rules", "ref-peek", "--strategy")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("ref-peek: house edge 0.407% of the initial stake")
    assert "approximation: total-dependent strategy" in text.stdout
    assert "hard 16  S S S S S H H H H H" in text.stdout
    path = tmp_path / "six-five.toml"
    path.write_text('extends = "ref-peek"\nname = "six-five"\nblackjack_pays = "1.2"\n')
    six_five = croupier("edge", "--rules", str(path), "--costs")
    assert six_five.returncode == 0, six_five.stderr
    assert "blackjack pays" in six_five.stdout
    bad = croupier("edge", "--rules", "klondike")
    assert bad.returncode == 2 and bad.stderr.startswith("croupier edge: unknown rule profile")
    shown = croupier("rules", "ref-peek")
    assert "house edge: 0.407% of the initial stake, by probability" in shown.stdout


def test_docs_rules_md_is_the_output_of_rules_markdown():
    done = croupier("rules", "--markdown")
    assert done.returncode == 0
    docs = Path(__file__).parent.parent / "docs" / "rules.md"
    assert docs.read_text() == done.stdout, "run: croupier rules --markdown > docs/rules.md"
