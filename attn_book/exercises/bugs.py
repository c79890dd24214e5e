"""Find the bug: the five planted-mistake exercises, kept importable under their old names.

Each now lives in its chapter's module (and in that module's ``EXERCISES``):

======================  ================================  ========================================
name                    module                            the planted mistake
======================  ================================  ========================================
``kT_batch``            :mod:`.ch01_dot_product`          ``k.T`` on a batched array
``mask_fully_masked``   :mod:`.ch02_softmax`              masking with -1e9, and a fully masked row
``softmax_wrong_axis``  :mod:`.ch02_softmax`              softmax normalised over the wrong axis
``scale_d_model``       :mod:`.ch07_heads_and_masks`      scaling by √d_model instead of √d_head
``heads_reshape``       :mod:`.ch07_heads_and_masks`      reshaping into heads without transposing
======================  ================================  ========================================

Examples
--------
>>> from attn_book.exercises import ch01_dot_product as ch1
>>> kT_batch is ch1.kT_batch
True
"""

from ._core import BugExercise, Code
from .ch01_dot_product import kT_batch
from .ch02_softmax import mask_fully_masked, softmax_wrong_axis
from .ch07_heads_and_masks import heads_reshape, scale_d_model

__all__ = [
    "BugExercise",
    "Code",
    "heads_reshape",
    "kT_batch",
    "mask_fully_masked",
    "scale_d_model",
    "softmax_wrong_axis",
]
