"""attn_core: every formula of *Attention by Hand*, in a few small numpy functions.

Formulas only: the data and the experiments live in :mod:`attn_book`. Imports numpy only.
The argument checks that attn_book shares (same messages, same size limit) are public too:
``as_array``, ``check_bool``, ``check_positive_int``, ``check_positive_real``, ``check_size``.
"""

from .additive import additive_scores
from .attention import (
    BLOCKED_FROM_PAIRS,
    attention_weights,
    causal_mask,
    dot_scores,
    padding_mask,
    scaled_dot_product_attention,
)
from .backward import attention_backward
from .blocked import blocked_attention
from .chunked import chunked_attention
from .cost import AttentionCost, attention_cost
from .heads import (
    SimpleSelfAttention,
    merge_heads,
    multi_head_attention,
    split_heads,
    trace_self_attention,
)
from .kv_cache import KVCache, causal_mask_lower_right, kv_cache_bytes
from .linear import delta_rule, elu_plus_one, linear_attention, linear_attention_recurrent
from .mla import MLACache, MLAWeights, mla_attention, mla_cache_bytes, mla_latent
from .norms import rms_norm
from .online import OnlineSoftmax, online_softmax_start, online_softmax_step
from .patches import image_patches
from .positions import (
    alibi_bias,
    alibi_slopes,
    halves_to_interleaved,
    interleaved_to_halves,
    rotary,
    rotary_frequencies,
    sinusoidal_positions,
)
from .recurrent import simple_rnn
from .shared_heads import repeat_kv_heads
from .softmax import entropy, log_softmax, logsumexp, softmax, softmax_jacobian
from .validation import (
    as_array,
    check_bool,
    check_positive_int,
    check_positive_real,
    check_size,
)
from .windows import sliding_window_mask


def __getattr__(name):
    """``__version__``, read on first use: importlib.metadata costs ~40 ms at import."""
    if name != "__version__":
        raise AttributeError(f"module 'attn_core' has no attribute {name!r}")
    import importlib.metadata

    try:  # the one version is pyproject.toml's, as pip installed it
        return importlib.metadata.version("attn-core")
    except importlib.metadata.PackageNotFoundError:  # a checkout never installed
        return "0+unknown"


__all__ = [
    "BLOCKED_FROM_PAIRS",
    "AttentionCost",
    "KVCache",
    "MLACache",
    "MLAWeights",
    "OnlineSoftmax",
    "SimpleSelfAttention",
    "additive_scores",
    "alibi_bias",
    "alibi_slopes",
    "as_array",
    "attention_backward",
    "attention_cost",
    "attention_weights",
    "blocked_attention",
    "causal_mask",
    "causal_mask_lower_right",
    "check_bool",
    "check_positive_int",
    "check_positive_real",
    "check_size",
    "chunked_attention",
    "delta_rule",
    "dot_scores",
    "elu_plus_one",
    "entropy",
    "halves_to_interleaved",
    "image_patches",
    "interleaved_to_halves",
    "kv_cache_bytes",
    "linear_attention",
    "linear_attention_recurrent",
    "log_softmax",
    "logsumexp",
    "merge_heads",
    "mla_attention",
    "mla_cache_bytes",
    "mla_latent",
    "multi_head_attention",
    "online_softmax_start",
    "online_softmax_step",
    "padding_mask",
    "repeat_kv_heads",
    "rms_norm",
    "rotary",
    "rotary_frequencies",
    "scaled_dot_product_attention",
    "simple_rnn",
    "sinusoidal_positions",
    "sliding_window_mask",
    "softmax",
    "softmax_jacobian",
    "split_heads",
    "trace_self_attention",
]
