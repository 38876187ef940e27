"""Stop strings, matched as transformers' `StopStringCriteria` matches them: generation stops at the first token
that completes one of the strings in the text of the whole sequence (the prompt's tokens and those generated),
across token boundaries, where the match overlaps that token (a string wholly in the prompt, or completed before,
stops nothing); special tokens count by their text, as transformers counts them.

The text is the sequence decoded whole (`decode`, special tokens kept), which spares what transformers works out
per token (the byte-level BPE's bytes, SentencePiece's leading spaces). A token may end inside a character (a
byte-level token holding part of its UTF-8 bytes): the text then ends in U+FFFD until a later token completes it,
and a match is looked for past where the texts before and after the token agree (there the U+FFFD became the
character), so a string whose last character the later token completes stops at that token, as transformers' byte
matching stops there."""

from __future__ import annotations

from collections.abc import Callable, Sequence


class StopStrings:
    """Called with the tokens generated after `prompt` so far (one more each call), whether the last completes one
    of `strings` in the text `decode` makes of the sequence; `matched` is the string it completed, or None."""

    def __init__(self, decode: Callable[[list[int]], str], strings: Sequence[str], prompt: Sequence[int]):
        if not strings or not all(strings):
            raise ValueError("stop strings are strings, none empty")
        self.decode, self.strings, self.prompt = decode, tuple(strings), list(prompt)
        self.matched: str | None = None
        self._seen: tuple[int, str] = (0, decode(self.prompt))  # tokens decoded last, and their text

    def __call__(self, tokens: Sequence[int]) -> bool:
        before = self._seen[1] if self._seen[0] == len(tokens) - 1 else self.decode([*self.prompt, *tokens[:-1]])
        text = self.decode([*self.prompt, *tokens])
        self._seen = (len(tokens), text)
        same = 0  # where the texts part: an incomplete character completed, or rewritten by the decoder
        while same < min(len(before), len(text)) and before[same] == text[same]:
            same += 1
        for s in self.strings:
            if text.find(s, max(0, same - len(s) + 1)) >= 0:
                self.matched = s
                return True
        return False
