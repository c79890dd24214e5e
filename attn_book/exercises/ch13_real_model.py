"""Chapter 13's exercises: a real model, SmolLM2-135M-Instruct, by hand.

By hand: :data:`q4_block` (two weights of a Q4_1 block); write the function:
:data:`dequantize_blocks` (every block of a matrix with numpy); :data:`one_weight` (one head's
weight on the first token, from its real dot products), :data:`kv_head` (which key/value
head a query head reads), :data:`cache_mib` (the model's KV cache). Predict: the pieces of a
word (:data:`word_tokens`), where the sink appears (:data:`sink_where`). Measure:
:data:`induction_head` (the highest induction score on a new sequence).

The data each question needs from the model file (a block's bytes, the merges of a word, a
head's dot products, the heads the chapter measured) are numbers stored here, read from the
file when the chapter was written: the checkers, the tests and the site's answer boxes work
without the 98 MB file, and ``tests/test_exercises_ch13_real_model.py`` checks every stored
number against the file where it is present.

Examples
--------
>>> kv_head.check([0, 1, 2]).ok
True
>>> kv_head.check([2, 1, 1]).diagnosis
'modulo'
>>> word_tokens.check("un|believable").diagnosis
'chose-un|believable'
"""

from __future__ import annotations

import numpy as np

import attn_core as ac
from attn_book import gguf

from . import diagnose
from .kinds import ChoiceExercise, FunctionExercise, NumberExercise
from .records import Case

MIB = 2**20  # bytes in a MiB (mebibyte)

# ------------------------------------------------------ a Q4_1 block, by hand

#: The first block of blk.0.attn_k.weight: its float16 scale and minimum (exact, as Python
#: floats) and its first byte of codes (code 0 low, code 16 high).
Q4_BLOCK = (0.1651611328125, -1.4765625, 184)


def _block(d, m, byte):
    """A Q4_1 block with the given scale, minimum and first byte of codes (the others 0)."""
    codes = np.zeros(32, dtype=int)
    codes[0], codes[16] = byte & 0x0F, byte >> 4
    return gguf.pack_q4_1(d, m, codes)


def _w0_w16(d, m, byte):
    """w_0 and w_16 of the block, by the file format's own dequantiser."""
    return gguf.dequantize_q4_1(_block(d, m, byte))[[0, 16]].astype(float)


q4_block = NumberExercise(
    "ch13-q4-block",
    Q4_BLOCK,
    _w0_w16,
    decimals=4,  # the weights are about 0.1: four decimals tell the slips apart
    diagnoses=[
        diagnose.matches("nibbles-swapped", lambda d, m, b: [d * (b >> 4) + m, d * (b & 15) + m]),
        diagnose.matches("minimum-forgotten", lambda d, m, b: [d * (b & 15), d * (b >> 4)]),
        diagnose.matches(
            "minimum-subtracted", lambda d, m, b: [d * (b & 15) - m, d * (b >> 4) - m]
        ),
        diagnose.matches("byte-as-code", lambda d, m, b: [d * b + m, d * b + m]),
    ],
)


# ------------------------------------------------------ write it: every block with numpy


def _dequantize_blocks(blocks):
    """Q4_1 blocks [..., 20] (uint8) to their weights [..., 32], by the format's dequantiser."""
    return gguf.dequantize_q4_1(blocks.reshape(-1)).reshape(*blocks.shape[:-1], 32)


def _parts(blocks):
    """Each block's scale and minimum [..., 1] (float32), its low and high codes [..., 16]."""
    d = blocks[..., 0:2].copy().view("<f2").astype(np.float32)
    m = blocks[..., 2:4].copy().view("<f2").astype(np.float32)
    return d, m, blocks[..., 4:] & 0x0F, blocks[..., 4:] >> 4


def _nibbles_swapped(blocks):
    d, m, low, high = _parts(blocks)
    return d * np.concatenate([high, low], axis=-1) + m


def _nibbles_interleaved(blocks):
    d, m, low, high = _parts(blocks)
    return d * np.stack([low, high], axis=-1).reshape(*blocks.shape[:-1], 32) + m


def _minimum_dropped(blocks):
    d, _, low, high = _parts(blocks)
    return d * np.concatenate([low, high], axis=-1)


def _scale_as_byte(blocks):
    """The scale read as its first byte (a number 0 to 255), not as the float16 of two bytes."""
    _, m, low, high = _parts(blocks)
    return blocks[..., 0:1].astype(np.float32) * np.concatenate([low, high], axis=-1) + m


def _scale_and_minimum_as_bytes(blocks):
    """The same slip for the minimum too: each its first byte."""
    _, _, low, high = _parts(blocks)
    d, m = blocks[..., 0:1].astype(np.float32), blocks[..., 2:3].astype(np.float32)
    return d * np.concatenate([low, high], axis=-1) + m


def _float16_arithmetic(blocks):
    """d·q + m computed in float16: the scale and the minimum left as read, the codes uint8."""
    d = blocks[..., 0:2].copy().view("<f2")
    m = blocks[..., 2:4].copy().view("<f2")
    return d * np.concatenate([blocks[..., 4:] & 0x0F, blocks[..., 4:] >> 4], axis=-1) + m


def _packed(d, m, codes):
    """One block's 20 bytes as a [1, 20] uint8 row."""
    return np.frombuffer(gguf.pack_q4_1(d, m, codes), dtype=np.uint8)[None]


def _block_cases():
    """Blocks as the model's are: a positive scale d and a minimum m about -4d to -12d (its
    first block of W_K: d = 0.165, m = -1.48), so that a code off by one moves a weight by
    far more than float32's 1 %; then the edges of the format."""
    r = np.random.default_rng(13)

    def random_blocks(n):
        rows = []
        for _ in range(n):
            d = r.uniform(0.01, 0.2)
            rows.append(_packed(d, -r.uniform(4, 12) * d, r.integers(0, 16, 32)))
        return np.concatenate(rows)

    every_code = np.concatenate([np.arange(16), np.arange(16)[::-1]])
    return [
        Case("one block", (random_blocks(1),)),
        Case("five blocks", (random_blocks(5),)),
        Case("a matrix: 2 rows of 3 blocks", (random_blocks(6).reshape(2, 3, 20),), batched=True),
        Case(
            "the first block of layer 0's W_K, its first byte's two codes",
            (
                _packed(
                    Q4_BLOCK[0],
                    Q4_BLOCK[1],
                    [Q4_BLOCK[2] & 15, *[0] * 15, Q4_BLOCK[2] >> 4, *[0] * 15],
                ),
            ),
        ),
        Case("codes 0 to 15, then 15 to 0", (_packed(0.125, -1.0, every_code),)),
        Case(
            "a zero scale: every weight is the minimum",
            (_packed(0.0, -0.75, r.integers(0, 16, 32)),),
        ),
    ]


dequantize_blocks = FunctionExercise(
    "ch13-dequantize-blocks",
    _dequantize_blocks,
    _block_cases,
    diagnoses=[
        diagnose.matches("nibbles-swapped", _nibbles_swapped),
        diagnose.matches("nibbles-interleaved", _nibbles_interleaved),
        diagnose.matches("minimum-forgotten", _minimum_dropped),
        diagnose.matches("scale-not-float16", _scale_as_byte, _scale_and_minimum_as_bytes),
        diagnose.matches("float16-arithmetic", _float16_arithmetic),
    ],
    float32_tolerance=1e-6,  # float32's own digits: weights up to about 2.4, ulp 2.4·10⁻⁷
)


# ------------------------------------------------------ predict: the pieces of a word

#: The merges of SmolLM2's list that apply to " unbelievable", in the order BPE applies them:
#: (the pair, its place in the list of 48,900).
UNBELIEVABLE_MERGES = [
    (("l", "e"), 38),
    (("e", "l"), 47),
    (("Ġ", "u"), 74),
    (("a", "b"), 117),
    (("ab", "le"), 263),
    (("i", "e"), 267),
    (("Ġu", "n"), 299),
    (("b", "el"), 8898),
    (("v", "able"), 16023),
    (("bel", "ie"), 23030),
    (("Ġun", "belie"), 33030),
]

word_tokens = ChoiceExercise(
    "ch13-word-tokens",
    options=["unbelievable", "un|believable", "unbelie|vable", "un|belie|vable"],
    answer="unbelie|vable",
)


# ------------------------------------------------------ one weight from real scores

#: Layer 2, head 4: q·k of the query of " is" with the keys of "The capital of France is",
#: to one decimal; and the head's size.
ONE_WEIGHT = ((109.4, 42.1, 81.9, 48.8, 87.1), 64)
ONE_WEIGHT_HEAD = (2, 4)  # [layer, head]


def _first_weight(dots, d_head, *, scale=None):
    """The weight on the first key: softmax of the dot products over √d_head."""
    s = np.asarray(dots, dtype=float) / (np.sqrt(d_head) if scale is None else scale)
    return ac.softmax(s)[0]


one_weight = NumberExercise(
    "ch13-one-weight",
    ONE_WEIGHT,
    _first_weight,
    diagnoses=[
        diagnose.matches("unscaled", lambda dots, d: _first_weight(dots, d, scale=1.0)),
        diagnose.matches("divided-by-d", lambda dots, d: _first_weight(dots, d, scale=d)),
        diagnose.matches(
            "share-of-dots", lambda dots, d: np.asarray(dots, dtype=float)[0] / np.sum(dots)
        ),
    ],
)


# ------------------------------------------------------ which key/value head

#: Three query heads, the model's 9 query heads and 3 key/value heads.
KV_HEAD = ((2, 4, 7), 9, 3)

kv_head = NumberExercise(
    "ch13-kv-head",
    KV_HEAD,
    lambda heads, n_heads, n_kv: [h // (n_heads // n_kv) for h in heads],
    integer=True,  # head numbers
    diagnoses=[
        diagnose.matches("modulo", lambda heads, n_heads, n_kv: [h % n_kv for h in heads]),
        diagnose.matches(
            "counted-from-1",
            lambda heads, n_heads, n_kv: [h // (n_heads // n_kv) + 1 for h in heads],
        ),
    ],
)


# ------------------------------------------------------ this model's cache

#: SmolLM2-135M: 30 layers, 9 query heads, 3 key/value heads of 64; 1,000 tokens, float16
#: (not the chapter's 8,192, whose 180 MiB the text gives).
CACHE = (30, 9, 3, 64, 1000, 2)

cache_mib = NumberExercise(
    "ch13-cache-mib",
    CACHE,
    lambda layers, h, h_kv, d, n, b: ac.kv_cache_bytes(layers, h_kv, d, n, b) / MIB,
    decimals=2,  # the statement asks for two decimals: 23.04, MB for MiB, is then diagnosed
    diagnoses=diagnose.kv_cache_slips("MiB"),
)


# ------------------------------------------------------ predict: where the sink appears

sink_where = ChoiceExercise(
    "ch13-sink-where",
    options=["first layers", "later layers", "every layer"],
    answer="later layers",
)


# ------------------------------------------------------ measure: the induction head

#: [layer, head] of the highest induction score on the chapter's repeated random sequence,
#: and of the highest previous-token score, as measured (the test measures them again).
INDUCTION_HEAD = (18, 6)
PREVIOUS_TOKEN_HEAD = (16, 0)

#: The exercise's sequence: this seed, 30 random tokens after <|endoftext|>, then the same 30.
INDUCTION_SEED, INDUCTION_LENGTH = 2026, 30

#: Measured on it (the test measures them again from the file), to four decimals: the
#: highest induction score, (18, 6)'s; the next induction heads' scores, (17, 4), (17, 3),
#: (17, 5), (23, 7), (23, 2); (18, 6)'s score on the same 60 tokens without <|endoftext|>;
#: and the highest previous-token score, (16, 0)'s, from the second random token on (its weight
#: on the first, the sink's, left out) or from the first.
INDUCTION_SCORE = 0.9603
OTHER_INDUCTION_SCORES = (0.8813, 0.7937, 0.7314, 0.6173, 0.6099)
INDUCTION_SCORE_NO_START = 0.9227
PREVIOUS_TOKEN_SCORES = (0.9082, 0.9094)

induction_head = NumberExercise(
    "ch13-induction-head",
    (),
    lambda: INDUCTION_SCORE,
    decimals=3,  # three decimals, as asked; the scores are stored to four
    diagnoses=[
        diagnose.matches(
            "another-induction-head", *[lambda s=s: s for s in OTHER_INDUCTION_SCORES]
        ),
        diagnose.matches("no-start-token", lambda: INDUCTION_SCORE_NO_START),
        diagnose.matches("previous-token-score", *[lambda s=s: s for s in PREVIOUS_TOKEN_SCORES]),
    ],
)


EXERCISES = [
    q4_block,
    dequantize_blocks,
    word_tokens,
    one_weight,
    kv_head,
    cache_mib,
    sink_where,
    induction_head,
]
