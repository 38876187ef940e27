"""The decoder step generator and its configs: every shipped config builds a step that verifies, prints and parses
back to the same text, has the launches and shapes of the kernels' semantics, and can be placed; bad configs fail
with a message naming the key."""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections import Counter

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.parser import Parser

from lanearena.analysis.arena_problem import problem
from lanearena.dialects.lane import LANE
from lanearena.frontend.configs import CONFIGS, load
from lanearena.frontend.decoder import ConfigError, DecoderConfig, decoder_step
from lanearena.model import Form, Role, Step
from lanearena.passes.convert import step_of, steps


def _step(config: DecoderConfig) -> Step:
    return step_of(steps(decoder_step(config))[0])[0]


@pytest.fixture(scope="module")
def built() -> dict[str, tuple[str, Step]]:
    """Each shipped config's printed step and its plain step, as the builder writes it (unfused: test_fuse.py holds
    the fused launches)."""
    out = {}
    for name, config in CONFIGS.items():
        module = decoder_step(dataclasses.replace(config, lane_fuse=False))
        out[name] = (str(module), step_of(steps(module)[0])[0])
    return out


@pytest.mark.parametrize("name", CONFIGS)
def test_prints_and_parses_back_to_the_same_text(built, name):
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(LANE)
    text = built[name][0]
    module = Parser(ctx, text).parse_module()
    module.verify()
    assert str(module) == text


LAUNCHES = {
    "tiny": {
        "gather": 1,
        "norm": 5,
        "gemv": 7,
        "rope": 4,
        "kv_store": 2,
        "attention": 2,
        "quantize": 4,
        "binary": 4,
        "glu": 2,
        "argmax": 1,
    },
    "tiny-moe": {
        "gather": 1,
        "norm": 5,
        "gemv": 5,
        "rope": 4,
        "kv_store": 2,
        "attention": 2,
        "quantize": 2,
        "binary": 4,
        "moe": 2,
        "argmax": 1,
    },
    "tiny-prefill": {
        "gather": 1,
        "norm": 5,
        "gemv": 11,
        "rope": 4,
        "kv_store": 2,
        "attention": 2,
        "quantize": 4,
        "binary": 4,
        "glu": 2,
        "argmax": 1,
    },
    "qwen3-0.6b": {
        "gather": 1,
        "norm": 113,
        "gemv": 85,
        "rope": 56,
        "kv_store": 28,
        "attention": 28,
        "quantize": 56,
        "binary": 56,
        "glu": 28,
        "argmax": 1,
    },
    "qwen3-30b-a3b": {
        "gather": 1,
        "norm": 193,
        "gemv": 97,
        "rope": 96,
        "kv_store": 48,
        "attention": 48,
        "quantize": 48,
        "binary": 96,
        "moe": 48,
        "argmax": 1,
    },
}


@pytest.mark.parametrize("name", CONFIGS)
def test_launches_per_kind(built, name):
    assert Counter(launch.kind for launch in built[name][1].launches) == LAUNCHES[name]


def test_tiny_launches_in_order(built):
    step = built["tiny"][1]
    layer = [
        "norm",
        "gemv",
        "rope",
        "rope",
        "kv_store",
        "attention",
        "quantize",
        "gemv",
        "binary",
        "norm",
        "glu",
        "quantize",
        "gemv",
        "binary",
    ]
    assert [launch.kind for launch in step.launches] == ["gather", *layer, *layer, "norm", "gemv", "argmax"]
    assert step.outputs == {"token", "logits"}
    assert {n for n, t in step.tensors.items() if t.role is Role.STATE} == {
        "l0.k_cache",
        "l0.v_cache",
        "l1.k_cache",
        "l1.v_cache",
    }
    assert step.tensors["l1.k_cache"].shape == (64, 64)


def test_decode_makes_q_k_v_views_of_one_projection(built):
    step = built["tiny"][1]
    views = {n: (t.view_of, t.view_offset, t.shape) for n, t in step.tensors.items() if t.view_of is not None}
    assert views == {
        f"l{i}.{n}": (f"l{i}.qkv", offset, shape)
        for i in range(2)
        for n, offset, shape in (("q", 0, (128,)), ("k", 128, (64,)), ("v", 192, (64,)))
    }
    qkv = [launch for launch in step.launches if launch.outs == ("l0.qkv",)]
    assert len(qkv) == 1 and qkv[0].ins == ("l0.h", "l0.wqkv")
    assert step.tensors["l0.wqkv"].shape == (256, 128)


def test_prefill_projects_q_k_v_apart(built):
    step = built["tiny-prefill"][1]
    assert not any(t.view_of for t in step.tensors.values())
    assert [step.tensors[f"l0.{n}"].shape for n in "qkv"] == [(4, 128), (4, 64), (4, 64)]
    assert step.tensors["ids"].shape == step.tensors["token"].shape == (4,)
    assert step.tensors["logits"].shape == (4, 512)


@pytest.mark.parametrize("name", CONFIGS)
def test_shapes_follow_the_kernels(built, name):
    """Every launch's operands have the shapes its kernel reads and writes, with the config's rows."""
    step = built[name][1]
    rows = CONFIGS[name].rows
    t = step.tensors
    n = lambda name: t[name].length  # noqa: E731
    for launch in step.launches:
        ins, outs, p = launch.ins, launch.outs, launch.params
        if launch.kind == "gather":
            (v, d), (out,) = t[ins[0]].shape, outs
            assert n(ins[1]) == rows and n(out) == rows * d
        elif launch.kind == "norm":
            (d,) = t[ins[1]].shape
            assert n(ins[0]) == n(outs[0]) and n(ins[0]) % d == 0 and n(ins[0]) // d % rows == 0
        elif launch.kind in ("gemv", "glu"):
            for w in ins[1:]:
                nn, k = t[w].shape
                assert n(ins[0]) == rows * k and n(outs[0]) == rows * nn
        elif launch.kind == "rope":
            assert n(outs[0]) % (rows * p["heads"] * 2) == 0
        elif launch.kind == "kv_store":
            k, v, _ = ins
            assert t[outs[0]].shape == t[outs[1]].shape == (CONFIGS[name].max_len, n(k) // rows) and n(k) == n(v)
        elif launch.kind == "attention":
            q, kc, _, _ = ins
            hd = n(q) // rows // p["heads"]
            assert t[kc].shape[1] == p["kv_heads"] * hd and n(outs[0]) == n(q)
        elif launch.kind == "moe":
            d = t[ins[0]].shape[-1]
            e, f = p["experts"], t[ins[2]].shape[1]
            assert [t[w].shape for w in ins[1:]] == [(e, d), (e, f, d), (e, f, d), (e, d, f)]
            assert n(outs[0]) == rows * d
        elif launch.kind == "binary":
            assert n(ins[0]) == n(ins[1]) == n(outs[0]) and p["op"] == "add"
        elif launch.kind == "argmax":
            assert n(ins[0]) % rows == 0 and t[outs[0]].shape == (rows,) and t[outs[0]].elem == "i32"
        for name_ in {*ins, *outs}:
            assert n(name_) % rows == 0 or t[name_].role is not Role.COMPUTED


@pytest.mark.parametrize("name", CONFIGS)
def test_int8_projections_read_quantized_activations_and_q8_weights(built, name):
    step = built[name][1]
    for launch in step.launches:
        if launch.kind in ("gemv", "glu"):
            x, *ws = launch.ins
            assert launch.reads[0].form is Form.QUANT and all(step.tensors[w].elem == "i8" for w in ws)
            assert launch.params["split"] == (1 if x == "hf" else CONFIGS[name].split)
        if launch.kind == "quantize":
            assert launch.ins == launch.outs and launch.writes[0].form is Form.QUANT


def test_f32_numerics_quantize_nothing():
    step = _step(load("tiny", ["numerics=f32"]))
    assert "quantize" not in {launch.kind for launch in step.launches}
    assert all(t.forms == {Form.PLAIN} for t in step.tensors.values())
    assert all(t.elem == "f32" for t in step.tensors.values() if t.role is Role.WEIGHT)


def test_qk_norm_and_tied_embeddings(built):
    step = built["qwen3-0.6b"][1]
    assert "lm_head" not in step.tensors and step.launches[-2].ins == ("hf", "embed")
    norms = [launch for launch in step.launches if launch.kind == "norm" and launch.ins[1] == "l0.q_norm"]
    assert len(norms) == 1 and norms[0].ins[0] == "l0.q" and step.tensors["l0.q_norm"].shape == (128,)
    ropes = [launch for launch in step.launches if launch.kind == "rope"][:2]
    assert [r.outs for r in ropes] == [("l0.qn",), ("l0.kn",)]


@pytest.mark.parametrize("name", CONFIGS)
def test_every_computed_array_may_live_in_the_arena(built, name):
    """Each computed array is written whole before it is read: only weights, state, inputs, views and the output
    keep buffers of their own."""
    p = problem(built[name][1])
    assert {o.reason for o in p.own} <= {"weight", "state", "input", "output", "view"}
    assert {o.tensor for o in p.own if o.reason == "output"} == {"token", "logits"}


def test_the_largest_config_builds_fast():
    """Built and fused (48 layers of over 20 lines each) in under 5 s."""
    start = time.perf_counter()
    text = str(decoder_step(CONFIGS["qwen3-30b-a3b"]))
    assert time.perf_counter() - start < 5.0
    assert text.count("\n") > 48 * 20


# --- Configs ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        ({"head_dim": 33}, "head_dim 33 is odd"),
        ({"kv_heads": 3}, "kv_heads 3 does not divide heads 4"),
        ({"layers": 0}, "layers must be at least 1, not 0"),
        ({"rows": 65}, "rows 65 do not fit in the caches' max_len 64"),
        ({"numerics": "int4"}, "numerics must be f32, bf16, int8 or int8x2, not 'int4'"),
        ({"experts": 4, "topk": 2, "expert_ffn": 64}, "give either ffn (a dense MLP) or experts"),
        ({"ffn": None}, "experts, topk, expert_ffn missing"),
        ({"ffn": None, "experts": 4, "topk": 5, "expert_ffn": 64}, "topk 5 is not between 1 and experts 4"),
        ({"ffn": None, "experts": 4, "topk": 2, "expert_ffn": 0}, "expert_ffn must be at least 1, not 0"),
        ({"ffn": 0}, "ffn must be at least 1, not 0"),
        ({"ffn": 80, "split": 4}, "split 4 does not cut ffn (80) into parts of whole blocks of 32, none empty"),
        ({"split": 3}, "split 3 does not cut hidden (128) into whole blocks"),
        ({"ffn": 96}, "split 2 does not cut ffn (96) into whole blocks"),
        ({"head_split": 8}, "head_split 8 does not cut hidden"),
        ({"layers": "2"}, "layers is an integer, not '2'"),
        ({"layers": 2.0}, "layers is an integer, not 2.0"),
        ({"qk_norm": 1}, "qk_norm is true or false, not 1"),
        ({"norm_eps": "small"}, "norm_eps is a number, not 'small'"),
        ({"name": ""}, "name must not be empty"),
    ],
)
def test_bad_configs_name_the_key(change, message):
    with pytest.raises(ConfigError) as e:
        dataclasses.replace(CONFIGS["tiny"], **change)
    assert message in str(e.value)


def test_shipped_configs():
    tiny = CONFIGS["tiny"]
    assert (
        tiny.layers,
        tiny.hidden,
        tiny.heads,
        tiny.kv_heads,
        tiny.head_dim,
        tiny.ffn,
        tiny.vocab,
        tiny.max_len,
        tiny.numerics,
        tiny.split,
        tiny.attn_splits,
    ) == (2, 128, 4, 2, 32, 256, 512, 64, "int8", 2, 2)
    moe = CONFIGS["qwen3-30b-a3b"]
    assert (moe.layers, moe.hidden, moe.heads, moe.kv_heads, moe.experts, moe.topk, moe.expert_ffn, moe.vocab) == (
        48,
        2048,
        32,
        4,
        128,
        8,
        768,
        151936,
    )
    assert load("tiny-prefill").rows == 4 and load("tiny") == tiny


def test_json_configs_load(tmp_path):
    path = tmp_path / "mine.json"
    values = dataclasses.asdict(CONFIGS["tiny-moe"])
    del values["name"]
    path.write_text(json.dumps(values, indent=1))
    assert load(str(path)) == dataclasses.replace(CONFIGS["tiny-moe"], name="mine")
    assert load(str(path), ["rows=2", "qk_norm=true", "norm_eps=1e-5", "name=other"]) == dataclasses.replace(
        CONFIGS["tiny-moe"], name="other", rows=2, qk_norm=True, norm_eps=1e-5
    )


def test_settings_change_a_shipped_config():
    moe = load("tiny", ["ffn=none", "experts=8", "topk=2", "expert_ffn=64"])
    assert (moe.ffn, moe.experts, moe.name) == (None, 8, "tiny")
    assert math.isclose(load("tiny", ["rope_theta=10000"]).rope_theta, 1e4)


@pytest.mark.parametrize(
    "text, settings, message",
    [
        ('{\n  "layers": 2,\n  "hidden": 96,\n', [], "bad.json:4:1: malformed JSON"),
        ("[1, 2]", [], "bad.json: a config is a JSON object of keys, not list"),
        ('{"layers": 2}', [], "bad.json: missing keys hidden, heads, kv_heads, head_dim, vocab, max_len"),
        ('{\n"layers": 2,\n"hiden": 128}', [], "bad.json:3: unknown key 'hiden' (did you mean 'hidden'?)"),
        (None, [], "bad.json:6: kv_heads 3 does not divide heads 4"),
        (None, ["kv_heads=1", "head_dim=2"], "bad.json:16: split 2 does not cut heads x head_dim (8) into parts"),
        (None, ["layers=two"], "--set layers=two: layers is an integer, not 'two'"),
        (None, ["qk_norm=maybe"], "--set qk_norm=maybe: qk_norm is true or false"),
        (None, ["hidden"], "--set hidden: a setting is key=value"),
        (None, ["hiddn=4"], "--set hiddn=4: unknown key 'hiddn' (did you mean 'hidden'?)"),
    ],
)
def test_bad_json_configs_name_the_file_line_and_key(tmp_path, text, settings, message):
    if text is None:
        values = dataclasses.asdict(CONFIGS["tiny"]) | {"kv_heads": 3}
        text = "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in values.items()) + "\n}\n"
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        load(str(path), settings)
    assert message in str(e.value)


def test_unknown_and_unreadable_configs(tmp_path):
    with pytest.raises(ConfigError, match="unknown config 'tiny2': shipped configs are tiny, tiny-moe"):
        load("tiny2")
    with pytest.raises(ConfigError, match=r"cannot read config .*missing\.json: No such file"):
        load(str(tmp_path / "missing.json"))
    (tmp_path / "latin1.json").write_bytes(b'{"name": "\xe9"}')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load(str(tmp_path / "latin1.json"))


@pytest.mark.parametrize("numerics", ["f32", "int8"])
def test_an_attention_kind_bound_to_numerics_is_refused_under_others(numerics):
    """The attention in two words keeps its keys' low words: int8x2 numerics only, said by its op class; a config
    that asks for it under other numerics is refused naming both, and int8x2 builds it."""
    with pytest.raises(ConfigError, match="attention_i8x2 needs int8x2 numerics"):
        decoder_step(load("tiny", ["attn_kind=attention_i8x2", f"numerics={numerics}"]))
    step = step_of(
        steps(decoder_step(load("tiny", ["attn_kind=attention_i8x2", "numerics=int8x2", "lane_fuse=false"])))[0]
    )[0]
    assert "attention_i8x2" in {launch.kind for launch in step.launches}
