"""Hostile inputs: names that would be code, sizes and offsets past every limit, options out of range, NaN and
infinity, odd files. Each test here failed before the fix it guards."""

from __future__ import annotations

import codecs
import dataclasses
import io
import json
import keyword
import os
import re
import stat
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException

from lanearena import api, options
from lanearena.cli import main
from lanearena.errors import UserError
from lanearena.files import write_output
from lanearena.frontend import StepBuilder, decoder_step
from lanearena.frontend import load as load_config
from lanearena.lowering.codegen.lower import lower
from lanearena.lowering.codegen.lowered import Pointer
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.codegen.target import lower_module
from lanearena.lowering.kernels import moe, source
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import load, random_feeds
from lanearena.lowering.serving.compare import compare
from lanearena.options import PlaceOptions
from lanearena.passes.arena_place import LaneArenaPlace
from lanearena.passes.verify import LaneArenaVerify

FUZZ = settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])

HOSTILE = ['"""', "'''", '"', "'", "\n", "\r", "\x00", "#", "\\", "é", "😀", "\u2028", "\x0c", ")", "\t", " "]

names = st.one_of(
    st.lists(st.sampled_from([*HOSTILE, "a", "b"]), min_size=1, max_size=8).map("".join),
    st.sampled_from(keyword.kwlist),
    st.text(min_size=1, max_size=12),
)


def _step(step_name: str, x: str, a: str, y: str):
    """y = (x + x) * (x + x) through computed tensor a, under the names given."""
    b = StepBuilder(step_name)
    vx = b.input(x, 64)
    va = b.tensor(a, 64)
    vy = b.tensor(y, 64)
    b.launch("binary", [vx, vx], [va], op="add")
    b.launch("binary", [va, va], [vy], op="mul")
    b.output(vy)
    return b.module()


def _printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _runs(module, x_name: str, y_name: str) -> None:
    """Places, lowers, imports and runs `module` on the numpy runtime, and checks its one result."""
    api.place(module, PlaceOptions("greedy"))
    source = placed(module).source()
    assert source.isascii()
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    out = load(source).run(NumpyDevice(), {x_name: x})
    assert list(out) == [y_name]
    np.testing.assert_array_equal(out[y_name], (x + x) * (x + x))


@FUZZ
@given(st.lists(names, min_size=4, max_size=4, unique=True))
def test_names_never_become_code(picked):
    """Any step and tensor names compile to a module that imports and runs, and print to text that parses back to
    the same names."""
    step_name, x, a, y = picked
    module = _step(step_name, x, a, y)
    _runs(module, x, y)
    again = api.parse(_printed(module))
    ((step, plan),) = api.placed_steps(again)
    assert step.name == step_name and list(step.tensors) == [x, a, y]
    assert plan is not None


def test_a_docstring_breakout_runs_nothing():
    """The classic: a name that closes the module's docstring and runs code on import."""
    evil = '"""\nraise SystemExit("pwned")\n"""'
    module = _step(evil, "x" + evil, "a" + evil, "y\n#" + evil)
    _runs(module, "x" + evil, "y\n#" + evil)


def test_non_ascii_names_round_trip():
    """The printer writes a non-ASCII name as UTF-8 byte escapes; the parser takes them back."""
    text = _printed(api.place(_step("é", "ü", "a😀", "y"), PlaceOptions("greedy")))
    assert "\\C3\\A9" in text
    ((step, _),) = api.placed_steps(api.parse(text))
    assert step.name == "é" and list(step.tensors) == ["ü", "a😀", "y"]


# --- No silent corruption -------------------------------------------------------------------------------------------


def _file(tmp_path, text: str, name: str = "step.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _cli(capsys, *argv: str) -> tuple[int, str]:
    """Runs `lanearena argv` and returns its exit code and its standard error."""
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_offsets_past_2_to_the_40_stay_in_their_buffer():
    """The symbolic addresses once packed buffer k at (k + 1) << 40: an arena offset of 2^40 became buffer 1's."""
    module = api.place(_step("s", "x", "a", "y"), PlaceOptions("greedy"))
    p = placed(module)
    plan = p.plan
    far = 1 << 40
    shifted = dataclasses.replace(
        plan, bytes=plan.bytes + far, arrays=[dataclasses.replace(a, offset=a.offset + far) for a in plan.arrays]
    )
    lowered = lower(p.op, p.step, shifted)
    assert Pointer(0, far) in [a for launch in lowered.launches for a in launch.args]
    assert len(lowered.launches) == 2


def test_an_output_that_is_an_untouched_input_is_returned(tmp_path):
    text = """lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %w = lane.input "w" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %w, %w -> %y op("add")
  lane.output %x, %y : !lane.tensor<64xf32>, !lane.tensor<64xf32>
}"""
    module = api.place(api.parse(text), PlaceOptions("greedy"))
    x, w = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
    out = load(placed(module).source()).run(NumpyDevice(), {"x": x, "w": w})
    assert sorted(out) == ["x", "y"]
    np.testing.assert_array_equal(out["x"], x)
    np.testing.assert_array_equal(out["y"], w + w)


_HUGE = """lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<Nxf32>
  %a = lane.tensor "a" : !lane.tensor<Nxf32>
  %y = lane.tensor "y" : !lane.tensor<Nxf32>
  lane.binary %x, %x -> %a op("add")
  lane.binary %a, %a -> %y op("mul")
  lane.output %y : !lane.tensor<Nxf32>
}"""


def test_sizes_past_a_device_are_refused_where_written(tmp_path, capsys):
    path = _file(tmp_path, _HUGE.replace("N", str(1 << 62)))
    code, err = _cli(capsys, "place", path)
    assert code == 2 and "Traceback" not in err
    assert f"{path}:2:3: tensor 'x' takes {1 << 64} bytes, more than a device can hold" in err


def test_compile_of_counts_past_int32_is_a_located_error(tmp_path, capsys):
    placed = tmp_path / "placed.mlir"
    assert _cli(capsys, "place", _file(tmp_path, _HUGE.replace("N", str(1 << 40))), "-o", str(placed))[0] == 0
    code, err = _cli(capsys, "compile", str(placed), "-o", str(tmp_path / "step.py"))
    assert code == 2 and "Traceback" not in err
    assert f"{placed}:7:5: binary: 1099511627776 does not fit the kernels' 32-bit sizes" in err
    assert not (tmp_path / "step.py").exists()


# --- Options: each works end to end or is refused ----------------------------------------------------------------


def _weighted(numerics: str):
    """A product by a Q8_0 weight of 96 values: its parts sit at offsets that only `align` rounds."""
    b = StepBuilder("w", numerics)
    x = b.input("x", 32)
    w = b.weight("w", (3, 32), "i8")
    y = b.tensor("y", 3)
    if numerics == "f32":
        b.launch("gemv", [x, w], [y])
    else:
        h = b.tensor("h", 32, forms=("plain", "quant"))
        b.launch("quantize", [x], [(h, "quant")])
        b.launch("gemv", [(h, "quant"), w], [y])
    b.output(y)
    return b.module()


@pytest.mark.parametrize("numerics", ["f32", "int8", "int8x2"])
@pytest.mark.parametrize("align", [16, 32, 64, 128, 256, 1024])
@pytest.mark.parametrize("qblock", options.QBLOCKS)
def test_each_supported_align_and_qblock_places_and_runs(numerics, align, qblock):
    module = api.place(_weighted(numerics), PlaceOptions("greedy", align=align, qblock=qblock))
    api.verify(module, qblock=qblock)
    p = placed(module, qblock)
    assert p.plan.align == align
    assert compare(p, "numpy").max_abs_err == 0.0
    source = lower_module(module, qblock)
    assert f"align={align}," in source


@pytest.mark.parametrize(
    "option, message",
    [
        ("align=3", "align must be a power of two from 16 (bytes), not 3"),
        ("align=0", "align must be a power of two from 16"),
        ("align=8", "align must be a power of two from 16"),
        ("align=48", "align must be a power of two from 16"),
        ("qblock=64", "qblock must be a block size the kernels are built for (32), not 64"),
        ("qblock=16", "qblock must be a block size the kernels are built for (32), not 16"),
        ("time_limit=-1", "time_limit must be a positive number of seconds, not -1"),
        ("time_limit=0", "time_limit must be a positive number of seconds"),
    ],
)
def test_bad_pass_options_are_refused(option, message):
    module = api.parse(_printed(_step("s", "x", "a", "y")))
    with pytest.raises(DiagnosticException, match=re.escape(message)):
        _pipeline(f"lane-arena-place{{{option}}}").apply(api.context(), module)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"algorithm": "nope"}, "unknown algorithm 'nope' (one of best, greedy, best-fit, portfolio)"),
        ({"align": 48}, "align must be a power of two from 16 (bytes), not 48"),
        ({"qblock": 64}, "qblock must be a block size the kernels are built for (32), not 64"),
        ({"time_limit": float("nan")}, "time_limit must be a positive number of seconds, not nan"),
        ({"work": -1}, "work must be a whole number >= 0, not -1"),
    ],
)
def test_place_options_are_refused_when_made(fields, message):
    """The API's options value is checked where it is made, naming the option, before any step is read."""
    with pytest.raises(options.OptionError, match=re.escape(message)):
        PlaceOptions(**fields)


def test_the_flags_make_the_place_options_the_pass_options_make():
    """`lanearena place`'s flags and `lane-arena-place{...}` give the same value (an int time limit as seconds)."""
    from lanearena.cli import parser
    from lanearena.cli.budget import placing

    argv = ["place", "s.mlir", "--algorithm", "greedy", "--work", "7", "--time-limit", "2"]
    from_flags = placing(parser("place").parse_args(argv))
    (from_pass,) = _pipeline("lane-arena-place{algorithm=greedy work=7 time_limit=2}").passes
    assert isinstance(from_pass, LaneArenaPlace)
    assert from_flags == PlaceOptions(
        from_pass.algorithm, from_pass.align, from_pass.qblock, from_pass.time_limit, from_pass.work
    )
    assert from_flags.time_limit == 2.0 and isinstance(from_flags.time_limit, float)


def _pipeline(spec: str) -> PassPipeline:
    """The passes `spec` names, with their options parsed as `xdsl-opt -p` parses them."""
    passes = {"lane-arena-place": lambda: LaneArenaPlace, "lane-arena-verify": lambda: LaneArenaVerify}
    return PassPipeline.parse_spec(passes, spec)


def test_an_int_time_limit_is_taken():
    module = api.parse(_printed(_step("s", "x", "a", "y")))
    _pipeline("lane-arena-place{time_limit=1 align=16},lane-arena-verify").apply(api.context(), module)
    ((_, plan),) = api.placed_steps(module)
    assert plan.align == 16


def test_verify_and_lowering_refuse_an_unsupported_qblock():
    module = api.place(_step("s", "x", "a", "y"), PlaceOptions("greedy"))
    with pytest.raises(UserError, match="qblock must be a block size"):
        api.verify(module, qblock=64)
    with pytest.raises(UserError, match="qblock must be a block size"):
        lower_module(module, 64)


def test_a_hand_written_unaligned_arena_is_refused_by_the_lowering(tmp_path, capsys):
    placed = _printed(api.place(_step("s", "x", "a", "y"), PlaceOptions("greedy"))).replace("align(256)", "align(8)")
    code, err = _cli(capsys, "compile", _file(tmp_path, placed), "-o", str(tmp_path / "s.py"))
    assert code == 2 and "arena.alloc's align must be a power of two from 16" in err


def test_run_refuses_a_negative_time_limit(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "--time-limit", "-1"])
    assert e.value.code == 2
    assert "--time-limit must be a positive number of seconds" in capsys.readouterr().err


# --- NaN and infinity: arg-max and the router pick in range (the arg-max refuses a row whose best is NaN or +Inf), ---
# --- kernel and twin alike -----------------------------------------------------------------------------------------

_BEATS = """__device__ __forceinline__ bool beats(float v, int i, float best, int at) {
  const bool vn = isnan(v), bn = isnan(best);
  if (vn != bn) return vn;
  return v > best || (!(v < best) && i < at);
}"""


def _beats(v: float, i: int, best: float, at: int) -> bool:
    """common.cuh's `beats`, line for line (`_BEATS`)."""
    vn, bn = np.isnan(v), np.isnan(best)
    if vn != bn:
        return bool(vn)
    return bool(v > best or (not v < best and i < at))


def _kernel_argmax(row: np.ndarray, block: int = 1024, threads: int = 256) -> int:
    """argmax.cu's reduction in its order: each thread over its strided values, the warps by xor shuffles, the warps
    of a block in order, then the blocks in order, every step by `beats` from (-inf, past the end)."""
    v = row.size
    best, at = -np.inf, v
    for b in range(-(-v // block)):
        lanes = []
        for t in range(threads):
            tb, ta = -np.inf, v
            for i in range(b * block + t, min(v, (b + 1) * block), threads):
                if _beats(row[i], i, tb, ta):
                    tb, ta = row[i], i
            lanes.append((tb, ta))
        warps = []
        for w in range(threads // 32):
            lane = lanes[32 * w : 32 * w + 32]
            o = 16
            while o:
                lane = [max_by_beats(lane[k], lane[k ^ o]) for k in range(32)]
                o >>= 1
            warps.append(lane[0])
        bb, ba = warps[0]
        for wv, wi in warps[1:]:
            if _beats(wv, wi, bb, ba):
                bb, ba = wv, wi
        if _beats(bb, ba, best, at):
            best, at = bb, ba
    return at


def max_by_beats(mine: tuple[float, int], other: tuple[float, int]) -> tuple[float, int]:
    return other if _beats(other[0], other[1], mine[0], mine[1]) else mine


def test_the_kernels_beats_is_the_rule_tested_here():
    assert _BEATS in (source.HERE / "common.cuh").read_text()


_SPECIAL = st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])


@settings(deadline=None, max_examples=60)
@given(st.lists(st.one_of(_SPECIAL, st.floats(-4, 4, width=32)), min_size=1, max_size=1100))
def test_kernel_arg_max_order_picks_what_numpy_argmax_picks(values):
    """NaN counts as larger than every number (the first NaN wins), ties go to the lowest index, always in range."""
    row = np.asarray(values, np.float32)
    assert _kernel_argmax(row) == int(np.argmax(row))


def _argmax_step(rows: int, v: int):
    b = StepBuilder("pick")
    logits = b.input("logits", (rows, v))
    out = b.tensor("out", rows, "i32")
    b.launch("argmax", [logits], [out])
    b.output(out)
    return api.place(b.module(), PlaceOptions("greedy"))


@pytest.mark.parametrize(
    "fill",
    [
        lambda r: np.full(r.shape, np.nan),
        lambda r: np.where(r > 0.5, np.nan, r),
        lambda r: np.where(r > 0.2, np.inf, r),
        lambda r: np.full(r.shape, -np.inf),
        lambda r: np.where(r > 0.9, -np.inf, np.nan),
        lambda r: np.zeros(r.shape),
    ],
)
def test_arg_max_twin_on_nan_and_inf(fill):
    rows, v = 3, 2500  # three blocks of 1024 a row
    printed = placed(_argmax_step(rows, v)).source()
    logits = fill(np.random.default_rng(0).random((rows, v))).astype(np.float32)
    out = load(printed).run(NumpyDevice(), {"logits": logits})["out"]

    def refused(row: np.ndarray, at: int) -> int:  # argmax.cu's last line: no index where the best is NaN or +Inf
        return -1 if np.isnan(row[at]) or np.isposinf(row[at]) else at

    np.testing.assert_array_equal(out, [refused(row, int(np.argmax(row))) for row in logits])
    assert all(refused(row, _kernel_argmax(row)) == o for row, o in zip(logits, out, strict=True))
    assert "out[r] = isnan(best) || best == INFINITY ? -1 : at;" in (source.HERE / "argmax.cu").read_text()


@pytest.mark.parametrize("router", [np.nan, np.inf, -np.inf])
def test_router_of_non_finite_logits_picks_experts_in_range(router):
    """A mixture whose router weights make every logit NaN or infinite still routes each row to real experts."""
    config = dataclasses.replace(load_config("tiny-moe", []), layers=1)
    module = api.place(decoder_step(config), PlaceOptions("greedy"))
    p = placed(module)
    feeds = random_feeds(p.step, 0)
    for name in feeds:
        if "router" in name:
            feeds[name] = np.full_like(feeds[name], router)
    assert any("router" in name for name in feeds)
    out = load(p.source()).run(NumpyDevice(), feeds)
    assert out


def _kernel_route(logits: np.ndarray, topk: int) -> list[int]:
    """moe.cu's choice of experts: `topk` times the best by `beats` of those not yet taken, from (-inf, past the
    last expert)."""
    picked: list[int] = []
    for _ in range(topk):
        best, at = -np.inf, logits.size
        for i, v in enumerate(logits):
            if i not in picked and _beats(v, i, best, at):
                best, at = v, i
        picked.append(at)
    return picked


@settings(deadline=None, max_examples=60)
@given(st.lists(_SPECIAL, min_size=2, max_size=9), st.data())
def test_router_twin_and_kernel_pick_the_same_experts_in_range(values, data):
    logits = np.asarray(values, np.float32)
    topk = data.draw(st.integers(1, logits.size))
    dev = NumpyDevice()
    rl, ids, gates = dev.alloc(logits.nbytes), dev.alloc(4 * topk), dev.alloc(4 * topk)
    dev.upload(rl, logits)
    moe._choose(dev, rl, ids, gates, logits.size, topk, data.draw(st.sampled_from([0, 1])))  # gates chosen, all
    picked = dev.download(ids, np.int32, topk).tolist()
    assert picked == _kernel_route(logits, topk)
    assert all(0 <= e < logits.size for e in picked) and len(set(picked)) == topk


# --- GPU portability: what the CUDA device says it found, and what it refuses ------------------------------------


class _FakeDriver:
    def __init__(self, version: int):
        self.version = version

    def get_driver_version(self) -> int:
        return self.version


class _FakeGpu:
    def __init__(self, name: str, capability: tuple[int, int]):
        self._name, self._capability = name, capability

    def name(self) -> str:
        return self._name

    def compute_capability(self) -> tuple[int, int]:
        return self._capability


def test_the_cuda_device_names_the_gpu_and_driver_and_refuses_what_cannot_jit_the_ptx():
    ampere, volta = _FakeGpu("NVIDIA A100", (8, 0)), _FakeGpu("Tesla V100", (7, 0))
    assert cuda.found(_FakeDriver(12040), ampere) == "NVIDIA A100 (sm_80), CUDA driver 12.4"
    assert cuda.unusable(_FakeDriver(12000), ampere) is None
    assert cuda.unusable(_FakeDriver(13000), _FakeGpu("NVIDIA H200", (9, 0))) is None
    assert "needs a CUDA 12.0 driver or later" in cuda.unusable(_FakeDriver(11080), ampere)
    assert "Ampere GPU (sm_80) or later" in cuda.unusable(_FakeDriver(12040), volta)


# --- Files: odd input gets one located line and exit 2; -o writes where a user expects ---------------------------

_STEP = """lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %x, %x -> %y op("add")
  lane.output %y : !lane.tensor<64xf32>
}
"""
_CSV = "id,lower,upper,size\na,0,2,16\nb,1,3,32\n"


@pytest.mark.parametrize(
    "command, name, raw, message",
    [
        (
            "place",
            "s.mlir",
            _STEP.encode().replace(b"op(", b"\xff(", 1),
            "s.mlir:4:28: file is not UTF-8 text (byte 0xff",
        ),
        ("place", "s.mlir", b"", "s.mlir:1:1: empty file"),
        ("place", "s.mlir", b"\n  \n", "s.mlir:1:1: empty file"),
        ("place", "s.mlir", codecs.BOM_UTF16_LE + _STEP.encode("utf-16-le"), "s.mlir:1:1: file is UTF-16 text"),
        ("solve", "p.csv", _CSV.encode().replace(b"b,", b"\xe9,"), "p.csv:3:1: CSV file is not UTF-8 text (byte 0xe9"),
        ("solve", "p.csv", b"", "p.csv:1:1: empty file"),
        ("build", "c.json", b'{"layers": 1, "name": "\xc3"}', "c.json:1:24: config is not UTF-8 text (byte 0xc3"),
        ("build", "c.json", b"", "c.json:1:1: empty file"),
        ("run", "c.json", codecs.BOM_UTF32_LE + b"{}", "c.json:1:1: config is UTF-32 text"),
    ],
)
def test_undecodable_and_empty_input_is_one_located_line(tmp_path, capsys, command, name, raw, message):
    path = tmp_path / name
    path.write_bytes(raw)
    argv = {
        "place": ["place", str(path)],
        "solve": ["solve", "--input", str(path), "--output", "-"],
        "build": ["build", str(path)],
        "run": ["run", str(path), "--quiet"],
    }[command]
    code, err = _cli(capsys, *argv)
    assert code == 2
    assert err.startswith(f"lanearena {command}: error: {tmp_path}/{message}"), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "command, name, text",
    [
        ("place", "s.mlir", _STEP),
        ("solve", "p.csv", _CSV),
        ("build", "c.json", json.dumps(dataclasses.asdict(load_config("tiny", [])))),
    ],
)
def test_a_utf8_byte_order_mark_is_taken(tmp_path, capsys, command, name, text):
    path = tmp_path / name
    path.write_bytes(codecs.BOM_UTF8 + text.encode())
    out = tmp_path / "out"
    argv = {
        "place": ["place", str(path), "-o", str(out)],
        "build": ["build", str(path), "-o", str(out)],
        "solve": ["solve", "--input", str(path), "--output", str(out)],
    }[command]
    code, err = _cli(capsys, *argv)
    assert code == 0, err
    assert out.read_text().strip()


def test_output_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.mlir"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.mlir"
    link.symlink_to(real.name)
    dangling = tmp_path / "dangling.mlir"
    dangling.symlink_to("made.mlir")
    write_output(str(link), "new")
    write_output(str(dangling), "made")
    assert link.is_symlink() and real.read_text() == "new" and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert dangling.is_symlink() and (tmp_path / "made.mlir").read_text() == "made"


def _device(tmp_path, name: str, minor: int):
    """A character device of the memory driver (3: null, 7: full) under `tmp_path`, never the system's own: a
    regression that replaced the target would replace only this one."""
    path = tmp_path / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, OSError) as e:
        pytest.skip(f"cannot make a device node here: {e}")
    return path


def test_output_to_a_device_or_pipe_writes_in_place(tmp_path):
    null = _device(tmp_path, "null", 3)
    write_output(str(null), "nothing")
    assert stat.S_ISCHR(null.stat().st_mode)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    write_output(str(fifo), "through the pipe")
    reader.join(timeout=10)
    assert got == ["through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_output_errors_are_one_line(tmp_path):
    with pytest.raises(UserError, match="Is a directory"):
        write_output(str(tmp_path), "x")
    assert list(tmp_path.iterdir()) == []
    full = _device(tmp_path, "full", 7)
    with pytest.raises(UserError, match="full: cannot write: No space left on device"):
        write_output(str(full), "x" * 100000)
    assert stat.S_ISCHR(full.stat().st_mode)


def test_an_internal_error_is_one_line_without_debug(capsys, monkeypatch):
    def broken(module, *args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(api, "place", broken)
    code, err = _cli(capsys, "run", "--quiet")
    assert code == 70 and err.strip() == (
        "lanearena run: internal error: RuntimeError: a bug (--debug shows the traceback)"
    )
    with pytest.raises(RuntimeError):
        main(["--debug", "run", "--quiet"])


def test_run_never_executes_a_configs_name(tmp_path, capsys):
    """`lanearena run` imports the module it generates: a config name that closed its docstring ran code."""
    marker = tmp_path / "ran"
    evil = f'"""\nopen({str(marker)!r}, "w").close()\n"""#\u00e9'
    code = main(["run", "--quiet", "--json", "--backend", "numpy", "--set", f"name={evil}"])
    out = capsys.readouterr().out
    assert not marker.exists()
    assert code == 0 and json.loads(out)["config"] == evil
