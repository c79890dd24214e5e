"""Chapter 13's attention weights of every layer and head on two short prompts, computed from the
model or read from a small stored file, for the figure that picks a layer and a head
(:meth:`attn_book.widgets.AttentionHeatmap.from_model`).

With the model file on the machine the weights are computed (:func:`compute`: one forward pass
of :func:`attn_book.llama.forward`, which collects each layer's [n_heads, T, T] weights); without
it they are read from ``stored/head_weights.npz``, which :func:`write` made from the model: the
same numbers rounded to :data:`DIGITS` decimals, as the figure shows them
(tests/test_head_weights.py holds the file equal to the model). The static site needs neither:
the notebook stores the figure's state. Regenerate the file with
``python -m attn_book.head_weights`` (needs `make model`).

The prompts (:data:`PROMPTS`): an ordinary sentence, and eight random words twice over, on
which an induction head (Olsson et al., 2022) looks from a word of the second copy to the word
that followed its first occurrence. Each names the layer and head the figure opens on, found
on these weights (the test checks they are the best of their kind), counted from 0 as Python
counts; the figure counts from 1.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = ["DIGITS", "PROMPTS", "STORED", "Prompt", "Weights", "compute", "load", "weights"]

#: Decimals kept: the figure shows three.
DIGITS = 3
#: The stored weights, in thousandths (uint16), with each prompt's token ids and texts.
STORED = Path(__file__).resolve().parent / "stored" / "head_weights.npz"

_WORDS = " parents recorded music coding notable robot moving area"


class Prompt(NamedTuple):
    """A prompt and where the figure opens on it: ``layer``, ``head`` (from 0), ``selected``
    (the query row listed)."""

    text: str
    layer: int
    head: int
    selected: int
    shows: str  # what the opening head does, for the docs


PROMPTS = {
    "sentence": Prompt(
        "When Mary and John went to the store, John gave a drink to", 16, 0, 13,
        "a previous-token head: each token's weight goes to the token before it",
    ),
    "induction": Prompt(
        _WORDS + _WORDS, 18, 6, 12,
        "an induction head: a word of the second copy looks at the word that followed it in the "
        "first",
    ),
}  # fmt: skip


class Weights(NamedTuple):
    """One prompt's tokens and the weights of every layer and head."""

    ids: list  # T token ids
    tokens: list  # T token texts, as the tokenizer decodes each (" John": a space, then John)
    weights: np.ndarray  # (n_layers, n_heads, T, T) float64, rounded to DIGITS decimals

    @property
    def labels(self):
        """The tokens as the figure labels them: without their leading space."""
        return [t.strip() or t for t in self.tokens]


def _prompt(name):
    if name not in PROMPTS:
        raise ValueError(f"prompt must be one of {sorted(PROMPTS)}, got {name!r}")
    return PROMPTS[name]


def compute(name, m):
    """``name``'s weights from the loaded model ``m`` (:func:`attn_book.llama.load_model`)."""
    from . import llama

    ids = m.tokenizer.encode(_prompt(name).text)
    per_layer = []  # one [n_heads, T, T] per layer
    llama.forward(m, ids, weights=per_layer)
    weights = np.round(np.asarray(per_layer, dtype=np.float64), DIGITS)
    return Weights(list(ids), [m.tokenizer.decode([i]) for i in ids], weights)


def load(name, path=STORED):
    """``name``'s stored weights (no model needed)."""
    _prompt(name)
    with np.load(path) as f:
        weights = f[f"{name}.weights"].astype(np.float64) / 10**DIGITS
        return Weights(f[f"{name}.ids"].tolist(), f[f"{name}.tokens"].tolist(), weights)


def weights(name, m=None):
    """``name``'s weights: from ``m`` if given, else from the model file if it is on this
    machine (loaded for the purpose, once per prompt), else the stored ones."""
    from . import model

    if m is not None:
        return compute(name, m)
    return _from_model_file(name) if model.model_path().is_file() else load(name)


@cache
def _from_model_file(name):
    from . import llama

    return compute(name, llama.load_model())


def write(m, path=STORED):
    """Store every prompt's weights (thousandths, uint16), ids and tokens in ``path``."""
    arrays = {}
    for name in PROMPTS:
        w = compute(name, m)
        arrays[f"{name}.ids"] = np.asarray(w.ids, dtype=np.int32)
        arrays[f"{name}.tokens"] = np.asarray(w.tokens, dtype=str)
        arrays[f"{name}.weights"] = np.rint(w.weights * 10**DIGITS).astype(np.uint16)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    return path


def main():
    from . import llama

    path = write(llama.load_model())
    print(f"{path}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
