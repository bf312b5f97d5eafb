"""Corner networks trained apart, shipped as one: their probabilities
averaged, their features side by side (development time; the `build`
extra's onnx).

Why: one training run to the next, the few corners a network misreads
surely are not the same ones (a revk 3 of hearts read as a 5 by one run, a
four-index ace read as a 4 by the other), and those few set the thresholds
every other card is read at. Where one network is surely wrong the other is
seldom surely wrong the same way, so the average of two is sure of far
fewer wrong cards. The merged graph has the one input and the two outputs
(`p`, `embedding`) the reader expects (drivers.vision.learned), so nothing
at run time knows it is two networks; its weights are kept as float16 (cast
to float32 as the graph loads) to stay within the model's size budget.

    python -m calibration.corner_ensemble --out merged.onnx a.onnx b.onnx
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

INPUT = "patch"
OUTPUTS = ("p", "embedding")


def _renamed(model: Any, prefix: str) -> tuple[list[Any], list[Any]]:
    """The graph's nodes and initializers with every name but the input's
    prefixed, so two graphs can lie side by side."""
    from onnx import numpy_helper

    graph = model.graph

    def name(n: str) -> str:
        return n if n in ("", INPUT) else f"{prefix}{n}"

    nodes = []
    for node in graph.node:
        node.input[:] = [name(i) for i in node.input]
        node.output[:] = [name(o) for o in node.output]
        node.name = name(node.name)
        nodes.append(node)
    inits = []
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        inits.append((name(init.name), arr))
    return nodes, inits


def merge(nets: list[bytes], half: bool = True, combine: str = "mean",
          int8: bool = False) -> bytes:
    """One ONNX graph reading `patch` into each network: `p` their
    probabilities combined (COMBINE), `embedding` their features
    concatenated. `half`: float weights stored as float16, each cast back to
    float32 in the graph; `int8`: stored as int8, a scale for each slice
    along the first axis, made float32 again in the graph (half the size
    of float16: room for more members within the model's size budget)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if len(nets) < 2:
        raise ValueError("an ensemble needs at least two networks")
    casts: list[Any] = []  # first: a node must follow what it reads
    nodes: list[Any] = []
    inits: list[Any] = []
    models = []
    for k, raw in enumerate(nets):
        try:
            models.append(onnx.load_from_string(raw))
        except Exception as exc:  # protobuf's DecodeError is no ValueError
            raise ValueError(f"network {k}: not an ONNX graph ({exc})") from exc
    first = models[0]
    for k, model in enumerate(models):
        outs = [o.name for o in model.graph.output]
        if tuple(outs) != OUTPUTS or model.graph.input[0].name != INPUT:
            raise ValueError(f"network {k}: outputs {outs}, not {list(OUTPUTS)}")
        got_nodes, got_inits = _renamed(model, f"n{k}/")
        nodes += got_nodes
        for name, arr in got_inits:
            stored = arr.dtype == np.float32 and arr.size > 64  # weights, not small constants
            if stored and int8:
                q, scale = _int8(arr)
                inits += [numpy_helper.from_array(q, name + "/int8"),
                          numpy_helper.from_array(scale, name + "/scale")]
                casts += [helper.make_node("Cast", [name + "/int8"], [name + "/unscaled"],
                                           to=TensorProto.FLOAT, name=name + "/cast"),
                          helper.make_node("Mul", [name + "/unscaled", name + "/scale"], [name],
                                           name=name + "/scaled")]
            elif stored and half:
                inits.append(numpy_helper.from_array(arr.astype(np.float16), name + "/half"))
                casts.append(helper.make_node("Cast", [name + "/half"], [name],
                                              to=TensorProto.FLOAT, name=name + "/cast"))
            else:
                inits.append(numpy_helper.from_array(arr, name))
    n = len(nets)
    nodes += _combined([f"n{k}/p" for k in range(n)], combine, inits)
    nodes.append(helper.make_node("Concat", [f"n{k}/embedding" for k in range(n)],
                                  ["embedding"], axis=1, name="features"))
    p_out = helper.make_tensor_value_info("p", TensorProto.FLOAT, ["n", 18])
    emb = first.graph.output[1].type.tensor_type.shape.dim[1].dim_value
    e_out = helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["n", emb * n])
    graph = helper.make_graph(casts + nodes, "corner-ensemble", [first.graph.input[0]],
                              [p_out, e_out], inits)
    model = helper.make_model(graph, opset_imports=list(first.opset_import))
    model.ir_version = first.ir_version
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def _int8(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weights as int8 and the float32 scale of each slice along the first
    axis (a convolution's output channel, a dense layer's input row), so
    that q * scale is within half a step of each weight."""
    axes = tuple(range(1, arr.ndim))
    top = np.abs(arr).max(axis=axes, keepdims=True) if axes else np.abs(arr).max()
    scale = (np.maximum(top, 1e-12) / 127.0).astype(np.float32)
    q = np.clip(np.round(arr / scale), -127, 127).astype(np.int8)
    return q, np.asarray(scale, np.float32)


# How the members' probabilities become one: "mean" (each class's mean);
# "geometric" (each head's geometric mean, made to sum to one again: a
# class one member thinks unlikely stays unlikely, so two members sure of
# different cards make an unsure corner); "min" (each class's least: a
# corner is as sure as its least sure member).
COMBINE = ("mean", "geometric", "min")
_HEADS = ((0, 14), (14, 18))  # the rank head (13 ranks and no index), the suit head


def _combined(probs: list[str], combine: str, inits: list[Any]) -> list[Any]:
    """The nodes that make `p` of the members' probabilities `probs`."""
    from onnx import helper, numpy_helper

    n = len(probs)
    if combine == "min":
        return [helper.make_node("Min", probs, ["p"], name="least")]
    if combine not in COMBINE:
        raise ValueError(f"combine {combine!r}: not one of {', '.join(COMBINE)}")
    nodes = []
    if combine == "geometric":
        inits.append(numpy_helper.from_array(np.array([1e-7], np.float32), "geo/floor"))
        logs = []
        for k, name in enumerate(probs):
            nodes += [helper.make_node("Max", [name, "geo/floor"], [f"geo{k}/floored"]),
                      helper.make_node("Log", [f"geo{k}/floored"], [f"geo{k}/log"])]
            logs.append(f"geo{k}/log")
        probs = logs
    total = probs[0]
    for k in range(1, n):
        nodes.append(helper.make_node("Add", [total, probs[k]], [f"sum{k}/p"], name=f"sum{k}"))
        total = f"sum{k}/p"
    inits.append(numpy_helper.from_array(np.array([1.0 / n], np.float32), "mean/scale"))
    if combine == "mean":
        nodes.append(helper.make_node("Mul", [total, "mean/scale"], ["p"], name="mean"))
        return nodes
    nodes += [helper.make_node("Mul", [total, "mean/scale"], ["geo/meanlog"]),
              helper.make_node("Exp", ["geo/meanlog"], ["geo/unscaled"])]
    heads = []
    for h, (lo, hi) in enumerate(_HEADS):
        for what, value in (("starts", lo), ("ends", hi), ("axes", 1)):
            inits.append(numpy_helper.from_array(np.array([value], np.int64),
                                                 f"geo/head{h}/{what}"))
        nodes += [helper.make_node("Slice", ["geo/unscaled", f"geo/head{h}/starts",
                                             f"geo/head{h}/ends", f"geo/head{h}/axes"],
                                   [f"geo/head{h}"]),
                  helper.make_node("ReduceSum", [f"geo/head{h}", f"geo/head{h}/axes"],
                                   [f"geo/head{h}/sum"], keepdims=1),
                  helper.make_node("Div", [f"geo/head{h}", f"geo/head{h}/sum"],
                                   [f"geo/head{h}/p"])]
        heads.append(f"geo/head{h}/p")
    nodes.append(helper.make_node("Concat", heads, ["p"], axis=1, name="geometric"))
    return nodes


def recombined(raw: bytes, combine: str) -> bytes:
    """A merged graph (merge) with its members' probabilities combined
    otherwise: the members are kept as they are (their weights as stored:
    float32, float16 or int8), only the nodes after their `p` are made
    again."""
    import onnx

    model = onnx.load_from_string(raw)
    graph = model.graph
    members = sorted({o for node in graph.node for o in node.output
                      if o.startswith("n") and o.endswith("/p") and "/" not in o[1:-2]})
    if len(members) < 2:
        raise ValueError("not a merged graph: fewer than two members' probabilities")
    # Every node from the members' `p` on to the output `p` goes; so do their
    # constants (the members' own names all begin n<k>/).
    kept = [n for n in graph.node if any(o.startswith("n") and "/" in o for o in n.output)
            or n.op_type == "Cast" or "embedding" in n.output]
    used = {i for n in kept for i in n.input}
    inits = [i for i in graph.initializer if i.name in used or i.name.startswith("n")]
    fresh: list[Any] = []
    nodes = _combined(members, combine, fresh)
    del graph.node[:]
    graph.node.extend(kept + nodes)
    del graph.initializer[:]
    graph.initializer.extend(inits + fresh)
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def main(argv: list[str] | None = None) -> int:
    from drivers.vision.learned import LearnedThresholds, save

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nets", type=Path, nargs="+",
                    help="corner networks (.onnx, each with .json); one merged graph alone: "
                    "its members combined anew by --combine")
    ap.add_argument("--out", type=Path, required=True)
    store = ap.add_mutually_exclusive_group()
    store.add_argument("--float32", action="store_true", help="keep the weights as float32")
    store.add_argument("--int8", action="store_true",
                       help="keep the weights as int8 with a scale each (float16 by default)")
    ap.add_argument("--combine", choices=COMBINE, default="mean",
                    help="how the members' probabilities are combined")
    args = ap.parse_args(argv)
    if len(args.nets) == 1 and (args.float32 or args.int8):
        # The members' weights are stored once, as they are merged.
        ap.error("--float32 and --int8 apply to members being merged; a merged graph "
                 "alone keeps its weights as they are stored")
    try:
        metas = [json.loads(p.with_suffix(".json").read_text()) for p in args.nets]
        if len(args.nets) == 1:
            # A merged graph made again: its file (thresholds, members, recipe)
            # kept but for how it combines.
            onnx = recombined(args.nets[0].read_bytes(), args.combine)
            args.out.write_bytes(onnx)
            args.out.with_suffix(".json").write_text(
                json.dumps({**metas[0], "combine": args.combine}, indent=1, sort_keys=True)
                + "\n")
            print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
            return 0
        onnx = merge([p.read_bytes() for p in args.nets], half=not args.float32,
                     combine=args.combine, int8=args.int8)
    except (OSError, ValueError) as exc:  # a missing file, bad JSON, not a corner network
        raise SystemExit(f"corner_ensemble: {exc}") from exc
    meta: dict[str, object] = {"built_by": "calibration.corner_ensemble",
            "combine": args.combine,
            "members": [{"file": p.name, **{k: m.get(k) for k in
                                            ("designs", "left_out", "epochs", "seed", "photos",
                                             "went_on_from", "recipe", "views")}}
                        for p, m in zip(args.nets, metas, strict=True)],
            "left_out": sorted({f for m in metas for f in m.get("left_out", [])})}
    save(args.out, onnx, LearnedThresholds(), meta)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
