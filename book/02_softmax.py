# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (ch-softmax)=
# # Softmax (소프트맥스)
#
# The dot products (내적) of [Chapter 1](01_dot_product.ipynb) score how well a query (쿼리)
# matches each key (키). Scores can be any real numbers; attention needs *weights* (가중치):
# positive numbers that sum to 1, so that the output is a weighted average of the values
# (밸류). Softmax turns the one into the other.
#
# After this chapter you will be able to:
#
# - compute softmax by hand and say why its outputs are positive, sum to 1 and keep the order;
# - explain why adding a constant to every score changes nothing, but multiplying them does;
# - use the temperature to move between uniform weights and the arg-max;
# - show why the textbook formula overflows, and fix it with the max-subtraction and log-sum-exp;
# - write down the Jacobian of softmax, say why it vanishes when one weight nears 1, and why
#   softmax followed by the cross-entropy loss still learns;
# - hide keys with a mask, a score of $-\infty$.
#
# New terms: probability distribution, exponential, temperature, overflow, underflow,
# log-sum-exp, Jacobian, saturation, cross-entropy, entropy, mask.

# %%
import math
import warnings

import attn_core as ac
import numpy as np
from attn_book import plots
from attn_book.exercises import ch02_softmax as ch2
from attn_book.figures import Figures
from attn_book.prose import dec, grouped, plain, sci
from attn_book.tables import step_table
from attn_book.widgets import SoftmaxBars

figures = Figures(chapter=2)
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
# to 1. Positive numbers that sum to 1 are a probability distribution (확률 분포): here, over
# the keys, each weight saying what share of the attention its key gets. Here is equation
# {eq}`eq-softmax` step by step, on the scores of one query against three keys:

# %%
scores = np.array([2.0, 1.0, 0.1])  # one query's scores against three keys, [S]
exps = np.exp(scores)  # the numerators, [S]
total = exps.sum()  # the denominator
weights = exps / total  # [S], sums to 1
agrees = np.allclose(weights, ac.softmax(scores))
print("same as ac.softmax:", agrees)

# %% tags=["hide-input"]
step_table(
    {"score s": scores, "e^s": exps, "weight": weights},
    index=["k1", "k2", "k3"],
    footer=("sum", {"e^s": total, "weight": weights.sum()}),
)

# %% [markdown]
# By hand: the exponentials of the scores {eval}`plain(scores)` are {eval}`dec(exps)`; their
# sum is {eval}`dec(total)`; dividing gives the weights {eval}`dec(weights)`. `ac.softmax`,
# which the rest of the book uses, agrees: `np.allclose` says {eval}`agrees`. The worked
# example's scores from [Chapter 1](01_dot_product.ipynb) go through the same steps in
# [Chapter 4](04_worked_example.ipynb), by hand, once [Chapter 3](03_scaling.ipynb) has said
# why the Quanta write-up first divides them by the square root of the vectors' dimension.
#
# ## Three properties
#
# Softmax's outputs are *positive*, *sum to 1*, and *keep the order* of the scores: in exact
# arithmetic a higher score always gets a higher weight, because $e^x$ is increasing. Let us
# check them on random scores, including negative ones:

# %%
s = rng.normal(0.0, 2.0, size=6).round(2)
w = ac.softmax(s)
w_sum, w_min = w.sum(), w.min()
order_kept = bool((np.argsort(s) == np.argsort(w)).all())
step_table({"score": s, "weight": w}, digits=4)

# %% [markdown]
# The weights sum to {eval}`dec(w_sum, 6)`, and sorting the scores sorts the weights the same
# way (`order_kept` is {eval}`order_kept`). The smallest weight, {eval}`dec(w_min, 4)`,
# belongs to the smallest score and is still positive: in exact arithmetic softmax never
# switches a key off completely (only a score of $-\infty$ does; that is how a mask works, at
# the end of this chapter). In floating point it can, once $e^{s_j - \max_l s_l}$ is too small
# for the dtype and underflows to 0; two keys that far below the best then both get 0, a tie
# that their scores did not have. How far below the best score must a key be?

# %%
gap_range = np.arange(1.0, 1000.0)  # gaps 1, 2, ..., 999 below the best score
pairs = np.stack([np.zeros_like(gap_range), -gap_range], axis=-1)  # [N, 2]
# the first whole gap at which the lower key's weight is exactly 0, in each dtype
zero_gap32 = gap_range[ac.softmax(pairs.astype(np.float32))[:, 1] == 0][0]
zero_gap64 = gap_range[ac.softmax(pairs)[:, 1] == 0][0]
print("float32:", zero_gap32, "  float64:", zero_gap64)

# %% [markdown]
# A key {eval}`plain(zero_gap32)` below the best gets exactly 0 in float32, and one
# {eval}`plain(zero_gap64)` below in float64: far beyond the gaps of everyday scores, but not
# beyond a mask's "large negative number" such as $-10^9$, whose key gets exactly 0 in both.
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
step_table(
    {
        "softmax(s)": weights,
        f"softmax(s + {c:g})": shifted,
        f"softmax({factor:g}s)": doubled,
    },
    index=["k1", "k2", "k3"],
)

# %% [markdown]
# Shifting by {eval}`plain(c)` changes no weight. Doubling the scores {eval}`plain(scores)`
# gives weights {eval}`dec(doubled)`: the key that already led takes even more, and every other
# key loses. This is the
# whole reason for [Chapter 3](03_scaling.ipynb): the *size* of the scores decides how peaked
# the weights are.
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
# so every unit of lead in the score multiplies a key's weight by $e$. The Quanta write-up puts
# it in one line: scores that are larger are blown up by the exponential, and the weight
# concentrates on them. Here is softmax beside the plain "÷ sum" normalisation, for three
# scores one apart:

# %%
s123 = np.array([1.0, 2.0, 3.0])
by_sum = s123 / s123.sum()  # the naive alternative, for comparison only
by_softmax = ac.softmax(s123)
print("÷ sum:  ", by_sum.round(3))
print("softmax:", by_softmax.round(3))

# %% tags=["hide-input"]
figures.show(
    plots.plot_weight_bars(
        [f"score {x:g}" for x in s123],
        {"÷ sum": by_sum, "softmax": by_softmax},
        exp_of=s123,
    ),
    "fig-ch2-amplify",
    "Left: weights for the scores {s123}. Dividing by the sum gives the top score "
    "{by_sum_top}; softmax gives it {by_softmax_top}, because a lead of 1 "
    "multiplies the weight by e ≈ {e} and a lead of 2 by {e_squared}: "
    "the ratio of two weights is e to the power of their scores' difference. "
    "Right: the curve eˢ, softmax's numerator, at the three scores ({exps}): "
    "each step of 1 along it multiplies the height by e.",
    s123=plain(s123),
    exps=dec(np.exp(s123)),
    by_sum_top=dec(by_sum[-1]),
    by_softmax_top=dec(by_softmax[-1]),
    e=dec(np.e),
    e_squared=dec(np.exp(2.0)),
)

# %% [markdown]
# {eval}`figures.ref("fig-ch2-amplify")` shows the difference: dividing by the sum gives the top
# score {eval}`dec(by_sum[-1])`, softmax gives it {eval}`dec(by_softmax[-1])`.
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
# weights towards uniform, $1/S$; a small $T$ stretches them, and the weight moves entirely to
# the key with the largest score (the arg-max; keys tied for the largest score share the
# weight equally). `ac.softmax` takes it as `temperature=`.

# %%
s_temp = np.array([2.0, 1.0, 0.5, -1.0])
temperatures = np.logspace(-2, 2, 81)
w_temp = np.array([ac.softmax(s_temp, temperature=t) for t in temperatures])  # [N, S]
t_hot, t_cold = temperatures[-1], temperatures[0]
hot = ac.softmax(s_temp, temperature=t_hot)
cold = ac.softmax(s_temp, temperature=t_cold)
hot_min, hot_max = hot.min(), hot.max()
cold_rest = np.sort(cold)[:-1].sum()  # the weight left to all but the top
print(f"T = {t_hot:g}: ", hot.round(3))
print(f"T = {t_cold:g}:", cold.round(3))

# %% tags=["hide-input"]
figures.show(
    plots.plot_temperature(temperatures, w_temp, [f"s = {x:g}" for x in s_temp]),
    "fig-ch2-temperature",
    "Softmax of the scores {s_temp} as the temperature goes from {t_cold} to "
    "{t_hot}. At T = {t_hot} the weights lie between {hot_min} and "
    "{hot_max}, close to the uniform {uniform}; at T = {t_cold} the "
    "other keys share only {cold_rest} of the weight: the arg-max takes "
    "everything.",
    s_temp=plain(s_temp),
    t_cold=f"{t_cold:g}",
    t_hot=f"{t_hot:g}",
    hot_min=dec(hot.min()),
    hot_max=dec(hot.max()),
    uniform=f"{1 / len(s_temp):g}",
    cold_rest=sci(cold_rest),
)

# %% [markdown]
# {eval}`figures.ref("fig-ch2-temperature")` follows the four weights. At $T =$
# {eval}`plain(t_hot)` they lie between {eval}`dec(hot_min)` and {eval}`dec(hot_max)`; at
# $T =$ {eval}`plain(t_cold)` the other keys share {eval}`sci(cold_rest)` of the weight.
# Dividing the scores by $\sqrt{d_k}$ in attention is exactly a temperature of $\sqrt{d_k}$.
#
# ## When the textbook formula breaks
#
# Equation {eq}`eq-softmax` is correct mathematics and poor arithmetic. Floating-point numbers
# have a largest value, so $e^{x}$ overflows (오버플로) to `inf` once $x$ is large enough. Below
# is the formula typed in literally, *the wrong way*, kept only to watch it fail:


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


shifts = {np.float32: 100.0, np.float64: 1000.0}
shift32 = shifts[np.float32]
big32 = scores + shift32  # the float32 case's scores, for the text
# above these, e^x overflows: log of the largest float
exp_limit32 = np.log(np.finfo(np.float32).max)
exp_limit64 = np.log(np.finfo(np.float64).max)
for dtype, shift in shifts.items():
    # the scores above, shifted
    big = scores.astype(dtype) + dtype(shift)
    print(f"{np.dtype(dtype).name}, scores {big}:")
    show("  naive_softmax", naive_softmax, big)
    show("  ac.softmax   ", lambda x: ac.softmax(x).round(3), big)

# %% [markdown]
# The scores {eval}`plain(big32)` are only the scores above shifted by
# {eval}`plain(shift32)`, and by equation {eq}`eq-shift` their weights are the same.
# In float32, whose exponentials overflow above {eval}`dec(exp_limit32, 1)`, the naive formula
# computes `inf / inf` and returns `nan`; float64 lasts until {eval}`dec(exp_limit64, 1)` and then
# fails the same way. Very negative scores fail the other way: every $e^{s_j}$ underflows
# (언더플로) to 0 and the formula computes `0 / 0`:

# %%
tiny = scores - 1001.0  # the scores above, shifted far below zero
show("naive_softmax", naive_softmax, tiny)
show("ac.softmax   ", lambda x: ac.softmax(x).round(3), tiny)

# %% [markdown]
# ### The fix: subtract the maximum
#
# Equation {eq}`eq-shift` is also the cure. Subtract $m = \max_l s_l$ from every score first:
# the result is unchanged, the largest exponent is $e^0 = 1$, so nothing overflows, and the sum
# is at least 1, so it cannot be 0. This is what `ac.softmax` does (and
# `scipy.special.softmax`, and every deep-learning library;
# [Blanchard, Higham and Higham, 2021](references.md) analyse its accuracy):
#
# $$
# \mathrm{softmax}(s)_j = \frac{e^{s_j - m}}{\sum_l e^{s_l - m}}, \qquad m = \max_l s_l .
# $$ (eq-stable-softmax)
#
# In NumPy it is two lines. Here they are on the float32 scores that broke the naive formula:

# %%
s32 = big32.astype(np.float32)  # the float32 scores above, [S]
e32 = np.exp(s32 - s32.max())  # every exponent <= 0: nothing overflows
w_stable = e32 / e32.sum()  # the sum is >= 1: never 0 / 0
print("stable softmax:", w_stable.round(3))
stable_agrees = np.allclose(w_stable, weights)  # the unshifted scores' weights
print("same weights as the scores before the shift:", stable_agrees)

# %% [markdown]
# The two lines give {eval}`dec(w_stable)`, the weights of the unshifted scores
# (`np.allclose` says {eval}`stable_agrees`), where the literal formula gave `nan`. Over the
# last axis of a batch, `max` and `sum` take `axis=-1, keepdims=True`: an exercise at the end
# of the chapter asks for that version.
#
# ### Log-sum-exp
#
# The denominator has its own name. Its logarithm, the *log-sum-exp*, appears
# wherever probabilities are handled as logarithms (the cross-entropy loss, for one), and the
# same trick computes it safely:
#
# $$
# \begin{aligned}
# \log \sum_l e^{s_l} &= m + \log \sum_l e^{s_l - m}, \\
# \log \mathrm{softmax}(s)_j &= s_j - \log \sum_l e^{s_l}.
# \end{aligned}
# $$ (eq-logsumexp)

# %%
huge = scores + 999.0  # the scores above, shifted far above zero
lse_huge = ac.logsumexp(huge)
show("naive log(sum(exp(s)))", lambda x: np.log(np.exp(x).sum()), huge)
print("ac.logsumexp(s)        ->", lse_huge)
print("ac.log_softmax(s)      ->", ac.log_softmax(huge).round(4))

# %% [markdown]
# The log-sum-exp of {eval}`plain(huge)` is {eval}`dec(lse_huge, 4)`, a perfectly
# ordinary number that the naive formula cannot reach.
#
# ## The Jacobian, and how it vanishes
#
# A model learns by nudging its parameters, and through them its scores, against the gradient
# (기울기), the direction in which its loss grows fastest, so that the loss falls. How much does
# weight $w_i$ move when score $s_j$ moves? Differentiating equation {eq}`eq-softmax`,
#
# $$
# \frac{\partial w_i}{\partial s_j} = w_i\,(\delta_{ij} - w_j), \qquad
# J = \mathrm{diag}(w) - w\,w^{\top},
# $$ (eq-jacobian)
#
# where $\delta_{ij}$ is 1 if $i = j$ and 0 otherwise. This matrix $J$ is the *Jacobian*
# (야코비 행렬) of softmax. In NumPy it is one line, from the weights alone; below it is
# checked against `ac.softmax_jacobian`, which builds the same matrix for a batch of rows, and
# against finite differences, computed from `ac.softmax` alone:

# %%
J = np.diag(weights) - np.outer(weights, weights)  # [S, S]: w_i (δ_ij - w_j)
same_as_ac = np.allclose(J, ac.softmax_jacobian(weights))
print("same as ac.softmax_jacobian:", same_as_ac)
h = 1e-6
J_numeric = np.array(
    [(ac.softmax(scores + h * e) - ac.softmax(scores - h * e)) / (2 * h) for e in np.eye(3)]
).T  # column j: how every weight moves with score j
jac_err = np.abs(J - J_numeric).max()  # its last digits are rounding noise; print a bound
tol = 1e-9  # central differences with h = 1e-6 are good to about 1e-10 here
print(J.round(4))
print(f"largest difference from finite differences below {tol:.0e}:", jac_err < tol)

# %% [markdown]
# `ac.softmax_jacobian` agrees ({eval}`same_as_ac`), and so do the finite differences, to
# within {eval}`sci(tol)`. Now look at equation {eq}`eq-jacobian` when one
# weight nears 1 and the others near 0: every entry $w_i(\delta_{ij} - w_j)$ has a factor that
# is close to 0. The softmax is *saturated* (포화), and a nudge to any score barely moves any
# weight. Let the top score pull ahead of two others, and measure the size of the Jacobian by
# its Frobenius norm (the square root of the sum of its squared entries):

# %%
gaps = np.linspace(0.0, 12.0, 49)
zeros = np.zeros_like(gaps)
w_gap = ac.softmax(np.stack([gaps, zeros, zeros], axis=-1))  # [N, 3]
# the Frobenius norm of each Jacobian: [N, 3, 3] -> [N]
jac_norm = np.linalg.norm(ac.softmax_jacobian(w_gap), axis=(-2, -1))
# how many times weaker at the largest gap; two significant digits
weaker = float(f"{jac_norm[0] / jac_norm[-1]:.2g}")
# the largest singular value: the most a gradient can keep through the softmax
jac_gain = np.linalg.norm(ac.softmax_jacobian(w_gap), ord=2, axis=(-2, -1))
weaker_spectral = float(f"{jac_gain[0] / jac_gain[-1]:.2g}")
top_at_last_gap = w_gap[-1, 0]  # the largest weight at the largest gap
print(f"gap 0: norm {jac_norm[0]:.3f}")
print(f"gap {gaps[-1]:g}: norm {jac_norm[-1]:.1e}")
print(f"about {weaker:,.0f} times smaller")

# %% tags=["hide-input"]
figures.show(
    plots.plot_jacobian_norm(gaps, jac_norm, w_gap[:, 0]),
    "fig-ch2-jacobian",
    "Three scores: one pulls ahead of two zeros by the gap on the horizontal "
    "axis. The largest weight (left) climbs towards 1 and the Jacobian's "
    "Frobenius norm (right, on a log axis: the square root of the sum of its "
    "squared entries) falls from {norm_equal} (equal scores) to {norm_last} "
    "at a gap of {gap_last}, about {weaker} times smaller, where the top "
    "weight is {top_weight}.",
    norm_equal=dec(jac_norm[0]),
    norm_last=f"{jac_norm[-1]:.1e}",
    gap_last=f"{gaps[-1]:g}",
    weaker=grouped(weaker),
    top_weight=dec(w_gap[-1, 0], 5),
)

# %% [markdown]
# At a gap of {eval}`plain(gaps[-1])` ({eval}`figures.ref("fig-ch2-jacobian")`) the top weight
# is {eval}`dec(top_at_last_gap, 5)` and the Jacobian's Frobenius norm is about
# {eval}`grouped(weaker)` times smaller than at equal scores (its largest singular value, the
# most any gradient can keep in passing through the softmax, about
# {eval}`grouped(weaker_spectral)` times). Gaps like that are not exotic:
# the next chapter shows that unscaled dot products of long vectors produce them all the time.
# A gap of 1 is another matter: it is a lead, not a landslide, as the first exercise below
# shows.
#
# ### Which saturated softmax stops learning
#
# Whether a vanishing Jacobian stops learning depends on what follows the softmax. At the
# output of a classifier, the softmax is followed by the cross-entropy loss (교차 엔트로피)
# $-\log w_c$ of the correct class $c$, and its gradient with respect to the scores is
#
# $$
# \frac{\partial(-\log w_c)}{\partial s_j} = w_j - y_j ,
# $$ (eq-ce-gradient)
#
# with $y$ the one-hot target ($y_c = 1$, every other $y_j = 0$); proving it takes two lines,
# and is an exercise at the end of the chapter. The Jacobian's small factors are still in
# there, but the logarithm cancels them. A softmax saturated on the *wrong* class gets the
# largest gradient there is, $w_c - 1 \approx -1$ on the correct class's score; saturated on
# the *correct* class, $w - y \approx 0$ and the gradient does vanish, which is fine: there is
# nothing left to learn. Inside a network it is another story. Attention's softmax feeds its
# weights into $\sum_j w_j \mathbf{v}_j$, so the gradient
# $\mathbf{g} = \partial L / \partial w$ that arrives from the layers above carries no $1/w$,
# and what reaches the scores is $J\mathbf{g}$, with $J$ nearly zero. Take the weights at the
# largest gap above, and ask for more weight on the second key, in both settings:

# %%
w_sat = w_gap[-1]  # one weight near 1: [S]
# the target: key 2, which the softmax all but ignores
y = np.array([0.0, 1.0, 0.0])
grad_ce = w_sat - y  # softmax, then cross-entropy: (eq-ce-gradient)
# inside a network: ∂L/∂w from above, negative on w_2, so that descent
# (which moves against the gradient) asks for more of key 2
g = np.array([0.0, -1.0, 0.0])
# the chain rule through J: [S, S] @ [S] -> [S]
grad_inside = ac.softmax_jacobian(w_sat) @ g
# (eq-ce-gradient) checked by central differences of the loss
# -log w_2, that is of -ac.log_softmax(s)[1]
s_sat = np.array([gaps[-1], 0.0, 0.0])
log_w2_minus = np.array([ac.log_softmax(s_sat - h * e)[1] for e in np.eye(3)])
log_w2_plus = np.array([ac.log_softmax(s_sat + h * e)[1] for e in np.eye(3)])
grad_fd = (log_w2_minus - log_w2_plus) / (2 * h)  # of -log w_2
ce_matches = np.allclose(grad_ce, grad_fd, atol=1e-6)
ce_norm = np.linalg.norm(grad_ce)
inside_norm = np.linalg.norm(grad_inside)
# each entry with its own exponent, so that a 6e-06 does not print as 1e-05
print("with cross-entropy, w − y:", np.array2string(grad_ce, formatter={"float": "{:.5g}".format}))
print("    its norm:", dec(ce_norm))
print("inside a network, J g:", np.array2string(grad_inside, formatter={"float": "{:.2g}".format}))
print("    its norm:", sci(inside_norm, 1))
print("w − y agrees with finite differences:", ce_matches)

# %% [markdown]
# With the cross-entropy on top, the scores get a gradient of norm {eval}`dec(ce_norm)`
# (equation {eq}`eq-ce-gradient` agrees with finite differences: {eval}`ce_matches`); through
# the same saturated softmax inside a network they get {eval}`sci(inside_norm, 1)`. So the
# precise statement is: a saturated softmax *inside* a network, such as attention's, passes
# almost no gradient to its scores, and the layers that make those scores hardly learn; a
# softmax at the output, trained with cross-entropy, does not suffer from it.
#
# ## Try it: softmax bars
#
# The bars start from this chapter's three scores. Drag a score bar up or down and watch every
# weight move at once; the temperature slider flattens or sharpens them. The *shift* adds the
# same constant to every score: the stable softmax stays put (equation {eq}`eq-shift`), while
# the naive formula, in the table, breaks once the exponentials overflow. The figure runs in
# your browser, even on the static site.
#
# The widget also shows the *entropy* (엔트로피) of the weights,
# $H(w) = -\sum_j w_j \log w_j$: one number for how spread out they are, $\log S$ when all $S$
# weights are equal and 0 when one key takes everything. [Chapter 3](03_scaling.ipynb) uses it
# to measure how peaked attention is.

# %%
bars = SoftmaxBars(scores=tuple(scores.tolist()))  # this chapter's three scores
figures.show(
    bars,
    "fig-ch2-bars",
    "Softmax bars: drag a score, the temperature or the shift; the"
    " weights, their entropy and the naive formula's result follow.",
)

# %% [markdown]
# ## Masks: a score of −∞
#
# Sometimes a query must not look at some keys: the padding (패딩) that makes short sentences
# as long as the others in a batch, or, in a model that writes text, the words that come later.
# A *mask* (마스크) marks the keys that may be attended, and every other key gets the score
# $-\infty$. Since $e^{-\infty} = 0$, a masked key gets exactly zero weight, and the remaining
# keys share all of it among themselves.
#
# Which way round a boolean mask reads depends on the library, so this book names the API each
# time. `attn_core` follows PyTorch's `torch.nn.functional.scaled_dot_product_attention`:
# True = *may attend*. PyTorch's `torch.nn.MultiheadAttention` reads its boolean `attn_mask`
# and its `key_padding_mask` the other way round: there True = *ignore this key*.

# %%
mask = np.array([True, False, True])  # True = may attend; k2 hidden
masked_scores = np.where(mask, scores, -np.inf)  # [S]
masked = ac.softmax(masked_scores)
kept = ac.softmax(scores[mask])  # softmax of the visible keys alone
same_as_visible = np.allclose(masked[mask], kept)
hidden_key = np.flatnonzero(~mask)[0] + 1  # k2: its number, counted from 1

# %% tags=["hide-input"]
step_table(
    {
        "score": scores,
        "mask": mask.astype(str),
        "masked score": masked_scores,
        "weight": masked,
    },
    index=["k1", "k2", "k3"],
)

# %% [markdown]
# Key {eval}`plain(hidden_key)` gets no weight, and the weights become
# {eval}`dec(masked)`, the softmax of the visible keys alone (`np.allclose` says
# {eval}`same_as_visible`).
#
# What if a row's keys are *all* masked, say a query that belongs to padding itself? Then every
# exponential is 0 and equation {eq}`eq-softmax` reads $0/0$, which has no right answer.
# `ac.softmax` gives such a row zero weights:

# %%
nothing = np.zeros(scores.shape, dtype=bool)  # every key hidden
all_masked = ac.softmax(np.where(nothing, scores, -np.inf))
print("weights of a fully masked row:", all_masked)

# %% [markdown]
# ```{admonition} Aside: what the libraries give a fully masked row
# :class: dropdown
#
# PyTorch's `scaled_dot_product_attention` gives zeros too, on the CPU since release 2.5
# (earlier releases give NaN). Other libraries, and even other PyTorch calls, answer
# differently (NaN, for one); [Chapter 7](07_heads_and_masks.ipynb), where padding masks meet
# many heads, compares them.
# ```
#
# ```{admonition} Aside: a large negative number instead of −∞
# :class: dropdown
#
# Many tutorials write a large negative number such as $-10^9$ instead of $-\infty$. For a row
# with at least one visible key it gives the same weights to every printed digit; an exercise
# at the end of this chapter looks at what it does to a fully masked row. It also depends on
# the dtype: $-10^9$ does not fit in float16, which is why much model code written in PyTorch
# (Hugging Face transformers', for one) masks with the dtype's own most negative number,
# `torch.finfo(scores.dtype).min`;
# [Chapter 7](07_heads_and_masks.ipynb) shows what $-10^9$ becomes in float16.
# ```
#
# `ac.attention_weights` takes the mask as `attn_mask=`; `ac.padding_mask` and
# `ac.causal_mask` build the two usual masks.
#
# ## Summary
#
# - Softmax, equation {eq}`eq-softmax`, turns any scores into positive weights that sum to 1
#   and keep the order of the scores.
# - Only differences between scores matter (equation {eq}`eq-shift`); multiplying the scores by
#   a factor, or dividing by a temperature, makes the weights more or less peaked.
# - The exponential turns every unit of lead into a factor $e$ (equation {eq}`eq-ratio`), which
#   concentrates the weight on the best-matching keys.
# - The literal formula overflows (in float32 for scores above
#   {eval}`dec(exp_limit32, 1)`) and underflows; subtracting the maximum
#   (equation {eq}`eq-stable-softmax`) and computing log-sum-exp the same way fixes both.
# - The Jacobian $\mathrm{diag}(w) - ww^\top$ vanishes as one weight nears 1: a saturated
#   softmax *inside* a network, such as attention's, passes almost no gradient to its scores.
#   At the output, softmax with the cross-entropy loss has the gradient $w - y$ (equation
#   {eq}`eq-ce-gradient`), which does not vanish.
# - A mask sets hidden keys' scores to $-\infty$, which gives them zero weight. In `attn_core`
#   and `scaled_dot_product_attention` True = may attend and a fully masked row, $0/0$, gets
#   zeros (in PyTorch on the CPU since 2.5); `nn.MultiheadAttention` reads True as *ignore*, and
#   libraries differ on the fully masked row ([Chapter 7](07_heads_and_masks.ipynb)).
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} Softmax of large scores, by hand
# :label: ex-ch2-shift-by-hand
#
# Without a computer, find the softmax of the three scores printed by the cell below, to three
# decimals. You will need $e^{-1}$, which the cell prints too, and nothing larger.
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

# %% [markdown]
# ````{solution} ex-ch2-shift-by-hand
# :class: dropdown
#
# Subtracting the largest score leaves the exponents $0, -1, -1$, whose exponentials are
# $1$, $e^{-1}$, $e^{-1}$; divide each by their sum. The scores are large, but the softmax is
# far from saturated: only the gaps count, and a gap of 1 makes the first weight $e \approx$
# {eval}`dec(math.e)` times each of the others, not everything. The weights are
# {eval}`dec(ch2.shift_by_hand.solution, sep=" / ")`.
#
# ```python
# e_minus_1 = round(math.exp(-1), 3)  # e^-1 to three decimals
# exps_by_hand = [1.0, e_minus_1, e_minus_1]  # e^0, e^-1, e^-1
# total = sum(exps_by_hand)
# answer = [round(x / total, 3) for x in exps_by_hand]
# print(f"sum of the exponentials = {total:.3f}")
# print("weights =", answer)
# ch2.shift_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The temperature for a given ratio
# :label: ex-ch2-temperature-for-ratio
#
# The cell below prints three scores and a ratio. At which temperature $T$ is the largest
# weight of $\mathrm{softmax}(s / T)$ exactly that many times the second largest? Give $T$ to
# three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-ratio` holds for the scores $s / T$ too. Write the ratio of the two weights,
# set it equal to the ratio asked for, and take a logarithm.
# ```

# %%
s_ratio, ratio = ch2.temperature_for_ratio.inputs
print("scores =", s_ratio, "  ratio =", ratio)
answer = ...  # your T, a number
ch2.temperature_for_ratio.check(answer)

# %% [markdown]
# ````{solution} ex-ch2-temperature-for-ratio
# :class: dropdown
#
# By equation {eq}`eq-ratio` applied to $s/T$, $w_1 / w_2 = e^{(s_1 - s_2)/T}$. Setting it to
# the ratio $r$ gives $(s_1 - s_2)/T = \ln r$, so $T = (s_1 - s_2) / \ln r$. The third score
# plays no part: a ratio of two weights never depends on the other keys. A larger $r$ asks for
# a sharper softmax and gets a smaller $T$.
#
# ```python
# answer = (s_ratio[0] - s_ratio[1]) / math.log(ratio)
# w_T = ac.softmax(s_ratio, temperature=answer)
# print(f"T = {answer:.3f}:  weights {w_T.round(3)},  w1 / w2 = {w_T[0] / w_T[1]:.3f}")
# ch2.temperature_for_ratio.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Prove, then compute: the gradient of softmax with cross-entropy
# :label: ex-ch2-cross-entropy-gradient
#
# Prove equation {eq}`eq-ce-gradient`: for $w = \mathrm{softmax}(s)$ and a target class $c$,
# $\partial(-\log w_c)/\partial s_j = w_j - y_j$, where $y$ is one-hot at $c$. Then compute
# it for the scores and the target printed below (the target is a position counted from 0, as
# NumPy counts), as a list of three numbers. No calculator is needed: $e^{\ln 2} = 2$.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write $-\log w_c = -s_c + \log \sum_l e^{s_l}$ and differentiate each term with respect to
# $s_j$. The derivative of the log-sum-exp is a softmax.
# ```

# %%
s_ce, target = ch2.cross_entropy_gradient.inputs
print("scores =", s_ce, "  target c =", target)
answer = ...  # your three numbers, e.g. [0.0, 0.0, 0.0]
ch2.cross_entropy_gradient.check(answer)

# %% [markdown]
# ````{solution} ex-ch2-cross-entropy-gradient
# :class: dropdown
#
# **Proof.** $-\log w_c = -s_c + \log \sum_l e^{s_l}$. The first term's derivative with
# respect to $s_j$ is $-1$ if $j = c$ and 0 otherwise, that is $-y_j$. The second's is
# $e^{s_j} / \sum_l e^{s_l} = w_j$. Together, $w_j - y_j$. (Through the Jacobian instead:
# $-\frac{1}{w_c}\,\partial w_c/\partial s_j = -\frac{1}{w_c}\,w_c(\delta_{cj} - w_j)$, the
# same.) Each entry lies between $-1$ and 1, and the gradient is large exactly when the
# softmax is confidently wrong, which is why a classifier's saturated output still learns.
#
# Here $e^{s} = (2, 1, 1)$, so $w = (1/2, 1/4, 1/4)$, and the target is the second key:
#
# ```python
# w_ce = np.array([2.0, 1.0, 1.0]) / 4.0  # e^ln2 = 2, e^0 = 1, over their sum 4
# y_ce = np.eye(3)[target]  # one-hot at c
# answer = w_ce - y_ce
# print("w − y =", answer)
# ch2.cross_entropy_gradient.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Write a softmax that does not overflow
# :label: ex-ch2-my-softmax
#
# Write `my_softmax(scores)` with plain NumPy (no `ac.softmax`): the softmax of `scores`, of
# shape $(\dots, S)$, over its last axis, the two lines of the stable softmax above for any
# number of leading axes. The check runs it on the worked example's scores, on a matrix, on a
# batch, and on very large and very negative scores.
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
# ````{solution} ex-ch2-my-softmax
# :class: dropdown
#
# Subtract each row's maximum, exponentiate, divide by each row's sum; all along `axis=-1`.
#
# ```python
# def my_softmax(scores):
#     # [..., S]: every exponent is <= 0, so nothing overflows
#     e = np.exp(scores - scores.max(axis=-1, keepdims=True))
#     return e / e.sum(axis=-1, keepdims=True)  # [..., S] / [..., 1]
#
#
# ch2.my_softmax.check(my_softmax)
# ```
# ````

# %% [markdown]
# ```{exercise} Masking with −10⁹: the fully masked row
# :label: ex-ch2-masked-row
#
# The function printed below hides a key by replacing its score with $-10^9$ before the
# softmax, a common convention. For every row with a visible key it gives the same weights as
# $-\infty$. First work out, on paper, what it returns for a row of $S$ keys that are *all*
# masked (a query that is itself padding), and say when that answer does harm.
#
# Then copy the function into the next cell as `fixed_masked_weights` and change it so that a
# fully masked row gets zero weights, as `scaled_dot_product_attention` gives it, *without*
# calling `ac.softmax`: write the max-subtraction yourself, and keep it from producing NaN.
# The check runs it on a batch that contains a sequence of padding only.
# ```

# %%
ch2.mask_fully_masked.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Run the function on one row whose mask is all `False`. What does $-10^9$ minus the row's
# maximum $-10^9$ give? With $-\infty$ instead, what is $-\infty - (-\infty)$, and $0/0$?
# ```


# %%
def fixed_masked_weights(scores, mask):
    raise NotImplementedError  # copy the function above here, change it


ch2.mask_fully_masked.check(fixed_masked_weights)

# %% [markdown]
# ````{solution} ex-ch2-masked-row
# :class: dropdown
#
# When every score of a row is $-10^9$, subtracting the maximum leaves zeros and the row gets
# $1/S$ each, an average over padding. Usually that is harmless, because a padded query's
# output is thrown away; it does harm when the output is kept (averaged over the sequence,
# say), and in float16, which cannot hold $-10^9$: there it overflows to $-\infty$, and a
# plain softmax gives the fully masked row NaN ([Chapter 7](07_heads_and_masks.ipynb) shows
# it). Write $-\infty$ instead, a true "no weight" that no dtype can round, and give the all-$-\infty$ row its own rule: $-\infty - (-\infty)$ is NaN, so
# subtract 0 where the maximum is $-\infty$, and divide by 1 where the sum is 0.
#
# ```python
# def fixed_masked_weights(scores, mask):
#     """Weights (..., L, S); mask: True = may attend."""
#     scores = np.where(mask, scores, -np.inf)  # a hidden key gets no weight at all
#     top = scores.max(axis=-1, keepdims=True)
#     top = np.where(np.isfinite(top), top, 0.0)  # a fully masked row: subtract 0
#     e = np.exp(scores - top)  # exp(-inf) = 0
#     total = e.sum(axis=-1, keepdims=True)
#     return e / np.where(total > 0, total, 1.0)  # 0 / 1 = 0 on a fully masked row
#
#
# ch2.mask_fully_masked.check(fixed_masked_weights)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: softmax over the wrong axis
# :label: ex-ch2-bug-axis
#
# The function below should turn a matrix of scores, one row per query and one column per key,
# into weights whose *rows* sum to 1. Copy it as `fixed_softmax_rows`, fix it, and run the
# check.
# ```

# %%
ch2.softmax_wrong_axis.show()

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


ch2.softmax_wrong_axis.check(fixed_softmax_rows)

# %% [markdown]
# ````{solution} ex-ch2-bug-axis
# :class: dropdown
#
# `axis=0` normalises each *column*: each key's weights over the queries. The keys are the last
# axis, so `axis=-1`, which also stays right when batch axes are added in front.
#
# ```python
# def fixed_softmax_rows(scores):
#     """Weights (..., L, S): softmax over the keys, the last axis."""
#     e = np.exp(scores - scores.max(axis=-1, keepdims=True))
#     return e / e.sum(axis=-1, keepdims=True)
#
#
# ch2.softmax_wrong_axis.check(fixed_softmax_rows)
# ```
# ````
