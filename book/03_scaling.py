# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Why divide by √dₖ (스케일링)
#
# The attention of "Attention Is All You Need" ([Vaswani et al., 2017](references.md)) is
# *scaled* dot-product attention (스케일 내적 어텐션):
#
# $$
# \mathrm{Attention}(Q, K, V)
#   = \mathrm{softmax}\!\left(\frac{1}{\sqrt{d_k}}\, Q K^\top\right) V ,
# $$ (eq-sdpa)
#
# where $K^\top$ is the transpose (전치) of the matrix of keys and $d_k$ is the dimension (차원)
# of the query (쿼리) and key (키) vectors, the key width. The previous chapter showed that the
# *size* of the scores decides how peaked the softmax (소프트맥스) is. This chapter shows why dot
# products (내적) grow with $d_k$, and why $\sqrt{d_k}$ is the right divisor when the components of
# queries and keys are independent with a fixed variance, as in a freshly initialised network;
# it also says what changes once training has aligned them.
#
# After this chapter you will be able to:
#
# - derive the mean and the variance of a dot product of random vectors;
# - check the derivation by simulation, and read the plot;
# - say what unscaled scores do to softmax: saturation, entropy collapse, vanishing gradients,
#   and measure it query by query;
# - follow the Quanta write-up from its $d_k = 2$ to the $d_k = 64$ of a real model;
# - *(going further)* say which assumption the $\sqrt{d_k}$ rests on, and what models do when
#   it fails.
#
# New terms: mean (평균), variance (분산), standard deviation (표준편차), layer normalisation
# (층 정규화), QK-norm.
#
# **The core of this chapter** is one skill: why the scores are divided by $\sqrt{d_k}$. The
# variance argument gives the divisor, a simulation measures it, and a measurement shows what
# saturation does to the gradient:
# [the derivation](03_scaling.ipynb#the-derivation), [checked by simulation](03_scaling.ipynb#checked-by-simulation),
# [what a large spread does to softmax](03_scaling.ipynb#what-a-large-spread-does-to-softmax) and
# [one head of the original Transformer](03_scaling.ipynb#one-head-of-the-original-transformer). The sections
# marked *Going further* say when the argument's assumption fails and how heads set their
# width; a first reading can skip them, and no core section needs them.

# %%
import math

import attn_core as ac
import numpy as np
from attn_book import experiments, plots
from attn_book.exercises import ch03_scaling as ch3
from attn_book.figures import Figures
from attn_book.prose import dec, grouped, percent, plain, sci, vector
from attn_book.tables import step_table
from attn_book.widgets import ScalingExplorer

figures = Figures(chapter=3)
# every random number of this chapter comes from this generator
rng = np.random.default_rng(3)

# %% [markdown]
# ## One query, with and without the scale
#
# Take a query and three keys of $d_k = 2$ components, score them, and take the softmax of the
# scores as they are and divided by $\sqrt{d_k}$:

# %%
q = np.array([1.0, 1.0])  # [d_k]
keys = np.array([[3.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])  # [S, d_k]
d_k = q.shape[-1]  # 2
root_d_k = math.sqrt(d_k)  # the divisor
scores_small = keys @ q  # [S, d_k] @ [d_k] -> [S]
w_plain = ac.softmax(scores_small)  # unscaled
w_scaled = ac.softmax(scores_small / root_d_k)  # divided by √d_k
print("unscaled:", w_plain.round(3))
print("scaled:  ", w_scaled.round(3))

# %% [markdown]
# `ac.attention_weights` does both steps, dividing by $\sqrt{d_k}$ unless told otherwise: its
# `scale=` is the factor that multiplies the scores, as in PyTorch's
# `scaled_dot_product_attention` (default $1/\sqrt{E}$, $E = d_k$), so `scale=1.0` switches
# the division off:

# %%
same_scaled = np.allclose(ac.attention_weights(q, keys), w_scaled)
same_plain = np.allclose(ac.attention_weights(q, keys, scale=1.0), w_plain)
print("scaled:", same_scaled, "  unscaled:", same_plain)

# %% [markdown]
# The query is $\mathbf{q}$ = {eval}`vector(q)`, the keys are {eval}`vector(keys[0])`,
# {eval}`vector(keys[1])` and {eval}`vector(keys[2])`, so $d_k =$ {eval}`d_k` and the scores
# are {eval}`plain(scores_small)`. Without the scale the weights are
# {eval}`dec(w_plain, sep=" / ")`; divided by $\sqrt{d_k} \approx$ {eval}`dec(root_d_k)` they
# are {eval}`dec(w_scaled, sep=" / ")`. Even at $d_k =$ {eval}`d_k` the unscaled weights are
# more extreme. Dividing by $\sqrt{d_k}$ is the temperature of [Chapter 2](02_softmax.ipynb),
# set to $T = \sqrt{d_k}$. The Quanta write-up makes the same comparison on its own example, at the same
# $d_k$ ([Chapter 4](04_worked_example.ipynb) works it through by hand), and its point is that
# real models use far larger $d_k$, where the difference is far larger. Why?
#
# ## The derivation
#
# The Transformer's authors started from an observation they credit to Britz et al.: for
# small $d_k$ additive attention
# (the small network of [Chapter 1](01_dot_product.ipynb)) and the dot product performed about
# the same, but for larger $d_k$ additive attention beat the dot product *without* scaling
# ([Britz et al., 2017](references.md)). "We suspect", they wrote, that for large $d_k$ the dot
# products grow large in magnitude and push the softmax into regions where its gradients are
# extremely small ([Vaswani et al., 2017](references.md), §3.2.1); a footnote gives the reason
# they grow (footnote 4), and this section works it out. Model the components of a query and a
# key as random: each $q_m$ and $k_m$ is independent of the others, with mean 0 and variance 1.
# This is the footnote's assumption. The variance 1 is for convenience, not a fact about
# networks: [any fixed variance](03_scaling.ipynb#any-fixed-variance) leads to the same divisor, and
# [a Going-further section](03_scaling.ipynb#going-further-when-the-assumption-fails) asks how long the
# independence lasts.
#
# ```{prf:proposition} The spread of a dot product
# :label: prop-dot-variance
#
# If $q_1, \dots, q_{d_k}, k_1, \dots, k_{d_k}$ are independent, each with mean 0 and
# variance 1, then $s = \mathbf{q} \cdot \mathbf{k} = \sum_{m=1}^{d_k} q_m k_m$ has mean 0 and
# variance $d_k$, and $s / \sqrt{d_k}$ has mean 0 and variance 1.
# ```
#
# ```{prf:proof}
# **Mean.** Expectation is linear, and the expectation of a product of independent variables is
# the product of their expectations:
#
# $$
# \begin{aligned}
# \mathbb{E}[\mathbf{q} \cdot \mathbf{k}] &= \sum_{m=1}^{d_k} \mathbb{E}[q_m k_m]
#   = \sum_{m=1}^{d_k} \mathbb{E}[q_m]\,\mathbb{E}[k_m] \\
#   &= \sum_{m=1}^{d_k} 0 \cdot 0 = 0 .
# \end{aligned}
# $$ (eq-dot-mean)
#
# **One term.** For a single product, the variance is the mean square minus the squared mean,
# and the squared mean is 0 by {eq}`eq-dot-mean`:
#
# $$
# \begin{aligned}
# \mathrm{Var}[q_m k_m] &= \mathbb{E}[q_m^2 k_m^2] - \left(\mathbb{E}[q_m k_m]\right)^2 \\
#   &= \mathbb{E}[q_m^2]\,\mathbb{E}[k_m^2] - 0 = 1 \cdot 1 = 1 ,
# \end{aligned}
# $$ (eq-term-variance)
#
# because $\mathbb{E}[q_m^2] = \mathrm{Var}[q_m] + \mathbb{E}[q_m]^2 = 1$, and the same for
# $k_m$.
#
# **The sum.** The $d_k$ products $q_m k_m$ are independent of each other (they share no
# variable), and the variance of a sum of independent variables is the sum of their variances:
#
# $$
# \mathrm{Var}[\mathbf{q} \cdot \mathbf{k}] = \sum_{m=1}^{d_k} \mathrm{Var}[q_m k_m] = d_k .
# $$ (eq-dot-variance)
#
# **The scale.** Dividing a variable by $c$ divides its variance by $c^2$, so
#
# $$
# \mathrm{Var}\!\left[\frac{\mathbf{q} \cdot \mathbf{k}}{\sqrt{d_k}}\right] = \frac{d_k}{d_k} = 1 .
# $$ (eq-scaled-variance)
# ```
#
# So the typical size of an unscaled score, its standard deviation, is $\sqrt{d_k}$: it grows
# with the dimension, and dividing by $\sqrt{d_k}$ (not $d_k$, not $\log d_k$) brings it back
# to 1 whatever the dimension.
#
# ## Checked by simulation
#
# The proposition's assumption, as code: draw each component of a query and of a key from the
# standard normal distribution (mean 0, variance 1), independently, and take their dot
# product. For each dimension the cell draws many such pairs, one per row, and measures the sample variance of their dot products, then of the same dot products
# divided by $\sqrt{d_k}$. If the derivation is right, the first follows $d_k$ and the second
# stays at 1.

# %%
d_ks = 2 ** np.arange(10)  # 1, 2, 4, ..., 512
n_dims, d_max = len(d_ks), d_ks[-1]
spread_max = math.sqrt(d_max)  # the unscaled standard deviation at d_max
n_pairs = 20_000
var_plain, var_scaled = np.zeros(n_dims), np.zeros(n_dims)
near_zero = np.zeros(n_dims)  # the share of scaled scores within ±0.5, per d_k
for i, d in enumerate(d_ks):
    q_draw = rng.standard_normal((n_pairs, d))  # N queries, [N, d_k]
    k_draw = rng.standard_normal((n_pairs, d))  # a key for each, [N, d_k]
    dots = (q_draw * k_draw).sum(-1)  # each pair's q·k, [N]
    var_plain[i] = dots.var(ddof=1)  # should be d_k
    var_scaled[i] = (dots / math.sqrt(d)).var(ddof=1)  # should be 1
    near_zero[i] = np.mean(np.abs(dots / math.sqrt(d)) < 0.5)

# %% tags=["hide-input"]
labels = [f"dₖ = {d}" for d in d_ks]
step_table({"Var[q·k]": var_plain, "Var[q·k/√dₖ]": var_scaled}, index=labels)

# %% [markdown]
# How far is each simulated variance from the derivation, as a fraction of it?

# %%
worst_plain = np.max(np.abs(var_plain / d_ks - 1))  # against d_k
# against 1; var_scaled is var_plain / d_k exactly, so this is the same number
worst_scaled = np.max(np.abs(var_scaled - 1))
print(f"{worst_plain:.1%}, {worst_scaled:.1%}")

# %% tags=["hide-input"]
figures.show(
    plots.plot_score_variance(d_ks, var_plain, var_scaled),
    "fig-ch3-variance",
    "Sample variance of {n_pairs} dot products of random vectors, for each "
    "dₖ from {d_k_first} to {d_k_last}. Unscaled (circles) it follows the line "
    "Var = dₖ of the derivation; divided by √dₖ (squares) it stays at 1. "
    "Both axes are logarithmic.",
    n_pairs=f"{n_pairs:,}",
    d_k_first=d_ks[0],
    d_k_last=d_ks[-1],
)

# %% [markdown]
# Over all {eval}`n_dims` dimensions the simulated variance is never more than
# {eval}`percent(worst_plain)` from $d_k$: sampling noise of the size expected from
# {eval}`grouped(n_pairs)` draws. At $d_k =$ {eval}`plain(d_max)` the unscaled variance is
# {eval}`dec(var_plain[-1], 1)` and the scaled one {eval}`dec(var_scaled[-1])`
# ({eval}`figures.ref("fig-ch3-variance")`). The scaled column is not a second confirmation:
# it holds the same draws divided by $\sqrt{d_k}$, so its variance is the unscaled one divided
# by $d_k$ exactly, and its distance from 1, {eval}`percent(worst_scaled)` at most, is the
# same number by algebra.
#
# What the division does not settle is the *shape* of the scaled scores. At $d_k = 1$ a scaled
# score is the product of two normal numbers, sharply peaked at 0 with long tails; a sum of
# many independent products tends to the normal distribution (the central limit theorem). The
# share of scaled scores within ±0.5 shows it:

# %%
normal_near_zero = math.erf(0.5 / math.sqrt(2))  # P(|Z| < 0.5) for Z ~ N(0, 1)
print("d_k = 1:", percent(near_zero[0], 0), f"  d_k = {d_max}:", percent(near_zero[-1], 0))
print("standard normal:", percent(normal_near_zero, 0))

# %% [markdown]
# Within ±0.5 lie {eval}`percent(near_zero[0], 0)` of the scaled scores at $d_k = 1$,
# {eval}`percent(near_zero[-1], 0)` at $d_k =$ {eval}`plain(d_max)`, and
# {eval}`percent(normal_near_zero, 0)` of a standard normal's draws. Every $d_k$ has variance 1
# after the division, but only at larger $d_k$ are the scaled scores close to one and the same
# distribution, $N(0, 1)$. With normal keys one query's scaled scores are normal at every
# $d_k$, with variance $\|\mathbf q\|^2 / d_k$; what differs at small $d_k$ is how much that
# length varies from query to query. The next figure shows the small difference this makes
# at $d_k = 1$, measured just after it.
#
# ## What a large spread does to softmax
#
# A standard deviation of $\sqrt{d_k}$, about {eval}`dec(spread_max, 1)` at
# $d_k =$ {eval}`plain(d_max)`, means that the scores of different keys lie many units apart
# (how far apart the best two lie is measured below). By the ratio rule of
# [Chapter 2](02_softmax.ipynb), each unit of lead multiplies a weight by $e$, so the best key
# takes almost everything. Three measures show it, each averaged over random
# queries that each meet their own random keys:
#
# - the largest weight: $1/S$ for uniform weights, 1 when one key takes all;
# - the entropy $-\sum_j w_j \log w_j$ (`ac.entropy`): $\log S$ when uniform, 0 when one key
#   takes all;
# - the Frobenius norm of the Jacobian $\mathrm{diag}(w) - ww^\top$ (`ac.softmax_jacobian`),
#   the square root of the sum of its squared entries, as in Chapter 2: an upper bound on how
#   much a nudge to the scores can still move the weights, and so on how much gradient can
#   pass back to the scores; 0 when saturated.

# %%
n_keys, n_trials = 16, 500  # S keys per query, queries per d_k


def peakedness(d_k, scale):
    """The three measures, averaged over n_trials random queries, each with its own keys."""
    q_r = rng.standard_normal((n_trials, 1, d_k))  # [N, 1, d_k]
    k_r = rng.standard_normal((n_trials, n_keys, d_k))  # [N, S, d_k]
    w = ac.attention_weights(q_r, k_r, scale=scale)[:, 0]  # [N, 1, S] -> [N, S]
    jacobian_norms = np.linalg.norm(ac.softmax_jacobian(w), axis=(-2, -1))  # [N]
    return w.max(axis=-1).mean(), ac.entropy(w).mean(), jacobian_norms.mean()


# one row per d_k, one column per measure: [D, 3] -> three arrays of [D]
rows_plain = np.array([peakedness(d, 1.0) for d in d_ks])  # unscaled
rows_scaled = np.array([peakedness(d, 1 / math.sqrt(d)) for d in d_ks])  # scaled
sat_plain = experiments.SaturationStats(*rows_plain.T)
sat_scaled = experiments.SaturationStats(*rows_scaled.T)

# %% tags=["hide-input"]
jac_peak_d_k = d_ks[np.argmax(sat_plain.jacobian_norm)]  # where the unscaled norm peaks
figures.show(
    plots.plot_saturation(d_ks, sat_plain, sat_scaled, n_keys),
    "fig-ch3-saturation",
    "One query against {n_keys} random keys, averaged over {n_trials} "
    "queries per dₖ. Unscaled (circles), the largest weight climbs towards "
    "1, the entropy falls towards 0 and the Jacobian's norm, after rising up "
    "to dₖ = {jac_peak_d_k}, shrinks; scaled (squares), all three stay nearly "
    "flat, settling once dₖ is large enough for each query's length |q|/√dₖ to be close to 1. "
    "Dotted lines: the uniform weight 1/S = "
    "{uniform} and the uniform entropy log S = {log_n_keys}.",
    n_keys=n_keys,
    n_trials=n_trials,
    jac_peak_d_k=jac_peak_d_k,
    uniform=f"{1 / n_keys:.4f}",
    log_n_keys=f"{math.log(n_keys):.3f}",
)

# %% [markdown]
# At $d_k =$ {eval}`plain(d_max)`, the last entry of each measure:

# %% tags=["hide-input"]
step_table(
    {
        "unscaled q·k": [measure[-1] for measure in sat_plain],
        "scaled q·k/√dₖ": [measure[-1] for measure in sat_scaled],
    },
    index=["largest weight", "entropy (nats)", "Jacobian norm"],
)

# %% [markdown]
# Unscaled, the softmax is *saturated* (포화), nearly one-hot
# ({eval}`figures.ref("fig-ch3-saturation")`). Scaled, the largest weight stays near
# {eval}`dec(sat_scaled.max_weight[-1], 2)` at every large $d_k$ and is
# {eval}`dec(sat_scaled.max_weight[0], 2)` at $d_k = 1$: the small difference that queries of
# random length make (at $d_k = 1$ a query's scores spread by its length, which varies most). The entropy says how far: $e^{H}$, the number of
# keys a query spreads its weight over in effect (equal weights on $m$ keys give exactly $m$),
# and the Jacobian's norm bounds how much gradient still gets through. Averages hide how uneven
# saturation is, so measure query by query, at $d_k =$ {eval}`plain(d_max)`, on a larger
# sample:

# %%
n_queries, n_chunk = 20_000, 1_000  # queries measured one by one, drawn a chunk at a time


def one_by_one(n):
    """Per-query measures at d_k = d_max for n random queries, each with its own S keys."""
    q_big = rng.standard_normal((n, 1, d_max))  # [N, 1, d_k]
    k_big = rng.standard_normal((n, n_keys, d_max))  # [N, S, d_k]
    # [N, S]: unscaled, then divided by √d_k
    w_plain = ac.attention_weights(q_big, k_big, scale=1.0)[:, 0]
    w_scaled = ac.attention_weights(q_big, k_big)[:, 0]
    jac_plain, jac_scaled = ac.softmax_jacobian(w_plain), ac.softmax_jacobian(w_scaled)
    # the gap between the two best unscaled scores: [N, 1, S] -> [N, S] -> [N]
    top_two = np.sort(ac.dot_scores(q_big, k_big)[:, 0], axis=-1)[:, -2:]
    # what gets through: a random gradient g = dL/dw from above, [N, S], the same for both
    g_up = rng.standard_normal((n, n_keys))
    # to the scores, J g: [N, S, S] @ [N, S, 1] -> [N, S]
    grad_s_plain = (jac_plain @ g_up[..., None])[..., 0]
    grad_s_scaled = (jac_scaled @ g_up[..., None])[..., 0]
    # to the query, sum_j (dL/ds_j) k_j: [N, 1, S] @ [N, S, d_k] -> [N, d_k]; the scaled
    # score is q·k/√d_k, so the chain rule divides its gradient by √d_k once more
    grad_q_plain = (grad_s_plain[:, None, :] @ k_big)[:, 0]
    grad_q_scaled = (grad_s_scaled[:, None, :] @ k_big)[:, 0] / spread_max
    # to the keys, (dL/ds_j) q for key j, the outer product of [S] and [d_k]; the Frobenius
    # norm of an outer product is the product of the two vectors' norms, [N]
    q_size = np.sqrt(np.sum(q_big[:, 0] ** 2, axis=-1))

    def size(x, axis):
        """The Frobenius norm over the given axes: the square root of the sum of squares."""
        return np.sqrt(np.sum(x**2, axis=axis))

    return {
        "keys_plain": np.exp(ac.entropy(w_plain)),  # e^H, [N]
        "keys_scaled": np.exp(ac.entropy(w_scaled)),
        "top_plain": w_plain.max(axis=-1),  # the largest weight, [N]
        "gap": top_two[:, 1] - top_two[:, 0],  # [N]
        "jac_plain": size(jac_plain, axis=(-2, -1)),  # [N, S, S] -> [N]
        "jac_scaled": size(jac_scaled, axis=(-2, -1)),
        # each query's ratio, scaled over unscaled: [N]
        "ratio_s": size(grad_s_scaled, axis=-1) / size(grad_s_plain, axis=-1),
        "ratio_q": size(grad_q_scaled, axis=-1) / size(grad_q_plain, axis=-1),
        "ratio_k": (size(grad_s_scaled, axis=-1) * q_size / spread_max)
        / (size(grad_s_plain, axis=-1) * q_size),
    }


chunks = [one_by_one(n_chunk) for _ in range(n_queries // n_chunk)]
per_query = {name: np.concatenate([c[name] for c in chunks]) for name in chunks[0]}
ratio_s, ratio_q, ratio_k = per_query["ratio_s"], per_query["ratio_q"], per_query["ratio_k"]
assert np.allclose(ratio_k, ratio_s / spread_max)  # the scores' ratio over √d_k, exactly
# e^H: the keys a query attends to in effect, averaged over queries
keys_in_effect_plain = per_query["keys_plain"].mean()
keys_in_effect_scaled = per_query["keys_scaled"].mean()
# a query "picks one key" when its largest weight exceeds this
one_hot = 0.99
share_one_hot = np.mean(per_query["top_plain"] > one_hot)
share_spread = 1 - share_one_hot  # the queries that stay unsaturated
median_gap = np.median(per_query["gap"])
mean_ratio = per_query["jac_scaled"].mean() / per_query["jac_plain"].mean()
median_ratio = np.median(per_query["jac_scaled"] / per_query["jac_plain"])
# the spread of each ratio: its 10th, 50th and 90th percentiles
pcts = [10, 50, 90]
spread_s, spread_q, spread_k = (np.percentile(r, pcts) for r in (ratio_s, ratio_q, ratio_k))
grad_ratio_s, grad_ratio_q, grad_ratio_k = spread_s[1], spread_q[1], spread_k[1]
share_q_larger = np.mean(ratio_q < 1)  # queries whose gradient is LARGER unscaled
share_q_hundred = np.mean(ratio_q > 100)  # queries whose gradient shrinks over 100×


def ratio_text(x):
    """A ratio to two significant digits, in powers of ten once it is large."""
    return plain(float(f"{x:.2g}")) if x < 1e4 else sci(x)


# the numbers the text quotes, as text
pct_s, pct_q, pct_k = ([ratio_text(x) for x in spread] for spread in (spread_s, spread_q, spread_k))
median_q_text = ratio_text(grad_ratio_q)
gap_weight_ratio = float(f"{math.exp(median_gap):.1g}")  # e^gap, to one significant digit
print("keys in effect, unscaled:", dec(keys_in_effect_plain, 2))
print("keys in effect, scaled:  ", dec(keys_in_effect_scaled, 2))
print(f"queries with one weight > {one_hot}: {share_one_hot:.0%}; the rest: {share_spread:.0%}")
print(f"median gap between the two best unscaled scores: {median_gap:.1f}")
print(f"scaled / unscaled, per query, over {n_queries:,} queries:")
print(f"  Jacobian norm: mean of norms {mean_ratio:.1f}×, median ratio {median_ratio:.0f}×")
print("  gradient to the scores, percentiles 10/50/90:", *pct_s)
print("  gradient to the query,  percentiles 10/50/90:", *pct_q)
print("  gradient to the keys,   percentiles 10/50/90:", *pct_k)
print(f"  query gradient larger unscaled: {share_q_larger:.0%} of queries;", end=" ")
print(f"over 100× smaller: {share_q_hundred:.0%}")

# %% [markdown]
# Of {eval}`n_keys` keys, an unscaled query attends in effect to
# {eval}`dec(keys_in_effect_plain, 2)`, a scaled one to {eval}`dec(keys_in_effect_scaled, 1)`.
# {eval}`percent(share_one_hot, 0)` of the unscaled queries put more than
# {eval}`plain(one_hot)` of their weight on a single key. Over all the unscaled queries, the
# two best keys' scores lie a median {eval}`dec(median_gap, 1)` units apart, a weight ratio of
# $e^{\text{gap}}$, about {eval}`grouped(gap_weight_ratio)` to 1. The other
# {eval}`percent(share_spread, 0)`, those whose two best keys happen to be close, keep a large
# Jacobian and lift the mean: the mean Jacobian norm is only {eval}`dec(mean_ratio, 1)` times
# smaller unscaled, while the median of the per-query ratio of the two norms is
# {eval}`grouped(median_ratio)`.
#
# The gradient is spread as unevenly, over many powers of ten, so the cell reports each ratio
# (scaled over unscaled, query by query) by three percentiles: a tenth of the queries lie below
# the first, half below the second, nine tenths below the third. The norm only bounds the
# gradient; what passes is $J\mathbf g$, for the gradient $\mathbf g = \partial L/\partial
# \mathbf w$ that arrives from above, and the cell gives both softmaxes the same random
# $\mathbf g$. The gradient that reaches the scores is {eval}`pct_s[0]`,
# {eval}`pct_s[1]` and {eval}`pct_s[2]` times smaller unscaled.
#
# The query's gradient shrinks less. In a network the query is made from a token's vector by
# a learned matrix $W_Q$, and the key by another, $W_K$ ([Chapter 5](05_projections.ipynb)), so
# what reaches them reaches $W_Q$ and $W_K$. The scaled score $\mathbf q \cdot \mathbf k /
# \sqrt{d_k}$ hands its gradient on to $\mathbf q$ divided by $\sqrt{d_k} =$
# {eval}`dec(spread_max, 1)`, and the unscaled score does not. The query's ratio has the
# percentiles {eval}`pct_q[0]`, {eval}`pct_q[1]` and
# {eval}`pct_q[2]`: {eval}`percent(share_q_hundred, 0)` of the queries get a
# gradient more than 100 times smaller unscaled, while {eval}`percent(share_q_larger, 0)` get a
# *larger* one (the unsaturated queries, for which the scaled score's $1/\sqrt{d_k}$ costs more
# than saturation does). The keys meet the same factor: key $j$'s gradient is
# $(\partial L/\partial s_j)\,\mathbf q$, so its ratio is exactly the scores' divided by
# $\sqrt{d_k}$, with the percentiles {eval}`pct_k[0]`,
# {eval}`pct_k[1]` and {eval}`pct_k[2]`.
#
# Unscaled, then, the median query's $W_Q$ and $W_K$ get a gradient
# {eval}`median_q_text` times smaller, far less than what the scores lose; but no
# query is typical: {eval}`percent(share_q_hundred, 0)` of them lose more than a factor of 100,
# and {eval}`percent(share_q_larger, 0)` lose nothing. That is the Quanta write-up's "the
# gradient vanishes" (기울기가 사라진다), made concrete. Here the softmax sits inside the
# network, the second of [Chapter 2](02_softmax.ipynb)'s two cases: no cross-entropy follows it
# to cancel the small Jacobian, so the small factor reaches $W_Q$ and $W_K$.
#
# ## One head of the original Transformer
#
# The Quanta write-up then takes $d_k = 64$ "as in a real model" (실제 모델처럼): the width of
# each head's keys in the original Transformer ([Vaswani et al., 2017](references.md)), the
# paper the write-up cites. Here is one random query against a few random keys at that size:

# %%
d_k64, n64 = 64, 3
root_64 = math.sqrt(d_k64)  # the divisor at this width
q64 = rng.standard_normal(d_k64)  # [d_k]
k64 = rng.standard_normal((n64, d_k64))  # [S, d_k]
s64 = ac.dot_scores(q64, k64)  # [S]
w64_plain = ac.attention_weights(q64, k64, scale=1.0)
w64_scaled = ac.attention_weights(q64, k64)  # divided by √d_k
print("√d_k =", plain(root_64))
step_table(
    {
        "score": s64,
        "unscaled weight": w64_plain,
        "scaled weight": w64_scaled,
    },
    index=["key 1", "key 2", "key 3"],
)

# %% [markdown]
# With $d_k =$ {eval}`d_k64` the divisor is $\sqrt{d_k} =$ {eval}`plain(root_64)`.
# The scores {eval}`dec(s64)` of the {eval}`n64` keys give the unscaled weights
# {eval}`dec(w64_plain, sep=" / ")`, against {eval}`dec(w64_scaled, sep=" / ")` once divided.
# One draw proves little; here are many queries, each against its own {eval}`n64` keys:

# %%
n_avg = 20_000  # queries at d_k = 64, each with its own keys
q_avg = rng.standard_normal((n_avg, 1, d_k64))  # [N, 1, d_k]
k_avg = rng.standard_normal((n_avg, n64, d_k64))  # [N, S, d_k]
# each query's largest weight: [N, 1, S] -> [N]
top_plain = ac.attention_weights(q_avg, k_avg, scale=1.0)[:, 0].max(axis=-1)
top_scaled = ac.attention_weights(q_avg, k_avg)[:, 0].max(axis=-1)
mean_top_plain, mean_top_scaled = top_plain.mean(), top_scaled.mean()
near_all = 0.9  # one key takes "(almost) everything" above this weight
share_near_all_plain = np.mean(top_plain > near_all)
share_near_all_scaled = np.mean(top_scaled > near_all)
print("mean largest weight, unscaled:", dec(mean_top_plain), " scaled:", dec(mean_top_scaled))
print(f"largest weight > {near_all}:", percent(share_near_all_plain, 0), "unscaled,")
print("                     ", percent(share_near_all_scaled, 0), "scaled")

# %% [markdown]
# Averaged over {eval}`grouped(n_avg)` queries, the largest of the {eval}`n64` weights is
# {eval}`dec(mean_top_plain)` unscaled and {eval}`dec(mean_top_scaled)` scaled; one key takes
# more than {eval}`plain(near_all)` of the weight for {eval}`percent(share_near_all_plain, 0)`
# of the unscaled queries and {eval}`percent(share_near_all_scaled, 0)` of the scaled ones. At
# this width the scale is the difference between one key taking (almost) everything and a
# real mixture.
#
# ## Try it: the scaling explorer
#
# Move the $d_k$ slider. The histograms show the scores $\mathbf{q} \cdot \mathbf{k}$ of random
# unit-variance vectors without the scale (orange), spreading wider with every doubling of
# $d_k$, and with it (blue), which stay put; the curves show the largest weight and the entropy
# of the softmax against $d_k$, as in {eval}`figures.ref("fig-ch3-saturation")`. Its random
# vectors are drawn (seeded) in Python; the page redraws them in your browser without a kernel.

# %%
figures.show(
    ScalingExplorer(d_k=64, seed=0, n_keys=n_keys),
    "fig-ch3-explorer",
    "Scores of random vectors with (blue) and without (orange) the"
    " 1/√dₖ, and the softmax's largest weight and entropy against dₖ."
    " Move the slider.",
)

# %% [markdown]
# ## Going further: when the assumption fails
#
# The derivation is only as good as its assumption, and nothing keeps the assumption true
# after initialisation. In a network the query is made from a token's vector $\mathbf{x}$ by
# a learned matrix, $\mathbf{q} = \mathbf{x} W_Q$, and the key by another,
# $\mathbf{k} = \mathbf{x} W_K$ ([Chapter 5](05_projections.ipynb)). Layer normalisation
# (층 정규화) rescales the vector $\mathbf{x}$ that enters a layer to mean 0 and variance 1
# (then applies a learned scale and shift), not the query and the key made from it: their size
# depends on the learned matrices $W_Q$ and $W_K$, and drifts as those train. Some models therefore normalise $\mathbf{q}$ and
# $\mathbf{k}$ themselves before the dot product (and before any rotation that encodes
# positions, [Chapter 6](06_positions.ipynb), which keeps their length), a family called QK-norm
# ([Chapter 11](11_modern_attention.ipynb) lists the models that do, and bounds the score it
# leaves). Normalisation fixes their lengths up to a learned gain, not their independence: it
# bounds each score by those gains, but the variance argument above still needs independent
# components, which training breaks.
#
# Nor does training keep $\mathbf{q}$ and $\mathbf{k}$ independent: it aligns each query with
# the keys it should find. For a query and a key that training has aligned, with a fixed
# correlation per component, each product $q_m k_m$ has a mean above 0, the $d_k$ means add
# up, and their score grows like $d_k$ rather than $\sqrt{d_k}$. The maximal-update
# parametrisation (μP), as [Yang et al. (2021)](references.md) apply it to Transformers,
# divides the scores by $d_k$ for that reason, so that the same training settings suit a
# narrow and a wide model. $\sqrt{d_k}$ is the right divisor at
# initialisation, where a network has to start learning, and it is the original Transformer's
# choice; it is not a law for every trained model.
#
# The divisor can also be folded into $W_Q$: dividing every score by $\sqrt{d_k}$ gives the
# same scores as an unscaled model whose $W_Q$ is $\sqrt{d_k}$ times smaller. So the scale is
# a choice about the size of the scores for a given initialisation and learning rate, not a
# new operation; μP's $1/d_k$ is the same kind of choice, made for trained, aligned vectors.
#
# ### Any fixed variance
#
# And a fresh network does not give components of variance 1 either. PyTorch's
# `nn.Linear(d_model, d_k)`, the layer that makes a query of $d_k$ components from an input
# $\mathbf{x}$ of $d_\text{model}$ components, draws its weights and its bias from the
# uniform distribution on $(-b, b)$ with $b = 1/\sqrt{d_\text{model}}$, whose variance is
# $b^2/3$. For an input $\mathbf{x}$ with components of variance 1, each $q_m = \sum_i W_{mi} x_i + b_m$ then has variance
# $d_\text{model} \cdot b^2/3 + b^2/3$:

# %%
d_model = 64  # the width of the input x, components of variance 1
# nn.Linear draws its weights and bias from U(-bound, bound)
bound = 1 / math.sqrt(d_model)
var_uniform = bound**2 / 3  # the variance of U(-b, b) is b²/3
# Σᵢ Var[W_mi x_i] + Var[b_m]
var_q = d_model * var_uniform + var_uniform
# the same by simulation: one layer drawn as nn.Linear draws it
W_init = rng.uniform(-bound, bound, size=(d_model, d_model))
b_init = rng.uniform(-bound, bound, size=d_model)  # [d_k]
x_in = rng.standard_normal((20_000, d_model))  # [N, d_model]
# [N, d_model] @ [d_model, d_k] -> [N, d_k]
q_init = x_in @ W_init.T + b_init
var_q_simulated = q_init.var()
print(f"Var[q_m] = {var_q:.4f}; simulated {var_q_simulated:.4f}")

# %% [markdown]
# So a fresh `nn.Linear` gives components of variance {eval}`dec(var_q)` (simulated:
# {eval}`dec(var_q_simulated)`), close to 1/3, not 1. (That variance is taken over the random
# draw of the layer too: within one fixed layer, the bias gives each component a small nonzero
# mean.) That does not change the conclusion. Redo
# the proof with components of any fixed variance $\sigma^2$ and every step goes through
# except the number: $\mathrm{Var}[\mathbf{q} \cdot \mathbf{k}]$ is still $d_k$ times the
# variance of one product (an exercise below asks for it), so the spread still grows like
# $\sqrt{d_k}$, and dividing by $\sqrt{d_k}$ still makes it the same for every $d_k$, only
# not exactly 1. What the divisor removes is the growth with the dimension, whatever the
# initialisation's scale.

# %% [markdown]
# ## Going further: heads, one scale each
#
# Real models do not compute one attention over a token's whole vector of $d_\text{model}$
# features. Multi-head attention makes $h$ queries, keys and values per token, one per head,
# each with $d_\text{head}$ features, and each head computes the scaled attention of
# {eq}`eq-sdpa` on its own. Its scores are dot products of $d_\text{head}$ components, so there
# $d_k = d_\text{head}$ and the divisor is the square root of one head's width. The original
# Transformer cut the $d_\text{model}$ features into $h$ slices, $d_\text{head} =
# d_\text{model}/h$, and many models still do; others choose the head width separately, and a
# few take the divisor from a setting of their own. The published configurations of three
# models (the original's from its paper; Qwen3-0.6B's `hidden_size`, heads and `head_dim`;
# Gemma 2 27B's, and its `query_pre_attn_scalar`):

# %%
configs = {  # d_model, heads h, head width, the number whose square root divides the scores
    "Transformer (2017)": (512, 8, 64, 64),
    "Qwen3-0.6B": (1024, 16, 128, 128),
    "Gemma 2 27B": (4608, 32, 128, 144),
}
for name, (d_model, h, d_head, divided_by) in configs.items():
    print(f"{name}: d_model/h = {d_model // h}, head width {d_head}, scores / √{divided_by}")

# %% [markdown]
# Qwen3-0.6B's heads are wider than $d_\text{model}/h$, and each divides by the square root of
# its own width; Gemma 2 27B's `query_pre_attn_scalar` is its $d_\text{model}/h$, not its head
# width, and the Hugging Face Transformers code scales its scores by one over its square root.
# Dividing by $\sqrt{d_\text{model}}$ instead of the head's width is a common bug that runs
# silently and flattens every head. [Chapter 7](07_heads_and_masks.ipynb), on
# multi-head attention and masks, follows the split's shapes step by step and measures that
# bug.
#
# ## Summary
#
# - For independent components with mean 0 and variance 1, $\mathbf{q} \cdot \mathbf{k}$ has
#   mean 0 and variance $d_k$: its typical size grows like $\sqrt{d_k}$; the simulation
#   agrees ({eval}`figures.ref("fig-ch3-variance")`).
# - Dividing by $\sqrt{d_k}$ brings the variance back to 1 for every $d_k$, and for large
#   $d_k$ the scaled scores are close to the standard normal distribution.
# - The argument is the Transformer paper's (footnote 4). Dividing by $\sqrt{d_k}$ is a softmax
#   at temperature $T = \sqrt{d_k}$.
# - Unscaled scores at large $d_k$ saturate the softmax: one key takes nearly all the weight,
#   the entropy collapses and, for most queries, the Jacobian's norm, which bounds the gradient
#   that reaches the scores, all but vanishes ({eval}`figures.ref("fig-ch3-saturation")`). After
#   the scaled model's own $1/\sqrt{d_k}$, the gradient that reaches $W_Q$ and $W_K$ is
#   {eval}`median_q_text` times smaller for the median query, over 100 times smaller
#   for {eval}`percent(share_q_hundred, 0)` of the queries, and larger for
#   {eval}`percent(share_q_larger, 0)`.
# - *Going further:* the argument holds for components of any fixed variance, such as the 1/3
#   of a fresh `nn.Linear`: the divisor removes the growth with $d_k$, not the scale.
# - *Going further:* the argument needs independent queries and keys, as at initialisation. Layer normalisation
#   does not guarantee it; QK-norm, which normalises $\mathbf{q}$ and $\mathbf{k}$ themselves,
#   fixes their lengths (up to a learned gain), not their independence. μP divides by $d_k$
#   because training aligns them.
# - *Going further:* in multi-head attention $d_k$ is the width of one head's queries and
#   keys: often $d_\text{model}/h$, but many recent models choose it separately, and a few set
#   the divisor from a configuration value.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} The spread of the scores, by hand
# :label: ex-ch3-spread-by-hand
#
# A head's queries and keys have $d_k =$ {eval}`ch3.spread_by_hand.inputs[0]` independent
# components (the cell below prints it too), each with mean 0 and variance 1. Without a
# computer, give the *standard deviation* of $\mathbf{q} \cdot \mathbf{k}$ and of
# $\mathbf{q} \cdot \mathbf{k} / \sqrt{d_k}$, as a list of two numbers.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The proposition gives the variances; the standard deviation is a square root.
# ```

# %%
(d_k_ex,) = ch3.spread_by_hand.inputs
print("d_k =", d_k_ex)
answer = ...  # [std of q·k, std of q·k/√d_k]
ch3.spread_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch3-spread-by-hand
# :class: dropdown
#
# The variances are $d_k$ and 1 (equations {eq}`eq-dot-variance` and
# {eq}`eq-scaled-variance`); their square roots are the answer: the square root of
# $d_k =$ {eval}`d_k_ex` is {eval}`plain(ch3.spread_by_hand.solution[0])` for
# $\mathbf q \cdot \mathbf k$, and {eval}`plain(ch3.spread_by_hand.solution[1])` once scaled.
# The simulation agrees:
#
# ```python
# answer = [math.sqrt(d_k_ex), 1.0]
# q_ex = rng.standard_normal((n_pairs, d_k_ex))  # [N, d_k]
# k_ex = rng.standard_normal((n_pairs, d_k_ex))  # [N, d_k]
# dots_ex = (q_ex * k_ex).sum(-1)  # [N]
# simulated = [dots_ex.std(), (dots_ex / math.sqrt(d_k_ex)).std()]
# print("by hand:  ", answer)
# print("simulated:", np.round(simulated, 2))
# ch3.spread_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Derive, then compute: the gap between two keys
# :label: ex-ch3-gap-of-two-keys
#
# By the ratio rule of [Chapter 2](02_softmax.ipynb), what decides how two keys share the
# weight is the *gap* between their scores, $\mathbf{q}\cdot\mathbf{k}_1 -
# \mathbf{q}\cdot\mathbf{k}_2$. Take one query and two keys, all three with independent
# components of mean 0 and variance 1, and no scale. First prove that the two scores are
# uncorrelated, although they share the query. Then find the $d_k$ at which the standard
# deviation of the gap equals the number printed by the cell below.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $\mathrm{Var}[s_1 - s_2] = \mathrm{Var}[s_1] + \mathrm{Var}[s_2] - 2\,\mathrm{Cov}[s_1, s_2]$.
# For the covariance, expand $\mathbb{E}[s_1 s_2] = \sum_m \sum_n \mathbb{E}[q_m q_n k_{1m}
# k_{2n}]$ and use the independence of the keys.
# ```

# %%
(gap_std,) = ch3.gap_of_two_keys.inputs
print("standard deviation of the gap:", gap_std)
answer = ...  # your d_k, a number
ch3.gap_of_two_keys.check(answer)

# %% [markdown]
# ````{solution} ex-ch3-gap-of-two-keys
# :class: dropdown
#
# **Uncorrelated.** Both scores have mean 0, so
# $\mathrm{Cov}[s_1, s_2] = \mathbb{E}[s_1 s_2] = \sum_{m,n} \mathbb{E}[q_m q_n]\,
# \mathbb{E}[k_{1m}]\,\mathbb{E}[k_{2n}] = 0$, since the two keys are independent of each
# other and of the query, with mean 0. (They are not independent: a long query makes both
# scores large in size. Uncorrelated is all the variance needs.)
#
# **The gap.** So $\mathrm{Var}[s_1 - s_2] = d_k + d_k = 2 d_k$ by equation
# {eq}`eq-dot-variance`, and its standard deviation is $\sqrt{2 d_k}$. Setting
# $\sqrt{2 d_k}$ equal to the number asked for and solving, $d_k$ is its square over 2. Each
# unit of gap multiplies a weight ratio by $e$, so a typical gap that large means that one of
# two keys takes all but a tiny share: the saturation measured above.
#
# ```python
# answer = gap_std**2 / 2  # sqrt(2 d_k) = gap_std
# d = int(answer)
# q_s, k1_s, k2_s = (rng.standard_normal((n_pairs, d)) for _ in range(3))
# s1, s2 = (q_s * k1_s).sum(-1), (q_s * k2_s).sum(-1)  # one query, two keys
# print("d_k =", answer, "  spread of the gap:", (s1 - s2).std().round(2))
# print("correlation of s1 and s2:", np.corrcoef(s1, s2)[0, 1].round(3))
# ch3.gap_of_two_keys.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Prove it again: components of variance σ²
# :label: ex-ch3-variance-with-sigma
#
# The proposition assumed components of variance 1. Suppose instead that every $q_m$ and $k_m$
# is independent with mean 0 and variance $\sigma^2$: 1/3 for a fresh `nn.Linear`, as above,
# or larger once training has grown $W_Q$ and $W_K$. What is $\mathrm{Var}[\mathbf{q} \cdot \mathbf{k}]$ in terms of $d_k$
# and $\sigma$? Give its value for $d_k =$ {eval}`ch3.variance_with_sigma.inputs[0]` and
# $\sigma^2 =$ {eval}`plain(ch3.variance_with_sigma.inputs[1])` (the cell below prints them
# too).
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Redo the proof step by step. Only one step changes: $\mathbb{E}[q_m^2]$ is no longer 1.
# ```

# %%
d_k_sigma, sigma_sq = ch3.variance_with_sigma.inputs
print("d_k =", d_k_sigma, "  σ² =", sigma_sq)
answer = ...  # Var[q·k], one number
ch3.variance_with_sigma.check(answer)

# %% [markdown]
# ````{solution} ex-ch3-variance-with-sigma
# :class: dropdown
#
# The mean is still 0. In the step "one term", $\mathbb{E}[q_m^2] = \mathbb{E}[k_m^2] =
# \sigma^2$, so $\mathrm{Var}[q_m k_m] = \sigma^2 \cdot \sigma^2 = \sigma^4$, and the
# $d_k$ independent terms add up to $\mathrm{Var}[\mathbf{q} \cdot \mathbf{k}] = d_k
# \sigma^4$: here {eval}`d_k_sigma` × {eval}`plain(sigma_sq)`² =
# {eval}`plain(ch3.variance_with_sigma.solution)`. Dividing by $\sqrt{d_k}$ leaves
# $\sigma^4$, not 1: the scale undoes the growth with $d_k$, not the growth of $\mathbf{q}$ and $\mathbf{k}$, which is what QK-norm is for.
# Multiplying both vectors by $\sigma$ multiplies every score by $\sigma^2$, so a simulation
# can reuse the standard-normal dot products:
#
# ```python
# answer = d_k_sigma * sigma_sq**2  # d_k σ⁴
# q_unit = rng.standard_normal((n_pairs, d_k_sigma))  # [N, d_k], variance 1
# k_unit = rng.standard_normal((n_pairs, d_k_sigma))
# scores = sigma_sq * (q_unit * k_unit).sum(-1)  # σ² times the unit-variance scores
# simulated = round(float(scores.var()), 1)
# print("by hand:", answer, "  simulated:", simulated)
# ch3.variance_with_sigma.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the scaled attention weights
# :label: ex-ch3-my-weights
#
# Write `my_weights(q, k)` with plain NumPy (no `attn_core`): the weights
# $\mathrm{softmax}(Q K^\top / \sqrt{d_k})$ of equation {eq}`eq-sdpa`, for queries of shape
# $(\dots, L, d_k)$ and keys of shape $(\dots, S, d_k)$, as an array $(\dots, L, S)$. The check
# tries the worked example, a matrix, a batch, and very large scores.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Three steps: the scores with `@` and `np.swapaxes` (never `.T` on a batch), the division by
# `math.sqrt(q.shape[-1])`, and the stable softmax of [Chapter 2](02_softmax.ipynb) over the
# last axis.
# ```


# %%
def my_weights(q, k): ...  # your code here


ch3.my_weights.check(my_weights)

# %% [markdown]
# ````{solution} ex-ch3-my-weights
# :class: dropdown
#
# Scores, scale, then a softmax that subtracts each row's largest score before `np.exp`:
#
# ```python
# def my_weights(q, k):
#     # [..., L, d_k] @ [..., d_k, S] -> [..., L, S], scaled
#     scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
#     e = np.exp(scores - scores.max(axis=-1, keepdims=True))
#     return e / e.sum(axis=-1, keepdims=True)  # each row sums to 1
#
#
# ch3.my_weights.check(my_weights)
# ```
# ````
