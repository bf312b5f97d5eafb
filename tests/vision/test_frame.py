"""Frame mode: cards anywhere, any rotation, a 2x range of sizes, on dark
and light tables; overlapping cards are reported unread, never misread."""

from __future__ import annotations

import numpy as np

from drivers.vision.frame import read_frame
from sim.camera.decks import ALL_CARDS
from sim.camera.optics import Optics, background, card_corners, expose, place
from sim.camera.table import FELT, LIGHT_TABLE, scene
from tests.vision.conftest import get_calibration, get_deck


def test_scattered_cards_are_found_and_read_or_refused() -> None:
    deck = get_deck("npm-cardsjs")
    model = get_calibration("npm-cardsjs").model()
    rng = np.random.default_rng(11)
    found = read = 0
    total = 0
    for seed in range(12):
        cards = [ALL_CARDS[int(i)] for i in rng.choice(52, 3, replace=False)]
        s = scene(deck, cards, seed=seed, felt=LIGHT_TABLE if seed % 2 else FELT)
        got = read_frame(s.image, model, (70.0, 180.0))
        for p in s.cards:
            total += 1
            near = [
                g
                for g in got
                if np.hypot(g.centre[0] - p.centre[0], g.centre[1] - p.centre[1]) < 12
            ]
            assert len(near) <= 1
            if near:
                found += 1
                assert near[0].card in (p.card, None)
                read += near[0].card == p.card
    assert found >= 0.8 * total
    # Measured 24 of 36 on these seeds (small, turned cards lose their index
    # to the warp); the floor catches a regression, docs/benchmarks.md has more.
    assert read >= 0.6 * total


def test_overlapping_cards_are_never_misread() -> None:
    deck = get_deck("npm-svg-cards")
    model = get_calibration("npm-svg-cards").model()
    for seed, (a, b) in enumerate([("AS", "KH"), ("6C", "9C"), ("TD", "2S")]):
        frame = background((640, 480), FELT, seed)
        place(frame, deck[a], card_corners(280, 240, 140, 196, 10.0 + 20 * seed))
        place(frame, deck[b], card_corners(350, 260, 140, 196, -25.0))
        image = expose(frame, Optics(noise=2.0), np.random.default_rng(seed))
        got = read_frame(image, model, (70.0, 180.0))
        assert got, "the pair is found"
        assert all(g.card in (a, b, None) for g in got)
        # The two stuck cards make one outline: found, reported unread.
        assert any(g.card is None for g in got) or {g.card for g in got} == {a, b}


def test_empty_and_black_frames_have_no_cards() -> None:
    model = get_calibration("npm-cardsjs").model()
    assert read_frame(background((640, 480), FELT, 1), model) == []
    assert read_frame(np.zeros((480, 640, 3), np.uint8), model) == []
    assert read_frame(np.full((480, 640, 3), 255, np.uint8), model) == []


def test_the_learned_reader_reads_scattered_and_overlapping_cards() -> None:
    """The learned reader reads every card corner in view: scattered cards,
    a pair lying on each other; never a card that is not there."""
    from drivers.vision.learned import learned_model

    deck = get_deck("npm-cardsjs")
    model = learned_model()
    rng = np.random.default_rng(11)
    total = read = 0
    for seed in range(6):
        cards = [ALL_CARDS[int(i)] for i in rng.choice(52, 3, replace=False)]
        s = scene(deck, cards, seed=seed, felt=LIGHT_TABLE if seed % 2 else FELT)
        got = {g.card for g in read_frame(s.image, model, (70.0, 180.0))} - {None}
        assert got <= set(cards)
        total += len(cards)
        read += len(got)
    # Measured 18 of 18 with the shipped network (14 with the one before:
    # small, turned cards refused); bench.vision_oof has the figures out of
    # fold.
    assert read >= 0.7 * total
    pairs = read = 0
    for seed, (a, b) in enumerate([("AS", "KH"), ("6C", "9C"), ("TD", "2S")]):
        frame = background((640, 480), FELT, seed)
        place(frame, deck[a], card_corners(280, 240, 140, 196, 10.0 + 20 * seed))
        place(frame, deck[b], card_corners(350, 260, 140, 196, -25.0))
        image = expose(frame, Optics(noise=2.0), np.random.default_rng(seed))
        got = {g.card for g in read_frame(image, model, (70.0, 180.0))} - {None}
        # The 6C's bottom corner, its club half under the 9C, was read as a
        # 6S at a suit probability of 0.91: never again (the thresholds are
        # set out of fold on pairs like these).
        assert got <= {a, b}
        pairs, read = pairs + 2, read + len(got)
    # 6 of the 6 cards with the shipped network (5 with the one before).
    assert read >= 4


def test_the_learned_reader_finds_nothing_on_an_empty_table() -> None:
    from drivers.vision.learned import learned_model

    model = learned_model()
    assert read_frame(background((640, 480), FELT, 1), model) == []
    assert read_frame(np.zeros((480, 640, 3), np.uint8), model) == []
    assert read_frame(np.full((480, 640, 3), 255, np.uint8), model) == []
