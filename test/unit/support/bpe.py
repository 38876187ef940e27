"""A byte-level BPE tokenizer trained here (as Qwen's and Llama-3's are byte-level), for the tests of text: its
tokens split characters of two, three and four UTF-8 bytes."""

from __future__ import annotations

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

CORPUS = [
    "the cat sat on the mat",
    "café au lait, naïve résumé",
    "日本語のテキスト 東京",
    "stop, stopping",
    "a😀b 😀😀",
]


def byte_level_bpe(vocab: int = 300, special: list[str] | None = None) -> Tokenizer:
    """A byte-level BPE tokenizer of `vocab` tokens (with the `special` tokens) trained on CORPUS."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=vocab, initial_alphabet=alphabet, special_tokens=special or [])
    tok.train_from_iterator(CORPUS * 20, trainer)
    return tok
