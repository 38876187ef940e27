"""The numpy runtime's run of a model directory held to transformers itself: for each of the eight families, a tiny
random model that transformers builds and saves (f32, and bf16), at shapes that are not multiples of 128 and that
reach each family's features (biases, rope scaling, a sliding window shorter than the sequence, qk norms, shared
experts, dense layers among sparse ones, tied embeddings, Qwen3-Next's delta-rule layers and gated attention),
loaded through its config.json and safetensors and run by a Session (a prompt of two prefill chunks and two decode
rows, then decode steps). f32: the teacher-forced logits of every position of prompt + 16 generated tokens within
1e-4 of the largest logit, and the greedy tokens those of `generate(do_sample=False)` up to the first position where
transformers' top two logits are that close; int8 and int8x2 within the bounds measured below.

bf16: the oracle is transformers running the bf16 checkpoint with its weights widened to f32, which computes what
lanearena's bf16 numerics compute (the checkpoint's bf16 weights exactly, f32 activations and sums), so the f32
bound holds, and the greedy tokens are its own. (transformers in bf16 itself rounds every activation to bf16 too, a
different computation, 2^-8 a value off.) An f32 checkpoint run under bf16 numerics is rounded once, to nearest even,
as torch rounds it: its weight matrices are uploaded with the bf16 checkpoint's bits.

torch is imported unguarded: where it is missing these tests fail, as they must (CI installs the test extra)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

from lanearena.frontend import decoder_step
from lanearena.frontend.checkpoint import Checkpoint
from lanearena.frontend.configs import load
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.serving.session import Session
from lanearena.lowering.serving.weights import upload
from lanearena.model import Role
from lanearena.passes.convert import step_of, steps

from ..support.checkpoints import FAMILY_CHANGES, LLAMA, MIXTURE

torch.set_num_threads(2)

TOLERANCE = 1e-4
"""f32: the largest difference from transformers' logits, as a share of the largest logit."""

QUANTIZED_BOUNDS = {"int8": (0.07, 0.5), "int8x2": (0.06, 0.5)}
"""int8 and int8x2: bounds on the median and the largest difference over positions, as a share of the largest logit.
Measured on these models (median, largest; the worst family's): int8 0.052 (Qwen3-Next), 0.397 (Mixtral); int8x2
0.043 (Qwen3-Next), 0.399 (Mixtral); the dense families' largest 0.045 in int8, 0.030 in int8x2. The largest is
where a mixture's router, reading the quantized row, picks another expert than transformers does (Mixtral's worst
position: 0.40, its others under 0.04), and Qwen3-Next's delta-rule state carries each position's quantization
error on to the next."""

PROMPT = [3, 17, 42, 5, 99, 7, 150, 64, 1, 33]
GENERATED = 16
CHUNK = 4


class Reference:
    """A family's tiny model saved by transformers in f32 and bf16, its greedy tokens after PROMPT, and its logits at
    every position of the prompt and those tokens (f32 weights, and the bf16 weights widened); and the widened bf16
    model's own greedy tokens and logits."""

    def __init__(self, model_type: str, root):
        torch.manual_seed(0)
        cfg = transformers.CONFIG_MAPPING[model_type](**(LLAMA | FAMILY_CHANGES[model_type]))
        model = transformers.AutoModelForCausalLM.from_config(cfg).eval()
        self.f32_dir, self.bf16_dir = root / "f32", root / "bf16"
        model.save_pretrained(self.f32_dir)
        with torch.no_grad():
            out = model.generate(
                torch.tensor([PROMPT]), max_new_tokens=GENERATED, min_new_tokens=GENERATED, do_sample=False
            )
            self.ids = out[0].tolist()
            self.logits = model(torch.tensor([self.ids])).logits[0].numpy()
            model.to(torch.bfloat16).save_pretrained(self.bf16_dir)
            widened = transformers.AutoModelForCausalLM.from_pretrained(self.bf16_dir, dtype=torch.float32).eval()
            self.bf16_logits = widened(torch.tensor([self.ids])).logits[0].numpy()
            out = widened.generate(
                torch.tensor([PROMPT]), max_new_tokens=GENERATED, min_new_tokens=GENERATED, do_sample=False
            )
            self.bf16_ids = out[0].tolist()
            self.bf16_own_logits = widened(torch.tensor([self.bf16_ids])).logits[0].numpy()


@pytest.fixture(scope="module", params=list(FAMILY_CHANGES))
def reference(request, tmp_path_factory):
    return Reference(request.param, tmp_path_factory.mktemp(request.param))


def _session(directory, numerics: str) -> Session:
    c = load(str(directory), [f"numerics={numerics}"])
    return Session(c, Checkpoint(directory, c), chunk=CHUNK)


def _relative(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / np.abs(want).max())


def _generates_as_transformers(
    session: Session, ids: list[int], logits: np.ndarray, numerics: str, close: float = TOLERANCE
) -> None:
    """`session` generates transformers' greedy tokens `ids` (after PROMPT) from logits within TOLERANCE of its
    `logits` (of every position of `ids`), up to the first position where transformers' top two are closer than
    `close` of the largest logit."""
    tokens, got = session.generate(PROMPT, GENERATED)
    want = ids[len(PROMPT) :]
    top2 = np.sort(logits[len(PROMPT) - 1 : -1], axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > close * np.abs(logits).max()
    agree = int(np.argmin(clear)) if not clear.all() else GENERATED  # up to the first close call
    chosen_from = logits[len(PROMPT) - 1 : len(PROMPT) - 1 + agree]
    print(f"{numerics}: {_relative(got[:agree], chosen_from):.1e}, {agree} of {GENERATED} tokens")
    assert agree >= 8, "too few clear positions for the test to say much: draw another model"
    assert tokens[:agree] == want[:agree]
    assert _relative(got[:agree], chosen_from) <= TOLERANCE


def test_f32_logits_and_greedy_tokens_are_transformers(reference):
    session = _session(reference.f32_dir, "f32")
    assert _relative(session.forward(reference.ids), reference.logits) <= TOLERANCE
    session.reset()
    _generates_as_transformers(session, reference.ids, reference.logits, "f32")


def test_bf16_logits_and_greedy_tokens_are_transformers_over_the_bf16_weights(reference):
    """The oracle is the bf16 checkpoint widened: the same weights, f32 sums (measured: within 5e-6 of the largest
    logit, 16 of 16 tokens in every family). A close call is a position whose top two logits are within ten times
    the teacher-forced difference just measured (the tiny Mistral's widened model has one at its fourth token,
    2e-5 apart: under TOLERANCE, well over what lanearena and transformers differ by)."""
    session = _session(reference.bf16_dir, "bf16")
    forced = _relative(session.forward(reference.ids), reference.bf16_logits)
    print(f"bf16 teacher-forced: {forced:.1e}")
    assert forced <= TOLERANCE
    session.reset()
    _generates_as_transformers(session, reference.bf16_ids, reference.bf16_own_logits, "bf16", close=10 * forced)


def _uploaded(directory, weights: dict[str, tuple[int, ...]], bf16: list[str]) -> dict[str, np.ndarray]:
    """Each of the step's `weights` (name: shape) named in `bf16` made from `directory`'s checkpoint and uploaded as a
    bf16 weight: its words."""
    checkpoint = Checkpoint(directory, load(str(directory), ["numerics=bf16"]))
    checkpoint.check(weights)
    dev, out = NumpyDevice(), {}
    for name in bf16:
        shape = weights[name]
        addr = dev.alloc(2 * int(np.prod(shape)))
        values = checkpoint.values(name, shape)
        upload(dev, addr, "bf16", values)
        out[name] = dev.download(addr, np.uint16, values.size)
        if directory.name == "bf16":  # kept as the checkpoint holds them: widened and narrowed, exactly
            assert np.array_equal(out[name].astype(np.uint32) << 16, values.reshape(-1).view(np.uint32)), name
    return out


def test_an_f32_checkpoint_under_bf16_is_rounded_as_torch_rounds_it(reference):
    """The bf16 weights of the step made from the f32 checkpoint are uploaded with the very bits of transformers' own
    bf16 checkpoint of the model (torch rounds to nearest, ties to even, as the upload does); the bf16 checkpoint's
    are uploaded as it holds them. (Gains, biases and the delta rule's gates stay f32 under bf16 numerics.)"""
    step = step_of(steps(decoder_step(load(str(reference.f32_dir), ["numerics=bf16"])))[0])[0]
    weights = {t.name: t.shape for t in step.tensors.values() if t.role is Role.WEIGHT}
    bf16 = [t.name for t in step.tensors.values() if t.role is Role.WEIGHT and t.elem == "bf16"]
    assert bf16
    from_f32, from_bf16 = _uploaded(reference.f32_dir, weights, bf16), _uploaded(reference.bf16_dir, weights, bf16)
    assert all(np.array_equal(from_f32[name], from_bf16[name]) for name in bf16)


def test_bf16_weights_are_widened_exactly(reference):
    assert _relative(_session(reference.bf16_dir, "f32").forward(reference.ids), reference.bf16_logits) <= TOLERANCE


@pytest.mark.parametrize("numerics", QUANTIZED_BOUNDS)
def test_quantized_logits_are_near_transformers(reference, numerics):
    got = _session(reference.f32_dir, numerics).forward(reference.ids)
    each = np.abs(got - reference.logits).max(axis=1) / np.abs(reference.logits).max()
    median, largest = QUANTIZED_BOUNDS[numerics]
    print(f"{numerics}: median {np.median(each):.4f}, largest {each.max():.4f}")
    assert np.median(each) <= median and each.max() <= largest


def test_an_f32_step_of_widths_no_block_divides_is_transformers(tmp_path):
    """hidden 72, heads of 24, an MLP of 100 and an expert of 40: no Q8_0 block divides them, and f32 takes them."""
    odd = dict(LLAMA, hidden_size=72, head_dim=24, intermediate_size=100, vocab_size=90)
    for model_type, extra in (("llama", {}), ("qwen3_moe", dict(MIXTURE, moe_intermediate_size=40))):
        torch.manual_seed(0)
        model = transformers.AutoModelForCausalLM.from_config(transformers.CONFIG_MAPPING[model_type](**odd, **extra))
        model.eval().save_pretrained(tmp_path / model_type)
        ids = [3, 17, 42, 5, 60, 7, 80, 2, 71]
        with torch.no_grad():
            want = model(torch.tensor([ids])).logits[0].numpy()
        assert _relative(_session(tmp_path / model_type, "f32").forward(ids), want) <= TOLERANCE, model_type
