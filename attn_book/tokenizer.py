"""Byte-level BPE, as GPT-2 introduced it and SmolLM2 uses it, from a GGUF file's vocabulary and
merges; standard library only.

Text becomes tokens in four steps:

1. special tokens (``<|im_start|>``, ``<|im_end|>``, …, type 3 "control" in the GGUF) are cut out
   whole;
2. the rest is pre-split into words: every digit alone, then GPT-2's pattern (contractions,
   an optional space and a run of letters, of digits, or of other symbols, then spaces);
3. each word's UTF-8 bytes become printable characters (GPT-2's ``bytes_to_unicode``: a space
   is ``Ġ``, a newline ``Ċ``), one symbol per byte;
4. the merges, in the order of the list, join adjacent symbols: repeatedly the pair whose merge
   comes first in the list, everywhere in the word, until no pair of the word is in the list.

Each final symbol is a token of the vocabulary, its index the token's id.

The pattern uses Python's ``re``, which has no ``\\p{L}``: letters are ``[^\\W\\d_]``, numbers
``\\d``. They differ from the Unicode classes on a few rare characters (superscript digits,
fractions, which ``re`` counts as letters), never on English or Korean text.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

__all__ = ["Tokenizer", "TokenizerError", "byte_to_unicode", "chat_prompt"]

_DIGIT = re.compile(r"(\d)")  # step 2a: each digit its own piece (SmolLM2's pre-tokenizer)
_WORDS = re.compile(  # step 2b: GPT-2's pattern
    r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"
)
CONTROL = 3  # the GGUF's token type of special tokens
#: The bytes UTF-8 text can contain: all but 0xC0, 0xC1 and 0xF5-0xFF, which no text produces
#: (SmolLM2's vocabulary has no token for them).
UTF8_BYTES = [b for b in range(256) if b not in (0xC0, 0xC1) and b < 0xF5]


class TokenizerError(ValueError):
    """A byte no token spells, an unknown token id, a file without byte-level BPE."""


@lru_cache(maxsize=1)
def byte_to_unicode():
    """GPT-2's map from the 256 byte values to printable characters.

    The printable bytes ``!``–``~``, ``¡``–``¬`` and ``®``–``ÿ`` stand for themselves; the
    other 68 (control characters, the space, …) are moved to 256, 257, … in order, so a space
    (32) becomes ``Ġ`` (288) and a newline (10) ``Ċ`` (266).

    >>> byte_to_unicode()[ord(" ")], byte_to_unicode()[ord("A")], byte_to_unicode()[10]
    ('Ġ', 'A', 'Ċ')
    """
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    kept += range(ord("®"), ord("ÿ") + 1)
    moved = [b for b in range(256) if b not in kept]
    table = {b: chr(b) for b in kept}
    table |= {b: chr(256 + i) for i, b in enumerate(moved)}
    return table


class Tokenizer:
    """A byte-level BPE tokenizer from a vocabulary (id -> token) and merges ("a b", in order).

    >>> tok = Tokenizer(["a", "b", "ab", "Ġ", "Ġab"], ["a b", "Ġ ab"])
    >>> tok.encode("ab ab")
    [2, 4]
    """

    def __init__(self, tokens, merges, token_types=None):
        self.tokens = list(tokens)
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        self.ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
        types = [1] * len(self.tokens) if token_types is None else list(token_types)
        self.special = [t for t, kind in zip(self.tokens, types, strict=True) if kind == CONTROL]
        self._special_re = (
            re.compile("(" + "|".join(map(re.escape, sorted(self.special, key=len)[::-1])) + ")")
            if self.special
            else None
        )
        self._to_unicode = byte_to_unicode()
        self._to_byte = {c: b for b, c in self._to_unicode.items()}
        #: The bytes of UTF-8 text no token spells (SmolLM2's vocabulary lacks eight: six control
        #: characters, 0x04 among them, and 0xF1, 0xF2): text containing one is refused by `encode`.
        self.unspellable = [b for b in UTF8_BYTES if self._to_unicode[b] not in self.ids]

    @classmethod
    def from_gguf(cls, gguf_file):
        """The tokenizer stored in a GGUF file (``tokenizer.ggml.*``)."""
        meta = gguf_file.metadata
        if meta.get("tokenizer.ggml.model") != "gpt2":
            raise TokenizerError(
                f"{gguf_file.path}'s tokenizer is {meta.get('tokenizer.ggml.model')!r}, "
                "not byte-level BPE ('gpt2')"
            )
        return cls(
            meta["tokenizer.ggml.tokens"],
            meta["tokenizer.ggml.merges"],
            meta.get("tokenizer.ggml.token_type"),
        )

    def words(self, text):
        """Step 2: the pre-split pieces of a text without special tokens."""
        return [w for piece in _DIGIT.split(text) if piece for w in _WORDS.findall(piece)]

    def bpe(self, word, steps=None):
        """Steps 3 and 4 for one word: its symbols after the merges, as strings.

        ``steps``, a list, receives each merge as (pair, its place in the list, the symbols
        after it): the word's derivation, merge by merge.
        """
        symbols = [self._to_unicode[b] for b in word.encode("utf-8")]
        while len(symbols) > 1:
            pairs = set(pairwise(symbols))
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            merged, i = [], 0
            while i < len(symbols):  # join every occurrence of the best pair, left to right
                if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                    merged.append(symbols[i] + symbols[i + 1])
                    i += 2
                else:
                    merged.append(symbols[i])
                    i += 1
            symbols = merged
            if steps is not None:
                steps.append((best, self.ranks[best], list(symbols)))
        return symbols

    def encode(self, text):
        """Text to token ids; special tokens written in the text are kept whole."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        ids = []
        pieces = self._special_re.split(text) if self._special_re else [text]
        for piece in pieces:
            if piece in self.ids and piece in self.special:
                ids.append(self.ids[piece])
                continue
            for word in self.words(piece):
                for symbol in self.bpe(word):
                    if symbol not in self.ids:
                        raise TokenizerError(
                            f"no token spells the byte(s) "
                            f"{bytes(self._to_byte[c] for c in symbol)!r} in {word!r}: "
                            "the vocabulary has no token for them"
                        )
                    ids.append(self.ids[symbol])
        return ids

    def decode(self, ids):
        """Token ids to text; bytes that do not form UTF-8 yet are shown as U+FFFD."""
        out = bytearray()
        for i in ids:
            if not 0 <= int(i) < len(self.tokens):
                raise TokenizerError(
                    f"token id {i} is not in the vocabulary (0-{len(self.tokens) - 1})"
                )
            token = self.tokens[int(i)]
            if token in self.special:
                out += token.encode("utf-8")
            else:
                out += bytes(self._to_byte[c] for c in token)
        return out.decode("utf-8", errors="replace")


def chat_prompt(
    user, system="You are a helpful AI assistant named SmolLM, trained by Hugging Face"
):
    """SmolLM2-Instruct's chat template (the GGUF's ``tokenizer.chat_template``, a Jinja
    template) written out for one user message, ready for the assistant's answer."""
    return (
        f"<|im_start|>system\n{system}<|im_end|>\n"
        f"<|im_start|>user\n{user}<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
