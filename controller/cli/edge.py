"""croupier edge --rules P [--strategy] [--costs] [--json]"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, NamedTuple

from controller.engine.edge import APPROXIMATION, COLUMNS, Strategy
from controller.engine.profile import RuleProfile

# Published house edges of reference rule sets (%, positive: the house's), each with
# the changes to a shipped reference profile that make its rules, and the source.
# Wizard of Odds, Blackjack Appendix 9: "a recursive combinatorial program that
# considered the exact hand composition at every step" (a composition-dependent
# strategy, so a shade better for the player than a total-dependent one).
WOO_A9 = "https://wizardofodds.com/games/blackjack/appendix/9/"
# Wizard of Odds' house edge calculator has "shuffle after each hand" as an option:
# its figure is otherwise for a shoe dealt to a cut card, while croupier edge prices
# each round off the top of a full shoe (as a continuous shuffler deals). Its two
# shoe figures here sit 0.019 and 0.020 above this edge, which is what the same
# site measures a cut card adds to a 6-deck game (by simulation, by decks):
WOO_CUT_CARD = "https://wizardofodds.com/games/blackjack/cut-card-effect/"
CUT_CARD_EFFECT = {1: 0.113, 2: 0.063, 4: 0.034, 5: 0.028, 6: 0.020, 8: 0.014}
WOO_CALCULATOR = "https://wizardofodds.com/games/blackjack/calculator/"


class Published(NamedTuple):
    label: str
    base: str  # the shipped reference profile
    changes: dict[str, Any]  # what makes its rules from the reference's
    figure: float
    source: str
    cut_card: float = 0.0  # what a cut card adds to the figure (0: off the top, a CSM)


PUBLISHED: tuple[Published, ...] = (
    Published(
        "2 decks, H17, DAS, split to 4 (no aces), peek",
        "ref-peek",
        {"decks": 2, "dealer_hits_soft_17": True},
        0.3797,
        WOO_A9 + "2dh17r4/",
    ),
    Published(
        "2 decks, H17, no DAS, split to 4 (no aces), peek",
        "ref-peek",
        {"decks": 2, "dealer_hits_soft_17": True, "double_after_split": False},
        0.5252,
        WOO_A9 + "2dh17r4/",
    ),
    Published(
        "5 decks, S17, DAS, split to 4 (no aces), peek",
        "ref-peek",
        {"decks": 5},
        0.3804,
        WOO_A9 + "5ds17r4/",
    ),
    Published(
        "5 decks, S17, no DAS, split to 4 (no aces), peek",
        "ref-peek",
        {"decks": 5, "double_after_split": False},
        0.5225,
        WOO_A9 + "5ds17r4/",
    ),
    Published(
        "5 decks, H17, DAS, split to 4 (no aces), peek",
        "ref-peek",
        {"decks": 5, "dealer_hits_soft_17": True},
        0.5918,
        WOO_A9 + "5dh17r4/",
    ),
    Published(
        "6 decks, H17, DAS, split to 4 (no aces), no hole card, all stakes lost",
        "ref-enhc",
        {"dealer_hits_soft_17": True},
        0.72705,
        WOO_A9 + "euro-6dh17r4/",
    ),
    Published(
        "6 decks, H17, no DAS, split to 4 (no aces), no hole card, all stakes lost",
        "ref-enhc",
        {"dealer_hits_soft_17": True, "double_after_split": False},
        0.86975,
        WOO_A9 + "euro-6dh17r4/",
    ),
    Published(
        "8 decks, H17, DAS, split to 4 (no aces), no hole card, all stakes lost",
        "ref-enhc",
        {"decks": 8, "dealer_hits_soft_17": True},
        0.7562,
        WOO_A9 + "euro-8dh17r4/",
    ),
    Published(
        "6 decks, S17, no hole card, double on 9-11, DAS, split to 4 (aces too), "
        "continuous shuffler (Wizard of Odds calculator, to 0.01)",
        "ref-enhc",
        {"double_totals": (9, 10, 11), "resplit_aces": True, "max_ace_hands": 4},
        0.55,
        "https://wizardofodds.com/ask-the-wizard/294/",
    ),
    Published(
        "6 decks, S17, DAS, split to 4 (no aces), peek, cut card (Wizard of Odds calculator)",
        "ref-peek",
        {},
        0.426,
        WOO_CALCULATOR,
        CUT_CARD_EFFECT[6],
    ),
    Published(
        "6 decks, H17, DAS, split to 4 (no aces), peek, cut card (Wizard of Odds calculator)",
        "ref-peek",
        {"dealer_hits_soft_17": True},
        0.639,
        "https://wizardofvegas.com/forum/questions-and-answers/math/"
        "39582-how-were-house-edges-for-bj-games-determined",
        CUT_CARD_EFFECT[6],
    ),
)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "edge",
        help="house edge of a profile's rules, by probability (no dealing)",
        description="The house edge (%% of the initial stake) of the profile's rules played "
        "by its basic strategy, computed by probability: " + APPROXIMATION + ". The "
        "strategy is the one `croupier simulate` plays.",
    )
    parser.add_argument("--rules", required=True, help="profile name or .toml file")
    parser.add_argument(
        "--strategy", action="store_true", help="print the strategy's decisions as tables"
    )
    parser.add_argument(
        "--costs",
        action="store_true",
        help="what each rule that differs from the reference profile adds to the edge",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.set_defaults(handler=run)


def reference_for(profile: RuleProfile) -> str:
    """The reference profile a profile's rules are priced against: the same deal."""
    return "ref-peek" if profile.hole_card and profile.peek else "ref-enhc"


def strategy_text(s: Strategy) -> str:
    head = "         " + " ".join(COLUMNS)
    lines = ["dealer's up card", head]
    lines += [f"hard {t:>2}  " + " ".join(s.hard[t]) for t in range(5, 22)]
    lines += [f"soft {t:>2}  " + " ".join(s.soft[t]) for t in range(13, 22)]
    lines += [
        f"pair {('A' if v == 1 else 'T' if v == 10 else str(v)) * 2}  " + " ".join(s.pairs[v])
        for v in (1, *range(2, 11))
    ]
    lines.append(
        "H hit, S stand, D double else hit, d double else stand, P split, "
        "R surrender else hit, r surrender else stand, Q surrender else split"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from controller import rules
    from controller.engine.edge import edge, rule_costs
    from controller.engine.errors import ProfileError

    try:
        profile = rules.load(args.rules)
        reference = rules.shipped(reference_for(profile)) if args.costs else None
    except ProfileError as exc:
        print(f"croupier edge: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    result = edge(profile)
    seconds = time.perf_counter() - started
    costs = rule_costs(profile, reference) if reference is not None else []
    if args.json:
        out: dict[str, Any] = {
            "rules": profile.name,
            "house_edge_pct": round(result.edge_pct, 4),
            "player_ev_by_up_card": {k: round(v, 6) for k, v in result.by_up.items()},
            "approximation": APPROXIMATION,
            "seconds": round(seconds, 3),
        }
        if args.strategy:
            s = result.strategy
            out["strategy"] = {
                "columns": COLUMNS,
                "hard": {str(k): v for k, v in s.hard.items()},
                "soft": {str(k): v for k, v in s.soft.items()},
                "pairs": {str(k): v for k, v in s.pairs.items()},
            }
        if reference is not None:
            out["reference"] = reference.name
            out["costs_pct"] = {label: round(c, 4) for label, c in costs}
        print(json.dumps(out))
        return 0
    print(
        f"{profile.name}: house edge {result.edge_pct:.3f}% of the initial stake, "
        f"by probability ({seconds:.2f} s)"
    )
    print(f"approximation: {APPROXIMATION}")
    if reference is not None:
        print(f"\nagainst {reference.name} ({edge(reference).edge_pct:.3f}%), each rule alone:")
        for label, cost in costs:
            print(f"  {label:<45} {cost:+.3f} points")
    if args.strategy:
        print()
        print(strategy_text(result.strategy))
    return 0
