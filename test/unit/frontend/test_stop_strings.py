"""Stop strings (`StopStrings`) held to transformers' `StopStringCriteria` on a byte-level BPE tokenizer (as
Qwen's and Llama-3's are) trained here on text with accents, CJK and emoji, so that tokens end inside characters:
over drawn prompts and continuations and drawn stop strings, both stop at the same token, or neither does."""

from __future__ import annotations

import pytest
import torch
import transformers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer
from transformers.generation.stopping_criteria import StopStringCriteria

from lanearena.frontend.stop_strings import StopStrings

from ..support.bpe import byte_level_bpe

PIECES = ["a", "b", "s", "t", "o", "p", " ", ",", "é", "ï", "日", "本", "😀", "\n", "<|end|>"]
"""What the drawn text is made of: ASCII, characters of two, three and four UTF-8 bytes, a special token."""


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return byte_level_bpe(special=["<|end|>"])


_TEXT = st.lists(st.sampled_from(PIECES), min_size=1, max_size=14).map("".join)


def _ours(tok: Tokenizer, ids: list[int], prompt: int, strings: list[str]) -> int | None:
    """The count of generated tokens at which StopStrings stops, None where it does not."""
    stops = StopStrings(lambda t: tok.decode(t, skip_special_tokens=False), strings, ids[:prompt])
    generated = ids[prompt:]
    return next((k for k in range(1, len(generated) + 1) if stops(generated[:k])), None)


def _theirs(criteria: StopStringCriteria, ids: list[int], prompt: int) -> int | None:
    x = torch.tensor([ids])
    return next((k for k in range(1, len(ids) - prompt + 1) if bool(criteria(x[:, : prompt + k], None)[0])), None)


@settings(max_examples=80, deadline=None)
@given(_TEXT, st.integers(1, 6), st.data())
def test_stop_strings_stop_where_transformers_stops(tokenizer, text, prompt, data):
    ids = tokenizer.encode(text).ids
    prompt = min(prompt, len(ids))
    start = data.draw(st.integers(0, len(text) - 1))
    inside = text[start : start + data.draw(st.integers(1, 6))]  # often met, at any token
    strings = [inside] if data.draw(st.booleans()) else [data.draw(_TEXT)[:4], inside]
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer)
    assert _ours(tokenizer, ids, prompt, strings) == _theirs(StopStringCriteria(fast, strings), ids, prompt)


def test_a_character_completed_by_a_later_token_stops_there(tokenizer):
    """ "本" is three bytes, split over tokens here: the stop comes with the token that completes it."""
    ids = tokenizer.encode("ab 日本 stop").ids
    decode = tokenizer.decode
    done = next(k for k in range(len(ids) + 1) if "本" in decode(ids[:k]))
    assert decode(ids[: done - 1]).endswith("\ufffd")  # begun by an earlier token
    stops = StopStrings(decode, ["本"], ids[:1])
    at = next(k for k in range(1, len(ids)) if stops(ids[1 : k + 1]))
    assert 1 + at == done and stops.matched == "本"


def test_a_string_in_the_prompt_alone_stops_nothing(tokenizer):
    ids = tokenizer.encode("stop, a b").ids
    stops = StopStrings(tokenizer.decode, ["stop"], ids[:3])
    assert not any(stops(ids[3 : k + 1]) for k in range(3, len(ids)))
