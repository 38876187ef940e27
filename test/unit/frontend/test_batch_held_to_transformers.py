"""Several prompts of a model directory generated together (`generate_many`, a row a sequence) held to
transformers' own batched `generate` over the same prompts, left-padded with an attention mask, as its users batch
them: each sequence's greedy tokens are transformers' up to the first position where transformers' top two logits
are within TOLERANCE of the largest logit (f32 weights, f32 numerics)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lanearena.frontend.checkpoint import Checkpoint
from lanearena.frontend.configs import load
from lanearena.lowering.serving.sequences import generate_many
from lanearena.lowering.serving.session import Session

from ..support.checkpoints import FAMILY_CHANGES, tiny

PROMPTS = [[3, 17, 42, 5, 99, 7, 150], [64, 1], [33, 8, 20, 91]]
GENERATED = 10
TOLERANCE = 1e-4
PAD = 0


@pytest.mark.parametrize("model_type", ["llama", "qwen3", "qwen3_moe"])
def test_batched_greedy_tokens_are_transformers_batched_generate(model_type, tmp_path):
    model = tiny(tmp_path, model_type, **FAMILY_CHANGES[model_type])
    width = max(map(len, PROMPTS))
    ids = torch.tensor([[PAD] * (width - len(p)) + p for p in PROMPTS])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in PROMPTS])
    with torch.no_grad():
        out = model.generate(
            ids,
            attention_mask=mask,
            max_new_tokens=GENERATED,
            min_new_tokens=GENERATED,
            do_sample=False,
            pad_token_id=PAD,
            output_logits=True,
            return_dict_in_generate=True,
        )
    want = out.sequences[:, width:].tolist()
    logits = torch.stack(out.logits, 1).numpy()  # sequence, position, vocab
    c = load(str(tmp_path), ["numerics=f32"])
    session = Session(c, Checkpoint(tmp_path, c), chunk=4, batch=len(PROMPTS))
    got = generate_many(session, PROMPTS, GENERATED)
    for k, g in enumerate(got):
        top2 = np.sort(logits[k], axis=1)[:, -2:]
        clear = (top2[:, 1] - top2[:, 0]) > TOLERANCE * np.abs(logits[k]).max()
        agree = int(np.argmin(clear)) if not clear.all() else GENERATED
        assert agree >= 6, "too few clear positions for the test to say much: draw other prompts"
        assert g.tokens[:agree] == want[k][:agree], f"sequence {k}"
