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
    document_mask,
    dot_scores,
    padding_mask,
    scaled_dot_product_attention,
)
from .backward import attention_backward
from .blocked import blocked_attention
from .chunked import chunked_attention
from .cost import (
    AttentionCost,
    SparseAttentionCost,
    attention_cost,
    linear_attention_flops,
    sparse_attention_cost,
)
from .gates import output_gate
from .heads import (
    SimpleSelfAttention,
    merge_heads,
    multi_head_attention,
    split_heads,
    trace_self_attention,
)
from .kv_cache import KVCache, causal_mask_lower_right, kv_cache_bytes
from .linear import (
    DeltaRuleGrowthWarning,
    delta_rule,
    delta_rule_chunkwise,
    elu_plus_one,
    linear_attention,
    linear_attention_recurrent,
    linear_state_bytes,
)
from .mla import (
    MLACache,
    MLAScores,
    MLAWeights,
    mla_attention,
    mla_cache_bytes,
    mla_latent,
    mla_scores,
)
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
from .score_bounds import qk_norm, qk_norm_max_score, soft_cap
from .shared_heads import repeat_kv_heads
from .softmax import entropy, log_softmax, logsumexp, softmax, softmax_jacobian
from .sparse import lightning_index_scores, top_k_mask
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
    "DeltaRuleGrowthWarning",
    "KVCache",
    "MLACache",
    "MLAScores",
    "MLAWeights",
    "OnlineSoftmax",
    "SimpleSelfAttention",
    "SparseAttentionCost",
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
    "delta_rule_chunkwise",
    "document_mask",
    "dot_scores",
    "elu_plus_one",
    "entropy",
    "halves_to_interleaved",
    "image_patches",
    "interleaved_to_halves",
    "kv_cache_bytes",
    "lightning_index_scores",
    "linear_attention",
    "linear_attention_flops",
    "linear_attention_recurrent",
    "linear_state_bytes",
    "log_softmax",
    "logsumexp",
    "merge_heads",
    "mla_attention",
    "mla_cache_bytes",
    "mla_latent",
    "mla_scores",
    "multi_head_attention",
    "online_softmax_start",
    "online_softmax_step",
    "output_gate",
    "padding_mask",
    "qk_norm",
    "qk_norm_max_score",
    "repeat_kv_heads",
    "rms_norm",
    "rotary",
    "rotary_frequencies",
    "scaled_dot_product_attention",
    "simple_rnn",
    "sinusoidal_positions",
    "sliding_window_mask",
    "soft_cap",
    "softmax",
    "softmax_jacobian",
    "sparse_attention_cost",
    "split_heads",
    "top_k_mask",
    "trace_self_attention",
]
