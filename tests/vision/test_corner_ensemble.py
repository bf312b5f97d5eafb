"""Corner networks merged into one graph (calibration.corner_ensemble): the
reader runs it as it runs one network, and it reads what its members read,
averaged."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from calibration.corner_ensemble import main, merge, recombined
from drivers.vision.learned import MODEL_PATH, NET_H, NET_W, LearnedReader

FEATURES = 24


def member(seed: int, outputs: tuple[str, str] = ("p", "embedding")) -> bytes:
    """A small network with the reader's input and outputs (the rank's 14
    probabilities then the suit's 4; the features both read), its weights
    drawn from `seed`: a member as another training run would make it."""
    rng = np.random.default_rng(seed)
    size = 3 * NET_H * NET_W

    def weights(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(
            (rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32), name)

    nodes = [
        helper.make_node("Flatten", ["patch"], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "w1", "b1"], ["hidden"]),
        helper.make_node("Relu", ["hidden"], [outputs[1]]),
        helper.make_node("Gemm", [outputs[1], "wr", "br"], ["rank"]),
        helper.make_node("Gemm", [outputs[1], "ws", "bs"], ["suit"]),
        helper.make_node("Softmax", ["rank"], ["p_rank"], axis=1),
        helper.make_node("Softmax", ["suit"], ["p_suit"], axis=1),
        helper.make_node("Concat", ["p_rank", "p_suit"], [outputs[0]], axis=1),
    ]
    inits = [weights("w1", size, FEATURES), weights("b1", FEATURES),
             weights("wr", FEATURES, 14), weights("br", 14),
             weights("ws", FEATURES, 4), weights("bs", 4)]
    graph = helper.make_graph(
        nodes, f"member-{seed}",
        [helper.make_tensor_value_info("patch", TensorProto.FLOAT, ["n", 3, NET_H, NET_W])],
        [helper.make_tensor_value_info(outputs[0], TensorProto.FLOAT, ["n", 18]),
         helper.make_tensor_value_info(outputs[1], TensorProto.FLOAT, ["n", FEATURES])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return bytes(model.SerializeToString())


def outputs(raw: bytes, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    net = cv2.dnn.readNetFromONNX(np.frombuffer(raw, np.uint8))
    net.setInput(x)
    p, emb = net.forward(["p", "embedding"])
    return np.asarray(p).reshape(len(x), -1), np.asarray(emb).reshape(len(x), -1)


def test_the_merged_graph_averages_its_members_and_keeps_their_features() -> None:
    a, b, c = member(1), member(2), member(3)
    x = np.random.default_rng(1).normal(size=(6, 3, NET_H, NET_W)).astype(np.float32)
    (pa, ea), (pb, eb), (pc, ec) = outputs(a, x), outputs(b, x), outputs(c, x)
    assert np.abs(pa - pb).max() > 0.05  # the members do read otherwise
    for half, tol in ((False, 1e-5), (True, 5e-3)):
        p, emb = outputs(merge([a, b], half=half), x)
        assert np.abs(p - (pa + pb) / 2).max() < tol
        assert np.abs(emb - np.concatenate([ea, eb], 1)).max() < 50 * tol * np.abs(emb).max()
    p, emb = outputs(merge([a, b, c], half=False), x)
    assert np.abs(p - (pa + pb + pc) / 3).max() < 1e-5
    assert np.abs(emb - np.concatenate([ea, eb, ec], 1)).max() < 1e-4 * np.abs(emb).max()
    # float16 weights: two networks in about the size one took.
    assert len(merge([a, b], half=True)) < 0.6 * (len(a) + len(b))


def test_the_members_may_be_combined_by_geometric_mean_or_least() -> None:
    a, b = member(1), member(2)
    x = np.random.default_rng(2).normal(size=(6, 3, NET_H, NET_W)).astype(np.float32)
    (pa, _), (pb, _) = outputs(a, x), outputs(b, x)
    p, _ = outputs(merge([a, b], half=False, combine="min"), x)
    assert np.abs(p - np.minimum(pa, pb)).max() < 1e-6
    p, _ = outputs(merge([a, b], half=False, combine="geometric"), x)
    geo = np.sqrt(pa * pb)
    for lo, hi in ((0, 14), (14, 18)):  # each head sums to one again
        want = geo[:, lo:hi] / geo[:, lo:hi].sum(1, keepdims=True)
        assert np.abs(p[:, lo:hi] - want).max() < 1e-5
    # Not the mean under another name.
    assert np.abs(p - (pa + pb) / 2).max() > 0.01
    with pytest.raises(ValueError, match="combine 'vote'"):
        merge([a, b], combine="vote")


def test_a_merged_graph_is_combined_anew_without_its_members_files() -> None:
    """The shipped graph holds its members (float16): it can be made again
    with another combination, as if merged so, and back."""
    a, b = member(1), member(2)
    x = np.random.default_rng(3).normal(size=(4, 3, NET_H, NET_W)).astype(np.float32)
    merged = merge([a, b])
    for combine in ("min", "geometric", "mean"):
        want, _ = outputs(merge([a, b], combine=combine), x)
        got, emb = outputs(recombined(merged, combine), x)
        assert np.abs(got - want).max() < 1e-6
        back, _ = outputs(recombined(recombined(merged, combine), "mean"), x)
        assert np.abs(back - outputs(merged, x)[0]).max() < 1e-6
    assert emb.shape == (4, 2 * FEATURES)
    with pytest.raises(ValueError, match="not a merged graph"):
        recombined(a, "min")


def test_int8_weights_take_half_the_room_and_read_as_the_members_do() -> None:
    """Weights kept as int8 with a scale each: the graph is about half the
    size of float16's (room for more members within the model's size
    budget), reads within a hundredth of the members' float32 mean, and can
    be combined anew like any merged graph."""
    a, b, c = member(1), member(2), member(3)
    x = np.random.default_rng(4).normal(size=(6, 3, NET_H, NET_W)).astype(np.float32)
    exact, exact_emb = outputs(merge([a, b, c], half=False), x)
    small = merge([a, b, c], int8=True)
    p, emb = outputs(small, x)
    assert np.abs(p - exact).max() < 1e-2
    assert np.abs(emb - exact_emb).max() < 2e-2 * np.abs(exact_emb).max()
    assert len(small) < 0.6 * len(merge([a, b, c]))
    got, _ = outputs(recombined(small, "geometric"), x)
    want, _ = outputs(merge([a, b, c], combine="geometric", int8=True), x)
    assert np.abs(got - want).max() < 1e-6


def test_a_merged_graph_alone_refuses_a_weight_storage(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Made again from one merged graph, the members' weights stay as they
    were stored: asking for int8 or float32 there is refused, not ignored."""
    merged = tmp_path / "merged.onnx"
    merged.write_bytes(merge([member(1), member(2)]))
    merged.with_suffix(".json").write_text("{}")
    for flag in ("--int8", "--float32"):
        with pytest.raises(SystemExit):
            main([str(merged), "--out", str(tmp_path / "again.onnx"), flag])
        assert "a merged graph alone keeps its weights" in capsys.readouterr().err
    assert not (tmp_path / "again.onnx").exists()


def test_the_reader_runs_an_ensemble_as_one_network() -> None:
    reader = LearnedReader(merge([member(1), member(2)]))
    assert reader.embedding == 2 * FEATURES
    patch = np.full((116, 96, 3), 200, np.uint8)
    cv2.putText(patch, "7", (14, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0), 3)
    p, emb = reader.features([patch, patch])
    assert p.shape == (2, 18) and emb.shape == (2, 2 * FEATURES)
    assert np.allclose(p[:, :14].sum(1), 1.0, atol=1e-3)
    assert np.allclose(p[:, 14:].sum(1), 1.0, atol=1e-3)


def test_the_shipped_network_is_read_with_its_whole_features() -> None:
    shipped = LearnedReader(MODEL_PATH.read_bytes())
    names = [o.name for o in onnx.load_from_string(MODEL_PATH.read_bytes()).graph.output]
    assert names == ["p", "embedding"]
    _, emb = shipped.features(np.full((116, 96, 3), 200, np.uint8))
    assert emb.shape == (1, shipped.embedding)


def test_an_ensemble_needs_two_networks_with_the_readers_outputs() -> None:
    with pytest.raises(ValueError, match="at least two"):
        merge([member(1)])
    with pytest.raises(ValueError, match="outputs"):
        merge([member(1), member(2, ("p", "features"))])


def test_bytes_that_are_no_graph_are_named() -> None:
    with pytest.raises(ValueError, match="network 0: not an ONNX graph"):
        merge([b"not a network", member(1)])
