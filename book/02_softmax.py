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
# (ch-softmax)=
# # Softmax (소프트맥스)
#
# The dot products (내적) of the last chapter score how well a query (쿼리) matches each key (키).
# Scores can be any real numbers; attention needs *weights* (가중치): positive numbers that sum
# to 1, so that the output is a weighted average of the values (밸류). Softmax turns the one into
# the other.
#
# After this chapter you will be able to:
#
# - compute softmax by hand and say why its outputs are positive, sum to 1 and keep the order;
# - explain why adding a constant to every score changes nothing, but multiplying them does;
# - use the temperature to move between uniform weights and the arg-max;
# - show why the textbook formula overflows, and fix it with the max-subtraction and log-sum-exp;
# - write down the Jacobian of softmax and say why it vanishes when one weight nears 1;
# - hide keys with a mask, a score of $-\infty$.
#
# New terms: exponential (지수 함수), temperature (온도), overflow (오버플로), underflow
# (언더플로), log-sum-exp (로그합지수), Jacobian (야코비 행렬), saturation (포화), mask
# (마스크), entropy (엔트로피).

# %%
import math
import warnings

import attn_core as ac
import matplotlib.pyplot as plt
import numpy as np
from attn_book import plots
from attn_book.exercises import bugs
from attn_book.exercises import ch02_softmax as ch2
from attn_book.prose import glue_hidden, plain, three_decimals, vector
from attn_book.widgets import SoftmaxBars

# every random number of this chapter comes from this generator
rng = np.random.default_rng(2)


# %% [markdown]
# ## The definition
#
# For scores $s_1, \dots, s_S$ (one per key), softmax gives the weights
#
# $$
# w_j = \mathrm{softmax}(s)_j = \frac{e^{s_j}}{\sum_{l=1}^{S} e^{s_l}} .
# $$ (eq-softmax)
#
# Every exponential (지수 함수) $e^{s_j}$ is positive, and dividing by their sum makes them sum
# to 1. The seed example's scores are the dot products of the query $q$ =
# {glue:text}`ch2_seed_query` with the keys {glue:text}`ch2_seed_keys`:

# %%
example = ac.seed_example()
scores = ac.dot_scores(example.query, example.keys)  # [E] @ [E, S] -> [S]
exps = np.exp(scores)  # the numerators of the formula, to follow by hand
weights = ac.softmax(scores)
glue_hidden("ch2_seed_query", vector(example.query))
keys_text = [vector(k) for k in example.keys]
glue_hidden(
    "ch2_seed_keys", ", ".join(keys_text[:-1]) + " and " + keys_text[-1]
)
glue_hidden("ch2_seed_scores", plain(scores))
glue_hidden("ch2_seed_exps", three_decimals(exps))
glue_hidden("ch2_seed_sum", float(exps.sum()))
glue_hidden("ch2_seed_weights", three_decimals(weights))
print("scores      ", scores)
print("exponentials", exps.round(3), " sum", exps.sum().round(3))
print("weights     ", weights.round(3))

# %% [markdown]
# By hand: the exponentials of {glue:text}`ch2_seed_scores` are {glue:text}`ch2_seed_exps`;
# their sum is {glue:text}`ch2_seed_sum:.3f`; dividing gives the weights
# {glue:text}`ch2_seed_weights`. (The seed article first divides the scores by the square root
# of the vectors' dimension and gets different weights; {ref}`ch-scaling` explains why.)
#
# ## Three properties
#
# Softmax's outputs are **positive**, **sum to 1**, and **keep the order** of the scores: a higher
# score always gets a higher weight, because $e^x$ is increasing. Let us check them on random
# scores, including a negative one:

# %%
s = rng.normal(0.0, 2.0, size=6).round(2)
w = ac.softmax(s)
order_kept = bool((np.argsort(s) == np.argsort(w)).all())
glue_hidden("ch2_prop_min", float(w.min()))
glue_hidden("ch2_prop_sum", float(w.sum()))
print("scores ", s)
print("weights", w.round(4))
print(f"smallest weight {w.min():.4f} > 0; sum {w.sum():.6f}")
print(f"same order: {order_kept}")

# %% [markdown]
# The smallest weight, {glue:text}`ch2_prop_min:.4f`, belongs to the smallest score and is still
# positive: softmax never switches a key off completely (only a score of $-\infty$ does; that
# is how a mask works, at the end of this chapter).
#
# ## Shifting changes nothing, scaling does
#
# Adding the same constant $c$ to every score multiplies every exponential by $e^{c}$, numerator
# and denominator alike:
#
# $$
# \mathrm{softmax}(s + c)_j = \frac{e^{c}\,e^{s_j}}{e^{c}\sum_l e^{s_l}} = \mathrm{softmax}(s)_j .
# $$ (eq-shift)
#
# So only the *differences* between scores matter. Multiplying the scores by a factor is another
# matter: it multiplies the differences too.

# %%
c, factor = 100.0, 2.0
shifted = ac.softmax(scores + c)
doubled = ac.softmax(factor * scores)
glue_hidden("ch2_doubled", three_decimals(doubled))
for label, w_row in [
    ("softmax(s)", weights),
    (f"softmax(s + {c:g})", shifted),
    (f"softmax({factor:g} s)", doubled),
]:
    print(f"{label:17s}", w_row.round(3))
print("shifted == plain:", np.allclose(shifted, weights))

# %% [markdown]
# Doubling the scores {glue:text}`ch2_seed_scores` gives weights {glue:text}`ch2_doubled`: the
# keys that already won take even more. This is the whole reason for {ref}`ch-scaling`: the
# *size* of the scores decides how peaked the weights are.
#
# ## The exponential amplifies the largest score
#
# Why not simply divide each score by their sum? Because scores can be negative or zero, and
# because softmax does something more useful: the ratio of two weights is
#
# $$
# \frac{w_i}{w_j} = e^{s_i - s_j},
# $$ (eq-ratio)
#
# so every unit of lead in the score multiplies a key's weight by $e$. The seed article puts it in
# one line: scores that are larger are blown up by the exponential, and the weight concentrates on
# them. Here is softmax beside the plain "÷ sum" normalisation for the scores
# {glue:text}`ch2_s123`:

# %%
s123 = np.array([1.0, 2.0, 3.0])
by_sum = s123 / s123.sum()  # the naive alternative, for comparison only
by_softmax = ac.softmax(s123)
glue_hidden("ch2_s123", plain(s123))
glue_hidden("ch2_lead1", float(np.e))
glue_hidden("ch2_lead2", float(np.exp(2.0)))
glue_hidden("ch2_top_sum", float(by_sum[-1]))
glue_hidden("ch2_top_softmax", float(by_softmax[-1]))
print("÷ sum:  ", by_sum.round(3))
print("softmax:", by_softmax.round(3))

# %% tags=["remove-input"]
fig = plots.plot_weight_bars(
    [f"score {x:g}" for x in s123],
    {"÷ sum": by_sum, "softmax": by_softmax},
)
glue_hidden("fig-ch2-amplify", fig)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig-ch2-amplify
# :name: fig-ch2-amplify
#
# Weights for the scores {glue:text}`ch2_s123`. Dividing by the sum gives the top score
# {glue:text}`ch2_top_sum:.3f`; softmax gives it {glue:text}`ch2_top_softmax:.3f`, because a
# lead of 1 multiplies the weight by $e \approx$ {glue:text}`ch2_lead1:.3f` and a lead of 2 by
# {glue:text}`ch2_lead2:.3f` (equation {eq}`eq-ratio`).
# ```
#
# ## Temperature: from uniform to arg-max
#
# Dividing the scores by a *temperature* (온도) $T > 0$ before the softmax,
#
# $$
# \mathrm{softmax}(s / T)_j = \frac{e^{s_j / T}}{\sum_l e^{s_l / T}},
# $$ (eq-temperature)
#
# turns that amplification up or down. A large $T$ shrinks all differences towards 0 and the
# weights towards uniform, $1/S$; a small $T$ stretches them, and the weight moves entirely to the
# largest score (the arg-max, 최댓값의 위치). `ac.softmax` takes it as `temperature=`.

# %%
s_temp = np.array([2.0, 1.0, 0.5, -1.0])
temperatures = np.logspace(-2, 2, 81)
w_temp = np.array(
    [ac.softmax(s_temp, temperature=t) for t in temperatures]
)  # [N, S]
t_hot, t_cold = temperatures[-1], temperatures[0]
hot = ac.softmax(s_temp, temperature=t_hot)
cold = ac.softmax(s_temp, temperature=t_cold)
glue_hidden("ch2_t_hot", float(t_hot))
glue_hidden("ch2_t_cold", float(t_cold))
glue_hidden("ch2_hot_min", float(hot.min()))
glue_hidden("ch2_hot_max", float(hot.max()))
# the weight left to all but the top score
glue_hidden("ch2_cold_rest", float(np.sort(cold)[:-1].sum()))
glue_hidden("ch2_uniform", float(1 / len(s_temp)))
glue_hidden("ch2_s_temp", plain(s_temp))
print(f"T = {t_hot:g}: ", hot.round(3))
print(f"T = {t_cold:g}:", cold.round(3))

# %% tags=["remove-input"]
labels = [f"s = {x:g}" for x in s_temp]
fig = plots.plot_temperature(temperatures, w_temp, labels)
glue_hidden("fig-ch2-temperature", fig)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig-ch2-temperature
# :name: fig-ch2-temperature
#
# Softmax of the scores {glue:text}`ch2_s_temp` as the temperature goes from {glue:text}`ch2_t_cold:g` to
# {glue:text}`ch2_t_hot:g`. At $T =$ {glue:text}`ch2_t_hot:g` the
# weights lie between {glue:text}`ch2_hot_min:.3f` and {glue:text}`ch2_hot_max:.3f`, close to
# the uniform {glue:text}`ch2_uniform:.2f`; at $T =$ {glue:text}`ch2_t_cold:g` the other keys
# share only {glue:text}`ch2_cold_rest:.0e` of the weight: the arg-max takes everything.
# ```
#
# Dividing the scores by $\sqrt{d_k}$ in attention is exactly a temperature of $\sqrt{d_k}$.
#
# ## When the textbook formula breaks
#
# Equation {eq}`eq-softmax` is correct mathematics and poor arithmetic. Floating-point numbers
# have a largest value, so $e^{x}$ overflows (오버플로) to `inf` once $x$ is large enough. Below
# is the formula typed in literally, **the wrong way**, kept only to watch it fail:


# %%
def naive_softmax(s):
    """The textbook formula, typed in literally. It overflows."""
    e = np.exp(s)
    return e / e.sum()


def show(label, f, x):
    """Print f(x), then the numpy warnings it raised (not on stderr)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            out = f(x)
    print(f"{label} -> {out}")
    for warning in caught:
        print(f"    numpy warning: {warning.message}")


glue_hidden("ch2_f32_max", float(np.log(np.finfo(np.float32).max)))
glue_hidden("ch2_f64_max", float(np.log(np.finfo(np.float64).max)))
shifts = {np.float32: 100.0, np.float64: 1000.0}
glue_hidden("ch2_f32_shift", shifts[np.float32])
glue_hidden("ch2_f32_scores", plain(scores + shifts[np.float32]))
for dtype, shift in shifts.items():
    big = scores.astype(dtype) + dtype(shift)  # the seed's scores, shifted
    print(f"{np.dtype(dtype).name}, scores {big}:")
    show("  naive_softmax", naive_softmax, big)
    show("  ac.softmax   ", lambda x: ac.softmax(x).round(3), big)

# %% [markdown]
# The scores {glue:text}`ch2_f32_scores` are only the seed's scores shifted by
# {glue:text}`ch2_f32_shift:g`, and by equation {eq}`eq-shift` their weights are the same. In
# float32, whose exponentials overflow above {glue:text}`ch2_f32_max:.1f`, the naive formula
# computes `inf / inf` and returns `nan`; float64 lasts until {glue:text}`ch2_f64_max:.1f` and
# then fails the same way. Very negative scores fail the other way: every $e^{s_j}$ underflows
# (언더플로) to 0 and the formula computes `0 / 0`:

# %%
tiny = scores - 1001.0  # the seed's scores, shifted far below zero
show("naive_softmax", naive_softmax, tiny)
show("ac.softmax   ", lambda x: ac.softmax(x).round(3), tiny)

# %% [markdown]
# ### The fix: subtract the maximum
#
# Equation {eq}`eq-shift` is also the cure. Subtract $m = \max_l s_l$ from every score first: the
# result is unchanged, the largest exponent is $e^0 = 1$, so nothing overflows, and the sum is at
# least 1, so it cannot be 0. This is what `ac.softmax` does (and `scipy.special.softmax`, and
# every deep-learning library; {cite}`blanchard2021` analyse its accuracy):
#
# $$
# \mathrm{softmax}(s)_j = \frac{e^{s_j - m}}{\sum_l e^{s_l - m}}, \qquad m = \max_l s_l .
# $$ (eq-stable-softmax)
#
# ### Log-sum-exp
#
# The denominator has its own name. Its logarithm, the *log-sum-exp* (로그합지수), appears wherever
# probabilities are handled as logarithms (the cross-entropy loss, for one), and the same trick
# computes it safely:
#
# $$
# \log \sum_l e^{s_l} = m + \log \sum_l e^{s_l - m}, \qquad
# \log \mathrm{softmax}(s)_j = s_j - \log \sum_l e^{s_l}.
# $$ (eq-logsumexp)

# %%
huge = scores + 999.0  # the seed's scores, shifted far above zero
show("naive log(sum(exp(s)))", lambda x: np.log(np.exp(x).sum()), huge)
print("ac.logsumexp(s)        ->", ac.logsumexp(huge))
print("ac.log_softmax(s)      ->", ac.log_softmax(huge).round(4))
glue_hidden("ch2_lse", float(ac.logsumexp(huge)))
glue_hidden("ch2_huge", plain(huge))

# %% [markdown]
# The log-sum-exp of {glue:text}`ch2_huge` is {glue:text}`ch2_lse:.4f`, a perfectly ordinary number
# that the naive formula cannot reach.
#
# ## The Jacobian, and how it vanishes
#
# A model learns by nudging its scores in the direction the gradient (기울기) says. How much does
# weight $w_i$ move when score $s_j$ moves? Differentiating equation {eq}`eq-softmax`,
#
# $$
# \frac{\partial w_i}{\partial s_j} = w_i\,(\delta_{ij} - w_j), \qquad
# J = \mathrm{diag}(w) - w\,w^{\top},
# $$ (eq-jacobian)
#
# where $\delta_{ij}$ is 1 if $i = j$ and 0 otherwise. This matrix $J$ is the *Jacobian*
# (야코비 행렬) of softmax; `ac.softmax_jacobian` builds it from the
# weights. A check against finite differences, computed from `ac.softmax` alone:

# %%
J = ac.softmax_jacobian(weights)
h = 1e-6
J_numeric = np.array(
    [
        (ac.softmax(scores + h * e) - ac.softmax(scores - h * e)) / (2 * h)
        for e in np.eye(3)
    ]
).T
jac_err = np.abs(J - J_numeric).max()
glue_hidden("ch2_jac_err", float(jac_err))
print(J.round(4))
print(f"largest difference from finite differences: {jac_err:.1e}")

# %% [markdown]
# They agree to {glue:text}`ch2_jac_err:.0e`. Now look at equation {eq}`eq-jacobian` when one
# weight nears 1 and the others near 0: every entry $w_i(\delta_{ij} - w_j)$ has a factor that
# is close to 0. The softmax is *saturated* (포화), and a nudge to any score barely moves any
# weight. Let the top score pull ahead of two others:

# %%
gaps = np.linspace(0.0, 12.0, 49)
zeros = np.zeros_like(gaps)
w_gap = ac.softmax(np.stack([gaps, zeros, zeros], axis=-1))  # [N, 3]
# the Frobenius norm of each Jacobian: [N, 3, 3] -> [N]
jac_norm = np.linalg.norm(ac.softmax_jacobian(w_gap), axis=(-2, -1))
glue_hidden("ch2_jac_at0", float(jac_norm[0]))
glue_hidden("ch2_jac_at12", float(jac_norm[-1]))
glue_hidden("ch2_gap_max", float(gaps[-1]))
glue_hidden("ch2_w_at12", float(w_gap[-1, 0]))
ratio = jac_norm[0] / jac_norm[-1]
ratio = float(f"{ratio:.2g}")  # two significant digits are all that matter
glue_hidden("ch2_jac_ratio", ratio)
print(f"gap 0: norm {jac_norm[0]:.3f}")
print(f"gap {gaps[-1]:g}: norm {jac_norm[-1]:.1e}")
print(f"about {ratio:,.0f} times smaller")

# %% tags=["remove-input"]
fig = plots.plot_jacobian_norm(gaps, jac_norm, w_gap[:, 0])
glue_hidden("fig-ch2-jacobian", fig)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig-ch2-jacobian
# :name: fig-ch2-jacobian
#
# Three scores: one pulls ahead of two zeros by the gap on the horizontal axis. The largest
# weight climbs towards 1 and the Jacobian's norm falls from {glue:text}`ch2_jac_at0:.3f`
# (equal scores) to {glue:text}`ch2_jac_at12:.1e` at a gap of {glue:text}`ch2_gap_max:g`,
# where the top weight is {glue:text}`ch2_w_at12:.5f`.
# ```
#
# At a gap of {glue:text}`ch2_gap_max:g` the gradient flowing through the softmax is about
# {glue:text}`ch2_jac_ratio:,.0f` times weaker than at equal scores. Gaps like that are not
# exotic: the next chapter shows that unscaled dot products of long vectors produce them all
# the time.
#
# ## Try it: softmax bars
#
# Drag a score bar up or down and watch every weight move at once; the temperature slider
# flattens or sharpens them. The *shift* adds the same constant to every score: the stable
# softmax stays put (equation {eq}`eq-shift`), while the naive formula, in the table, breaks
# once the exponentials overflow. The figure runs in your browser, even on the static site.
#
# The widget also shows the *entropy* (엔트로피) of the weights, $H(w) = -\sum_j w_j \log w_j$:
# one number for how spread out they are, $\log S$ when all $S$ weights are equal and 0 when
# one key takes everything. {ref}`ch-scaling` uses it to measure how peaked attention is.

# %%
SoftmaxBars(scores=(2.0, 1.0, 0.1))

# %% [markdown]
# ## Masks: a score of −∞ (마스크)
#
# Sometimes a query must not look at some keys: the padding (패딩) that makes short sentences as
# long as the others in a batch, or, in a model that writes text, the words that come later. A
# *mask* (마스크) marks the keys that may be attended (True = may attend, as in PyTorch), and
# every other key gets the score $-\infty$. Since $e^{-\infty} = 0$, a masked key gets exactly
# zero weight, and the remaining keys share all of it among themselves:

# %%
mask = np.array([True, False, True])  # key 2 is hidden
masked = ac.softmax(np.where(mask, scores, -np.inf))
kept = ac.softmax(scores[mask])  # the softmax of the visible keys alone
glue_hidden("ch2_masked", three_decimals(masked))
glue_hidden("ch2_mask_key", int(np.flatnonzero(~mask)[0]) + 1)
print("scores       ", scores)
print("mask         ", mask)
print("masked scores", np.where(mask, scores, -np.inf))
print("weights      ", masked.round(3))
print(
    "same as the softmax of the visible keys:",
    np.allclose(masked[mask], kept),
)

# %% [markdown]
# Key {glue:text}`ch2_mask_key` gets no weight, and the weights become
# {glue:text}`ch2_masked`. What if a row's keys are *all* masked, say a query that belongs to
# padding itself? Then every exponential is 0 and equation {eq}`eq-softmax` reads $0/0$. There
# is no right answer to attend to, so `ac.softmax` gives such a row all zeros, as PyTorch's
# attention does: that query's output is then zero, not NaN.

# %%
nothing = np.zeros(scores.shape, dtype=bool)  # every key hidden
all_masked = ac.softmax(np.where(nothing, scores, -np.inf))
print("weights of a fully masked row:", all_masked)

# %% [markdown]
# Many tutorials write a large negative number instead of $-\infty$; {numref}`ex-ch2-bug-mask`
# shows what that does to a fully masked row. `ac.attention_weights` takes the mask as
# `attn_mask=`; `ac.padding_mask` and `ac.causal_mask` build the two usual masks.
#
# ## Summary
#
# - Softmax, equation {eq}`eq-softmax`, turns any scores into positive weights that sum to 1 and
#   keep the order of the scores.
# - Only differences between scores matter (equation {eq}`eq-shift`); multiplying the scores by a
#   factor, or dividing by a temperature, makes the weights more or less peaked.
# - The exponential turns every unit of lead into a factor $e$ (equation {eq}`eq-ratio`), which
#   concentrates the weight on the best-matching keys.
# - The literal formula overflows (in float32 for scores above {glue:text}`ch2_f32_max:.1f`) and
#   underflows; subtracting the
#   maximum (equation {eq}`eq-stable-softmax`) and computing log-sum-exp the same way fixes both.
# - The Jacobian $\mathrm{diag}(w) - ww^\top$ vanishes as one weight nears 1: a saturated softmax
#   stops learning.
# - A mask sets hidden keys' scores to $-\infty$, which gives them zero weight; a fully masked
#   row gets zeros.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} Softmax of large scores, by hand
# :label: ex-ch2-shift-by-hand
#
# Without a computer, find the softmax of the three scores {glue:text}`ch2_ex1_scores` (the
# cell below prints them), to three decimals. You will need $e^{-1} \approx$
# {glue:text}`ch2_ex1_e:.3f`, and nothing larger.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-shift`: subtract the largest score from all three first. Which exponentials
# are left?
# ```

# %%
(s_ex,) = ch2.shift_by_hand.inputs
print("scores =", s_ex, f"  e^-1 = {math.exp(-1):.3f}")
answer = ...  # your three weights, e.g. [0.0, 0.0, 0.0]
ch2.shift_by_hand.check(answer)

# %% tags=["remove-cell"]
# the numbers of the exercise's statement, for the text
glue_hidden("ch2_ex1_scores", plain(s_ex))
glue_hidden("ch2_ex1_e", round(math.exp(-1), 3))
glue_hidden("ch2_ex1_left", plain(s_ex - s_ex.max()))

# %% [markdown]
# ```{solution-start} ex-ch2-shift-by-hand
# :class: dropdown
# ```
#
# Subtracting the largest score leaves {glue:text}`ch2_ex1_left`, whose exponentials are $1$,
# $e^{-1}$, $e^{-1}$; divide each by their sum:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
e_minus_1 = round(math.exp(-1), 3)  # e^-1 to three decimals, as given
exps_by_hand = [1.0, e_minus_1, e_minus_1]  # e^0, e^-1, e^-1
total = sum(exps_by_hand)
answer = [round(x / total, 3) for x in exps_by_hand]
print(f"sum of the exponentials = {total:.3f}, weights = {answer}")
ch2.shift_by_hand.check(answer)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Predict, then run: double every score
# :label: ex-ch2-double
#
# Double every score printed below. Does the largest weight go `"up"`, `"down"`,
# or stay the `"same"`? Answer first; the solution runs it.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# By equation {eq}`eq-ratio`, the ratio of two weights is $e^{s_i - s_j}$. What happens to each
# gap $s_i - s_j$ when every score is doubled?
# ```

# %%
(s_double,) = ch2.double_the_scores.inputs
print("scores =", s_double)
answer = ...  # "up", "down" or "same"
ch2.double_the_scores.check(answer)

# %% [markdown]
# ```{solution-start} ex-ch2-double
# :class: dropdown
# ```
#
# Doubling keeps the order but doubles every gap, and by equation {eq}`eq-ratio` every gap is an
# exponent: the leader's weight grows.

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
print("softmax(s)  ", ac.softmax(s_double).round(3))
print("softmax(2 s)", ac.softmax(2 * s_double).round(3))
ch2.double_the_scores.check("up")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Write a softmax that does not overflow
# :label: ex-ch2-my-softmax
#
# Write `my_softmax(scores)` with plain NumPy (no `ac.softmax`): the softmax of `scores`, of
# shape $(\dots, S)$, over its last axis. The check runs it on the seed's scores, on a matrix, on
# a batch, and on very large and very negative scores.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-stable-softmax`. `keepdims=True` keeps the max and the sum broadcastable
# against `scores`.
# ```


# %%
def my_softmax(scores): ...  # your code here


ch2.my_softmax.check(my_softmax)

# %% [markdown]
# ```{solution-start} ex-ch2-my-softmax
# :class: dropdown
# ```
#
# Subtract each row's maximum, exponentiate, divide by each row's sum; all along `axis=-1`.


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def my_softmax(scores):
    # [..., S]: every exponent is <= 0, so nothing overflows
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)  # [..., S] / [..., 1]


ch2.my_softmax.check(my_softmax)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Find the bug: masking every key
# :label: ex-ch2-bug-mask
#
# To hide a key (padding, or the future), a colleague replaces its score by $-10^9$ before the
# softmax, as many tutorials do. It looks right on every example they tried. Then a batch arrives
# with a sequence that is *all* padding, so one row has every key masked. Copy the function below
# into the next cell as `fixed_masked_weights`, fix it, and run the check. A row with nothing to
# attend to should get no weight at all (zeros), as in PyTorch and as in the section on masks.
# ```

# %%
bugs.mask_fully_masked.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Run the buggy version on one row whose mask is all `False`. What does $-10^9$ minus the row's
# maximum $-10^9$ give? And what does `ac.softmax` do with a row that is entirely $-\infty$?
# ```


# %%
def fixed_masked_weights(scores, mask):
    raise NotImplementedError  # copy the function above here and fix it


bugs.mask_fully_masked.check(fixed_masked_weights)

# %% [markdown]
# ```{solution-start} ex-ch2-bug-mask
# :class: dropdown
# ```
#
# When every score of a row is $-10^9$, subtracting the maximum leaves zeros and the row gets
# $1/S$ each: it attends to padding. Use $-\infty$, a true "no weight", and a softmax that gives
# a fully $-\infty$ row zeros instead of NaN; `ac.softmax` is one.


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def fixed_masked_weights(scores, mask):
    """Weights (..., L, S) over the keys; mask: True = may attend."""
    # a hidden key can get no weight at all
    scores = np.where(mask, scores, -np.inf)
    return ac.softmax(scores, axis=-1)  # a fully -inf row gets zeros


bugs.mask_fully_masked.check(fixed_masked_weights)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Find the bug: softmax over the wrong axis
# :label: ex-ch2-bug-axis
#
# The function below should turn a matrix of scores, one row per query and one column per key,
# into weights whose **rows** sum to 1. Copy it as `fixed_softmax_rows`, fix it, and run the check.
# ```

# %%
bugs.softmax_wrong_axis.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print `softmax_rows(scores).sum(axis=-1)` for a $3 \times 4$ matrix of scores. Which axis
# holds the keys, and does the answer change for a batch of shape $(B, L, S)$?
# ```


# %%
def fixed_softmax_rows(scores):
    raise NotImplementedError  # copy the function above here and fix it


bugs.softmax_wrong_axis.check(fixed_softmax_rows)

# %% [markdown]
#
# ```{solution-start} ex-ch2-bug-axis
# :class: dropdown
# ```
#
# `axis=0` normalises each *column*: each key's weights over the queries. The keys are the last
# axis, so `axis=-1`, which also stays right when batch axes are added in front.


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def fixed_softmax_rows(scores):
    """Weights (..., L, S): softmax over the keys, the last axis."""
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


bugs.softmax_wrong_axis.check(fixed_softmax_rows)

# %% [markdown]
# ```{solution-end}
# ```
