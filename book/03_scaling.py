# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# (ch-scaling)=
# # Why divide by √dₖ (스케일링)
#
# The attention of "Attention Is All You Need" {cite}`vaswani2017` is *scaled* dot-product
# attention (스케일 내적 어텐션):
#
# $$
# \mathrm{Attention}(Q, K, V)
#   = \mathrm{softmax}\!\left(\frac{1}{\sqrt{d_k}}\, Q K^\top\right) V ,
# $$ (eq-sdpa)
#
# where $K^\top$ is the transpose (전치) of the matrix of keys and $d_k$ is the
# dimension (차원) of the query (쿼리) and key (키) vectors. The previous
# chapter showed that the *size* of the scores decides how peaked the softmax (소프트맥스) is.
# This chapter shows why dot products grow with the dimension, and why $\sqrt{d_k}$ is exactly
# the right divisor.
#
# After this chapter you will be able to:
#
# - derive the mean (평균) and the variance (분산) of a dot product (내적) of random vectors;
# - check the derivation by simulation, and read the plot;
# - say what unscaled scores do to softmax: saturation, entropy collapse, vanishing gradients;
# - reproduce the seed article's numbers;
# - split vectors into heads, follow their shapes, and spot the bug of scaling by the model
#   width $d_\text{model}$ instead of the width of one head.
#
# New terms: mean (평균), variance (분산), standard deviation (표준편차), entropy (엔트로피),
# saturation (포화), head (헤드), multi-head attention (멀티 헤드 어텐션), model width (모델 차원).

# %%
import math

import attn_core as ac
import matplotlib.pyplot as plt
import numpy as np
from attn_book import plots
from attn_book.exercises import bugs
from attn_book.exercises import ch03_scaling as ch3
from attn_book.prose import glue_hidden, three_decimals, vector
from attn_book.widgets import ScalingExplorer
from attn_core import stats

# every random number of this chapter comes from this generator
rng = np.random.default_rng(3)


# %% [markdown]
# ## The seed's example, with and without the scale
#
# Take the seed article's query $\mathbf{q}$ = {glue:text}`ch3_seed_query` and keys
# {glue:text}`ch3_seed_keys` again, so $d_k =$ {glue:text}`ch3_seed_dk`. `ac.attention_weights`
# divides by $\sqrt{d_k}$ unless told otherwise; `scale=1.0` switches the division off.

# %%
example = ac.seed_example()
d_k = example.query.shape[-1]
w_plain = ac.attention_weights(example.query, example.keys, scale=1.0)
# the default scale is 1/√d_k
w_scaled = ac.attention_weights(example.query, example.keys)
glue_hidden("ch3_seed_query", vector(example.query))
glue_hidden("ch3_seed_keys", ", ".join(vector(k) for k in example.keys))
glue_hidden("ch3_seed_dk", d_k)
glue_hidden("ch3_seed_sqrt", math.sqrt(d_k))
glue_hidden("ch3_seed_plain", three_decimals(w_plain, " / "))
glue_hidden("ch3_seed_scaled", three_decimals(w_scaled, " / "))
print("unscaled:          ", w_plain.round(3))
print(f"scaled by √{d_k} = {math.sqrt(d_k):.3f}:", w_scaled.round(3))

# %% [markdown]
# Without the scale the weights are {glue:text}`ch3_seed_plain`; divided by
# $\sqrt{d_k} \approx$ {glue:text}`ch3_seed_sqrt:.3f` they are {glue:text}`ch3_seed_scaled`. Even at
# $d_k =$ {glue:text}`ch3_seed_dk` the unscaled weights are more extreme. The seed's point is that
# real models use far larger $d_k$, where the difference is far larger. Why?
#
# ## The derivation
#
# Model the components of a query and a key as random: each $q_m$ and $k_m$ is independent of
# the others, with mean 0 and variance 1. This is roughly what a freshly initialised network
# produces, and what layer normalisation tries to keep.
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
# So the typical size of an unscaled score, its standard deviation (표준편차), is $\sqrt{d_k}$: it
# grows with the dimension, and dividing by exactly $\sqrt{d_k}$ (not $d_k$, not $\log d_k$) brings
# it back to 1 whatever the dimension.
#
# ## Checked by simulation
#
# `attn_core.stats.random_dot_products` draws pairs of standard-normal vectors and returns their
# dot products; `score_variance` measures the sample variance for each dimension. If the
# derivation is right, the unscaled variance follows $d_k$ and the scaled one stays at 1.

# %%
d_ks = 2 ** np.arange(10)  # 1, 2, 4, ..., 512
n_pairs = 20_000
var_plain = stats.score_variance(d_ks, n_pairs, rng)
var_scaled = stats.score_variance(d_ks, n_pairs, rng, scaled=True)
glue_hidden("ch3_n_pairs", n_pairs)
glue_hidden("ch3_dk_min", int(d_ks[0]))
glue_hidden("ch3_dk_max", int(d_ks[-1]))
glue_hidden("ch3_n_dims", len(d_ks))
glue_hidden("ch3_var_plain_max", float(var_plain[-1]))
glue_hidden("ch3_var_scaled_max", float(var_scaled[-1]))
# the largest relative errors: simulated against d_k, and against 1
glue_hidden("ch3_worst_rel", float(np.max(np.abs(var_plain / d_ks - 1))))
glue_hidden("ch3_worst_scaled", float(np.max(np.abs(var_scaled - 1))))
print(" d_k   Var[q·k]  Var[q·k/√d_k]")
for d, vp, vs in zip(d_ks, var_plain, var_scaled, strict=True):
    print(f"{d:4d}  {vp:8.2f}  {vs:8.3f}")

# %% tags=["remove-input"]
fig = plots.plot_score_variance(d_ks, var_plain, var_scaled)
glue_hidden("fig-ch3-variance", fig)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig-ch3-variance
# :name: fig-ch3-variance
#
# Sample variance of {glue:text}`ch3_n_pairs:,` dot products of random vectors for each $d_k$
# from {glue:text}`ch3_dk_min` to {glue:text}`ch3_dk_max`. Unscaled (circles) it follows the line $d_k$ of equation
# {eq}`eq-dot-variance`; divided by $\sqrt{d_k}$ (squares) it stays at 1, equation
# {eq}`eq-scaled-variance`. Both axes are logarithmic.
# ```
#
# At $d_k =$ {glue:text}`ch3_dk_max` the unscaled variance is {glue:text}`ch3_var_plain_max:.1f`
# and the scaled one {glue:text}`ch3_var_scaled_max:.3f`. Over all {glue:text}`ch3_n_dims`
# dimensions the simulated variance is never more than {glue:text}`ch3_worst_rel:.1%` from $d_k$,
# and the scaled one never
# more than {glue:text}`ch3_worst_scaled:.1%` from 1: sampling noise of the size expected from
# {glue:text}`ch3_n_pairs:,` draws.
#
# ## What a large spread does to softmax
#
# A standard deviation of $\sqrt{d_k}$, about {glue:text}`ch3_sat_sqrt_max:.1f` at
# $d_k =$ {glue:text}`ch3_dk_max`, means that two keys' scores typically differ
# by tens of units. By the ratio rule of {ref}`ch-softmax`, each unit of lead multiplies a weight
# by $e$, so the best key takes almost everything. Three measures show it, each averaged over
# random queries that each meet their own random keys:
#
# - the **largest weight**: $1/S$ for uniform weights, 1 when one key takes all;
# - the **entropy** (엔트로피) $-\sum_j w_j \log w_j$ (`ac.entropy`): $\log S$ when uniform, 0 when
#   one key takes all;
# - the **norm of the Jacobian** $\mathrm{diag}(w) - ww^\top$ (`ac.softmax_jacobian`), which
#   measures how much a nudge to the scores can still move the weights: 0 when saturated.

# %%
n_keys, n_trials = 16, 500
sat_plain, sat_scaled = (
    stats.saturation_stats(d_ks, n_keys, n_trials, rng, scaled=s)
    for s in (False, True)
)
jac_ratio = sat_scaled.jacobian_norm[-1] / sat_plain.jacobian_norm[-1]
for name, value in [
    ("n_keys", n_keys),
    ("n_trials", n_trials),
    ("uniform", 1 / n_keys),
    ("log_s", math.log(n_keys)),
    ("sqrt_max", math.sqrt(d_ks[-1])),
    ("max_plain", sat_plain.max_weight[-1]),
    ("max_scaled", sat_scaled.max_weight[-1]),
    ("ent_plain", sat_plain.entropy[-1]),
    ("ent_scaled", sat_scaled.entropy[-1]),
    ("jac_plain", sat_plain.jacobian_norm[-1]),
    ("jac_scaled", sat_scaled.jacobian_norm[-1]),
    ("jac_ratio", jac_ratio),
]:
    # .item() turns numpy scalars into Python numbers for glue
    glue_hidden(f"ch3_sat_{name}", np.asarray(value).item())
print(" d_k  largest weight    entropy      ‖Jacobian‖")
print("      (each column: unscaled | scaled)")
rows = zip(d_ks, *sat_plain, *sat_scaled, strict=True)
# largest weight, entropy, Jacobian: unscaled (1), then scaled (2)
for d, m1, e1, j1, m2, e2, j2 in rows:
    print(f"{d:4d}   {m1:.3f} | {m2:.3f}   {e1:.3f} | {e2:.3f}", end="")
    print(f"   {j1:.3f} | {j2:.3f}")

# %% tags=["remove-input"]
fig = plots.plot_saturation(d_ks, sat_plain, sat_scaled, n_keys)
glue_hidden("fig-ch3-saturation", fig)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig-ch3-saturation
# :name: fig-ch3-saturation
#
# One query against {glue:text}`ch3_sat_n_keys` random keys, averaged over
# {glue:text}`ch3_sat_n_trials` queries per $d_k$. Unscaled (circles), the largest weight climbs
# towards 1, the entropy falls towards 0 and the Jacobian's norm shrinks; scaled (squares), all
# three stay where they are at $d_k =$ {glue:text}`ch3_dk_min`. Dotted lines: the uniform weight
# {glue:text}`ch3_sat_uniform:.4f` and the uniform entropy $\log S =$
# {glue:text}`ch3_sat_log_s:.3f`.
# ```
#
# At $d_k =$ {glue:text}`ch3_dk_max`, where the unscaled scores spread by
# $\sqrt{d_k} \approx$ {glue:text}`ch3_sat_sqrt_max:.1f`:
#
# | | unscaled $\mathbf{q} \cdot \mathbf{k}$ | scaled $\mathbf{q} \cdot \mathbf{k} / \sqrt{d_k}$ |
# |---|---|---|
# | largest weight | {glue:text}`ch3_sat_max_plain:.3f` | {glue:text}`ch3_sat_max_scaled:.3f` |
# | entropy (nats) | {glue:text}`ch3_sat_ent_plain:.3f` | {glue:text}`ch3_sat_ent_scaled:.3f` |
# | Jacobian norm | {glue:text}`ch3_sat_jac_plain:.3f` | {glue:text}`ch3_sat_jac_scaled:.3f` |
#
# Unscaled, the softmax is *saturated* (포화): nearly one-hot, its entropy collapsed, and its gradient
# {glue:text}`ch3_sat_jac_ratio:.1f` times weaker than the scaled one. A layer in that state
# barely learns, which is the seed's "the gradient vanishes" made concrete.
#
# ## One head of the original Transformer
#
# The seed article notes that with $d_k =$ {glue:text}`ch3_d64`, the size of one head in the
# original Transformer {cite}`vaswani2017`, the divisor is $\sqrt{d_k} =$
# {glue:text}`ch3_sqrt64:g`. Here is one random query against {glue:text}`ch3_n64` random keys
# at that size:

# %%
d_k64, n64 = 64, 3
q64 = rng.standard_normal(d_k64)
k64 = rng.standard_normal((n64, d_k64))
s64 = ac.dot_scores(q64, k64)
w64_plain = ac.attention_weights(q64, k64, scale=1.0)
w64_scaled = ac.attention_weights(q64, k64)
glue_hidden("ch3_d64", d_k64)
glue_hidden("ch3_n64", n64)
glue_hidden("ch3_sqrt64", math.sqrt(d_k64))
glue_hidden("ch3_s64", ", ".join(f"{s:.1f}" for s in s64))
glue_hidden("ch3_w64_plain", three_decimals(w64_plain, " / "))
glue_hidden("ch3_w64_scaled", three_decimals(w64_scaled, " / "))
print(f"√{d_k64} = {math.sqrt(d_k64):g}")
print("scores          ", s64.round(2))
print("unscaled weights", w64_plain.round(3))
print("scaled weights  ", w64_scaled.round(3))

# %% [markdown]
# The scores {glue:text}`ch3_s64` give the unscaled
# weights {glue:text}`ch3_w64_plain`, against {glue:text}`ch3_w64_scaled` once divided: at
# $d_k =$ {glue:text}`ch3_d64` the scale is the difference between one key taking (almost) everything and a real
# mixture.
#
# ## Many heads, each with its own scale (헤드)
#
# Real models do not compute one attention over the whole vector of $D = d_\text{model}$
# features. Multi-head attention (멀티 헤드 어텐션) cuts every query, key and value vector into
# $H$ heads (헤드) of $d_\text{head} = D / H$ features each, and every head computes its own
# scaled attention, in parallel, over its own slice. The split is a reshape followed by a swap of
# two axes, as in nanoGPT. Follow the shapes for a sequence of $L$ positions (in
# self-attention every position is both a query and a key, so $S = L$; the code, like nanoGPT
# and the notation table of the {doc}`introduction <intro>`, calls that length `T`):

# %%
T, D, H = 4, 8, 2  # positions, model width d_model, heads
x = rng.standard_normal((T, D))  # stands in for projected queries
q_heads = ac.split_heads(x, H)  # the reshape, then the swap
d_head = q_heads.shape[-1]
scores_h = q_heads @ np.swapaxes(q_heads, -1, -2)  # a matrix per head
weights_h = ac.softmax(scores_h / math.sqrt(d_head))  # scale per head
out_h = weights_h @ q_heads  # values = queries here, to keep it short
glue_hidden("ch3_h_T", T)
glue_hidden("ch3_h_D", D)
glue_hidden("ch3_h_H", H)
glue_hidden("ch3_h_dhead", d_head)
steps = [
    ("x", x.shape),
    ("reshape to (T, H, d_head)", x.reshape(T, H, D // H).shape),
    ("swap T and H: split_heads", q_heads.shape),
    ("scores of each head", scores_h.shape),
    ("weights @ values", out_h.shape),
    ("merge_heads", ac.merge_heads(out_h).shape),
]
for name, shape in steps:
    print(f"{name:27s} {shape}")

# %% [markdown]
# With $L =$ {glue:text}`ch3_h_T` positions, $D =$ {glue:text}`ch3_h_D` features and $H =$
# {glue:text}`ch3_h_H` heads, each head sees vectors of $d_\text{head} =$
# {glue:text}`ch3_h_dhead` features: $(L, D)$ becomes $(L, H, d_\text{head})$, then
# $(H, L, d_\text{head})$; each head has its own $L \times L$ scores and weights; the outputs
# $(H, L, d_\text{head})$ are merged back to $(L, D)$ by `ac.merge_heads`, the same two steps in
# reverse. The swap matters: a reshape straight to $(H, L, d_\text{head})$ has the right shape
# but mixes positions into heads (an exercise below). `ac.multi_head_attention` does all of this
# with learnt projections; a later chapter takes it further.
#
# ## A common bug: scaling by the model width
#
# Each head's scores are dot products of $d_\text{head}$-dimensional vectors, so by
# {prf:ref}`prop-dot-variance` their variance is $d_\text{head}$ and the scale must be
# $1/\sqrt{d_\text{head}}$: the $d_k$ of equation {eq}`eq-sdpa` is the width of one head.
# Dividing by $\sqrt{d_\text{model}}$ instead is a common mistake: it runs silently, and makes
# every head's scores $\sqrt{H}$ times too small, a temperature of $\sqrt{H}$ that flattens the
# weights. We measure it on {glue:text}`ch3_bug_trials` queries of one head, each against
# {glue:text}`ch3_sat_n_keys` keys, in two settings: a freshly initialised head (components of
# standard deviation {glue:text}`ch3_bug_std_fresh:g`), and a head whose queries and keys have grown during training (standard
# deviation {glue:text}`ch3_bug_std_trained:g`), whose weights are peaked on purpose.

# %%
d_model, n_heads = 512, 8
n_bug_trials = 500
# the standard deviation of every query and key component
settings = {"fresh": 1.0, "trained": 2.0}
head_stats = {
    name: stats.head_scale_stats(
        d_model, n_heads, n_keys, n_bug_trials, rng, std=std
    )
    for name, std in settings.items()
}
glue_hidden("ch3_bug_dmodel", d_model)
glue_hidden("ch3_bug_h", n_heads)
glue_hidden("ch3_bug_dhead", d_model // n_heads)
glue_hidden("ch3_bug_factor", math.sqrt(n_heads))
glue_hidden("ch3_bug_trials", n_bug_trials)
glue_hidden("ch3_bug_std_fresh", settings["fresh"])
glue_hidden("ch3_bug_std_trained", settings["trained"])
for name, (right, bug) in head_stats.items():
    for which, st in (("right", right), ("bug", bug)):
        key = f"ch3_bug_{name}_{which}"
        glue_hidden(f"{key}_ent", float(st.entropy[0]))
        glue_hidden(f"{key}_max", float(st.max_weight[0]))
print(f"d_model = {d_model}, {n_heads} heads of {d_model // n_heads}")
print("head      scale          largest weight  entropy")
for name, (right, bug) in head_stats.items():
    for label, st in (("1/√d_head", right), ("1/√d_model", bug)):
        print(
            f"{name:8s}  {label:13s}  {st.max_weight[0]:.3f}"
            f"           {st.entropy[0]:.3f}"
        )
print(f"uniform weights: {1 / n_keys:.4f}, entropy {math.log(n_keys):.3f}")

# %% [markdown]
# With $d_\text{model} =$ {glue:text}`ch3_bug_dmodel` and $H =$ {glue:text}`ch3_bug_h` heads of
# $d_\text{head} =$ {glue:text}`ch3_bug_dhead`, the wrong scale makes the scores
# {glue:text}`ch3_bug_factor:.2f` times too small.
#
# | head | scale | largest weight | entropy (nats) |
# |---|---|---|---|
# | fresh | $1/\sqrt{d_\text{head}}$ | {glue:text}`ch3_bug_fresh_right_max:.3f` | {glue:text}`ch3_bug_fresh_right_ent:.3f` |
# | fresh | $1/\sqrt{d_\text{model}}$ (bug) | {glue:text}`ch3_bug_fresh_bug_max:.3f` | {glue:text}`ch3_bug_fresh_bug_ent:.3f` |
# | trained | $1/\sqrt{d_\text{head}}$ | {glue:text}`ch3_bug_trained_right_max:.3f` | {glue:text}`ch3_bug_trained_right_ent:.3f` |
# | trained | $1/\sqrt{d_\text{model}}$ (bug) | {glue:text}`ch3_bug_trained_bug_max:.3f` | {glue:text}`ch3_bug_trained_bug_ent:.3f` |
#
# A fresh head attends almost evenly anyway (uniform weights have entropy $\log S =$
# {glue:text}`ch3_sat_log_s:.3f`), and the bug only pushes it closer to uniform, from
# {glue:text}`ch3_bug_fresh_right_ent:.3f` to {glue:text}`ch3_bug_fresh_bug_ent:.3f`: easy to
# miss. The harm shows once a head has something to say. The trained head puts
# {glue:text}`ch3_bug_trained_right_max:.3f` of its weight on its best key when scaled right;
# with the bug only {glue:text}`ch3_bug_trained_bug_max:.3f`, and its entropy rises from
# {glue:text}`ch3_bug_trained_right_ent:.3f` to {glue:text}`ch3_bug_trained_bug_ent:.3f`. To
# focus as sharply, its queries and keys would have to grow by a further factor
# $\sqrt[4]{H}$ each, which training then has to find. An exercise below asks you to find this
# bug in code.
#
# ## Try it: the scaling explorer
#
# Move the $d_k$ slider. The histograms show the scores $\mathbf{q} \cdot \mathbf{k}$ of random
# unit-variance vectors without the scale (orange), spreading wider with every doubling of $d_k$, and with it
# (blue), which stay put; the curves show the largest weight and the entropy of the softmax
# against $d_k$, as in {numref}`fig-ch3-saturation`. Its random vectors are drawn (seeded) in
# Python; the page redraws them in your browser without a kernel.

# %%
ScalingExplorer(d_k=64, seed=0, n_keys=n_keys)

# %% [markdown]
# ## Summary
#
# - For independent components with mean 0 and variance 1, $\mathbf{q} \cdot \mathbf{k}$ has mean 0
#   and variance $d_k$ ({prf:ref}`prop-dot-variance`): its typical size grows like $\sqrt{d_k}$.
# - Dividing by $\sqrt{d_k}$ brings the variance back to 1 for every $d_k$; the simulation in
#   {numref}`fig-ch3-variance` agrees.
# - Unscaled scores at large $d_k$ saturate the softmax: one key takes nearly all the weight, the
#   entropy collapses and the Jacobian, hence the gradient, vanishes ({numref}`fig-ch3-saturation`).
# - Multi-head attention splits $(L, D)$ into $(H, L, d_\text{head})$ with a reshape and a
#   swap; the scale is per head, $1/\sqrt{d_\text{head}}$ with $d_\text{head} = D/H$, never
#   $1/\sqrt{d_\text{model}}$, which flattens every head.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} The spread of the scores, by hand
# :label: ex-ch3-spread-by-hand
#
# A head's queries and keys have $d_k =$ {glue:text}`ch3_ex1_dk` independent components (the
# cell below prints it too), each with mean 0 and variance 1. Without a computer, give the
# **standard deviation** of $\mathbf{q} \cdot \mathbf{k}$ and of
# $\mathbf{q} \cdot \mathbf{k} / \sqrt{d_k}$, as a list of two numbers.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# {prf:ref}`prop-dot-variance` gives the variances; the standard deviation is a square root.
# ```

# %%
(d_k_ex,) = ch3.spread_by_hand.inputs
print("d_k =", d_k_ex)
answer = ...  # [std of q·k, std of q·k/√d_k]
ch3.spread_by_hand.check(answer)

# %% tags=["remove-cell"]
# the numbers of the exercise's statement, for the text
glue_hidden("ch3_ex1_dk", d_k_ex)

# %% [markdown]
# ```{solution-start} ex-ch3-spread-by-hand
# :class: dropdown
# ```
#
# The variances are $d_k$ and 1 (equations {eq}`eq-dot-variance` and {eq}`eq-scaled-variance`);
# their square roots are the answer. The simulation agrees:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
answer = [math.sqrt(d_k_ex), 1.0]
simulated = [
    stats.random_dot_products(d_k_ex, n_pairs, rng, scaled=s).std()
    for s in (False, True)
]
print("by hand:  ", answer)
print("simulated:", np.round(simulated, 2))
ch3.spread_by_hand.check(answer)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Predict, then run: double the dimension
# :label: ex-ch3-double-d-k
#
# Without the scale, by what factor does the typical size (the standard deviation) of
# $\mathbf{q} \cdot \mathbf{k}$ grow when $d_k$ goes from {glue:text}`ch3_ex2_small` to {glue:text}`ch3_ex2_large`? Answer
# `"×1"`, `"×√2"`, `"×2"` or `"×4"` (`"x√2"` works too).
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-dot-variance` says how the *variance* grows with $d_k$; the standard
# deviation is its square root.
# ```

# %%
d_small, d_large = ch3.double_d_k.inputs
print("d_k:", d_small, "->", d_large)
answer = ...  # "×1", "×√2", "×2" or "×4"
ch3.double_d_k.check(answer)

# %% tags=["remove-cell"]
# the numbers of the exercise's statement, for the text
glue_hidden("ch3_ex2_small", d_small)
glue_hidden("ch3_ex2_large", d_large)

# %% [markdown]
# ```{solution-start} ex-ch3-double-d-k
# :class: dropdown
# ```
#
# The variance doubles with $d_k$, so the standard deviation grows by $\sqrt{2}$. Simulated:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
spread = [
    stats.random_dot_products(d, n_pairs, rng).std()
    for d in (d_small, d_large)
]
print(f"std at d_k={d_small}: {spread[0]:.2f}")
print(f"std at d_k={d_large}: {spread[1]:.2f}")
print(f"ratio {spread[1] / spread[0]:.3f} (√2 = {math.sqrt(2):.3f})")
ch3.double_d_k.check("×√2")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Write the scaled attention weights
# :label: ex-ch3-my-weights
#
# Write `my_weights(q, k)` with plain NumPy (no `attn_core`): the weights
# $\mathrm{softmax}(Q K^\top / \sqrt{d_k})$ of equation {eq}`eq-sdpa`, for queries of shape
# $(\dots, L, d_k)$ and keys of shape $(\dots, S, d_k)$, as an array $(\dots, L, S)$. The check
# tries the seed's example, a matrix, and a batch.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Three steps: the scores with `@` and `np.swapaxes` (never `.T` on a batch), the division by
# `math.sqrt(q.shape[-1])`, and the stable softmax of {ref}`ch-softmax` over the last axis.
# ```


# %%
def my_weights(q, k): ...  # your code here


ch3.my_weights.check(my_weights)

# %% [markdown]
# ```{solution-start} ex-ch3-my-weights
# :class: dropdown
# ```


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def my_weights(q, k):
    # [..., L, E] @ [..., E, S] -> [..., L, S], scaled
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)  # each row sums to 1


ch3.my_weights.check(my_weights)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Find the bug: scaling each head
# :label: ex-ch3-bug-d-model
#
# The function below splits projected queries and keys into heads with `ac.split_heads`, as in
# the section on heads (`T` is the number of positions, `D` the model width, `H` the number of
# heads), and computes each head's weights. It runs without error and its rows sum to 1, yet
# its heads attend too evenly. Copy it as `fixed_head_weights`, fix it, and run the check.
# ```

# %%
bugs.scale_d_model.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# What is the length of the vectors whose dot products make one head's scores: `q.shape[-1]`,
# or `qh.shape[-1]`?
# ```


# %%
def fixed_head_weights(q, k, n_heads):
    raise NotImplementedError  # copy the function above here and fix it


bugs.scale_d_model.check(fixed_head_weights)

# %% [markdown]
#
# ```{solution-start} ex-ch3-bug-d-model
# :class: dropdown
# ```
#
# Each head's scores are dot products of $d_\text{head}$-dimensional vectors, so by
# {prf:ref}`prop-dot-variance` their variance is $d_\text{head}$ and the scale is
# $1/\sqrt{d_\text{head}}$, with $d_\text{head} = D / H$.


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def fixed_head_weights(q, k, n_heads):
    """Each head's weights (..., H, T, T) from q, k (..., T, D)."""
    qh = ac.split_heads(q, n_heads)  # [..., H, T, d_head]
    kh = ac.split_heads(k, n_heads)  # [..., H, T, d_head]
    d_head = qh.shape[-1]  # the length of the vectors each head multiplies
    # [..., H, T, d_head] @ [..., H, d_head, T] -> [..., H, T, T]
    scores = qh @ np.swapaxes(kh, -1, -2) / math.sqrt(d_head)
    return ac.softmax(scores, axis=-1)


bugs.scale_d_model.check(fixed_head_weights)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Find the bug: splitting into heads
# :label: ex-ch3-bug-heads
#
# Before the scale comes the split: $(\dots, L, D)$ becomes $(\dots, H, L, d_\text{head})$,
# each head getting its own slice of every position's features (in the code, `T` positions).
# The function below returns the right shape, but its heads are wrong. Copy it as
# `fixed_split`, fix it, and run the check.
# ```

# %%
bugs.heads_reshape.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Try it on `np.arange(12).reshape(3, 4)` (3 positions, 4 features) with 2 heads. Head 0 should
# hold features 0 and 1 of *every* position. Does it?
# ```


# %%
def fixed_split(x, n_heads):
    raise NotImplementedError  # copy the function above here and fix it


bugs.heads_reshape.check(fixed_split)

# %% [markdown]
#
# ```{solution-start} ex-ch3-bug-heads
# :class: dropdown
# ```
#
# A reshape keeps the numbers in memory order, so reshaping $(L, D)$ straight to
# $(H, L, d_\text{head})$ puts the features of the first positions into head 0. Reshape to
# $(L, H, d_\text{head})$, which cuts each position's features into heads, then swap the
# position and head axes:


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def fixed_split(x, n_heads):
    """Split the features of x (..., T, D) into heads (..., H, T, D/H)."""
    *batch, T, D = x.shape
    x = x.reshape(*batch, T, n_heads, D // n_heads)  # [..., T, H, d_head]
    return np.swapaxes(x, -2, -3)  # [..., H, T, d_head]


print(fixed_split(np.arange(12).reshape(3, 4), 2))
bugs.heads_reshape.check(fixed_split)

# %% [markdown]
# ```{solution-end}
# ```
