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
# (ch-dot-product)=
# # The dot product (내적) as similarity
#
# Attention (어텐션) lets every word of a sentence decide how much to look at every other word.
# Each word carries a *query* (쿼리, what it is looking for) and a *key* (키, what it offers), both
# vectors (벡터) of numbers, and a third vector, its *value* (밸류), that it passes on.
#
# The second seed article explains the three with a library (도서관). The query is the search
# term you type in (검색어); the keys are the books' index entries and tags (색인, 태그), what
# each book can be found by; the value is the content of a book (책의 내용), what you take home.
# The search term is compared with every index entry, and the better an entry matches, the more
# of that book's content you take. Attention does the same, except that it never picks just one
# book: it takes a little of every book, more of the ones that match better.
#
# Before anything else, attention needs one number, a score (점수), that says how well a query
# matches a key. The first attention models learned a small neural network for it
# {cite:p}`bahdanau2014`; the Transformer uses the dot product (내적) {cite:p}`vaswani2017`, and
# so does this book.
#
# After this chapter you will be able to:
#
# - compute a dot product by hand, as a sum of products and as lengths times $\cos\theta$;
# - say why the same direction scores high, a right angle scores zero and the opposite direction
#   scores negative, and why a long key can win at a worse angle;
# - compute every query–key score at once as $QK^\top$, with the shapes spelled out;
# - transpose a *batch* of keys correctly (`np.swapaxes(k, -1, -2)`, not `k.T`).

# %%
import textwrap

import attn_core as ac
import matplotlib.pyplot as plt
import numpy as np
from attn_book import plots
from attn_book.exercises import bugs
from attn_book.exercises import ch01_dot_product as ch1
from attn_book.widgets import QueryPad
from myst_nb import glue

# every random number of this chapter comes from here
rng = np.random.default_rng(1)

# %% [markdown]
# ## Two ways to write one number
#
# For a query $\mathbf{q}$ and a key $\mathbf{k}$ with $d$ components each (their dimension,
# 차원), the dot product multiplies matching components and adds them up:
#
# $$
# \mathbf{q}\cdot\mathbf{k} = \sum_{m=1}^{d} q_m k_m .
# $$ (eq-dot)
#
# The same number has a geometric reading. With the length (길이) of a vector
# $\|\mathbf{q}\| = \sqrt{\mathbf{q}\cdot\mathbf{q}}$ and the angle $\theta$ between the two
# vectors,
#
# $$
# \mathbf{q}\cdot\mathbf{k} = \|\mathbf{q}\|\,\|\mathbf{k}\|\cos\theta .
# $$ (eq-dot-cos)
#
# The seed article's example has $d =$ {glue:text}`ch1_d` components, the query
# $\mathbf{q} =$ {glue:text}`ch1_q` and three keys. Here they are, scored by `ac.dot_scores`
# (equation {eq}`eq-dot`), and scored again from their lengths and their angles, measured
# separately with `np.arctan2` (equation {eq}`eq-dot-cos`):

# %%
example = ac.seed_example()
q, keys = example.query, example.keys  # [E], [S, E]: E = 2, S = 3
scores = ac.dot_scores(q, keys)  # [E] @ [E, S] -> [S]
# the angle θ of each key, measured from q: [S]
angles = np.arctan2(keys[:, 1], keys[:, 0]) - np.arctan2(q[1], q[0])
lengths = np.linalg.norm(keys, axis=-1)  # ‖k‖, [S]
by_angle = np.linalg.norm(q) * lengths * np.cos(angles)  # ‖q‖‖k‖cos θ
for j in range(len(keys)):
    theta = np.degrees(angles[j])
    print(
        f"k{j + 1} = {keys[j]}:  q·k = {scores[j]:g}   θ = {theta:4.0f}°  "
        f"‖k‖ = {lengths[j]:.3f}  ‖q‖‖k‖cos θ = {by_angle[j]:.3f}"
    )
glue("ch1_d", len(q), display=False)
glue("ch1_q", f"({q[0]:g}, {q[1]:g})", display=False)
glue("ch1_seed_scores", ", ".join(f"{s:g}" for s in scores), display=False)
glue("ch1_k3_score", float(scores[2]), display=False)
glue("ch1_k3_angle", float(np.degrees(angles[2])), display=False)
glue("ch1_k3_length", float(lengths[2]), display=False)
glue("ch1_k3_cos", float(np.cos(angles[2])), display=False)
glue("ch1_forms_agree", bool(np.allclose(scores, by_angle)), display=False)

# %% [markdown]
# The scores are {glue:text}`ch1_seed_scores`. The two forms agree
# (`np.allclose` says {glue:text}`ch1_forms_agree`); for the third key, for example, the angle is
# {glue:text}`ch1_k3_angle:.0f`°, its cosine {glue:text}`ch1_k3_cos:.3f` and its length
# {glue:text}`ch1_k3_length:.3f`, and their product gives back its score,
# {glue:text}`ch1_k3_score:g`.
#
# ```{glue:figure} fig-ch1-seed
# :name: fig-ch1-seed
#
# The seed's query $\mathbf{q}$ (black, dashed) and its three keys, each labelled with its score
# $\mathbf{q}\cdot\mathbf{k}$: {glue:text}`ch1_seed_scores`. The key at a right angle to
# $\mathbf{q}$ scores zero.
# ```

# %% tags=["remove-input"]
key_names = [f"k{j + 1}" for j in range(len(keys))]
panel = {"query": q, "keys": keys, "scores": scores, "labels": key_names}
fig = plots.plot_query_keys([panel])
glue("fig-ch1-seed", fig, display=False)
plt.close(fig)

# %% [markdown]
# ## Same direction, right angle, opposite
#
# Give both vectors unit length and only the angle changes the score: by equation
# {eq}`eq-dot-cos` it is then $\cos\theta$ itself. Turn a unit key around a unit query:


# %%
def unit(degrees):
    """The unit vector at an angle of ``degrees`` from the first axis."""
    theta = np.radians(degrees)
    return np.array([np.cos(theta), np.sin(theta)])


turns = np.array([0.0, 45.0, 90.0, 135.0, 180.0])  # degrees
unit_keys = np.stack([unit(t) for t in turns])  # [5, 2]
turn_scores = ac.dot_scores(q, unit_keys)  # q = (1, 0) has length 1
for t, s in zip(turns, turn_scores, strict=True):
    print(f"θ = {t:5.0f}°   q·k = {s:+.3f}")
glue("ch1_turn_same", float(turn_scores[0]), display=False)
glue("ch1_turn_45", float(turn_scores[1]), display=False)
glue("ch1_turn_45_deg", float(turns[1]), display=False)
glue("ch1_turn_right", abs(float(turn_scores[2])), display=False)
glue("ch1_turn_opposite", float(turn_scores[4]), display=False)

# %% [markdown]
# The same direction gives the largest score, {glue:text}`ch1_turn_same:.3f`; at
# {glue:text}`ch1_turn_45_deg:g`° the score is
# {glue:text}`ch1_turn_45:.3f`; at a right angle (직교, orthogonal) it is
# {glue:text}`ch1_turn_right:.3f`, since the key has nothing in common with the query; pointing
# the opposite way gives the most negative score, {glue:text}`ch1_turn_opposite:.3f`. This is the
# sense in which the dot product measures similarity (유사도): how much two vectors point the same
# way. Softmax, in {ref}`ch-softmax`, will turn these scores into weights, and a negative score
# will get a small weight, never a negative one.
#
# ## Length matters too
#
# The cosine alone would be a pure measure of direction. The dot product is not: by equation
# {eq}`eq-dot-cos` the lengths multiply it. A key that points a little away from the query but is
# long can beat a short key that points almost exactly along it:

# %%


near = unit(10.0)  # length 1, 10° away
far_long = 3.0 * unit(60.0)  # length 3, 60° away
rivals = np.stack([near, far_long])  # [2, 2]
rival_scores = ac.dot_scores(q, rivals)
rival_lengths = np.linalg.norm(rivals, axis=-1)
rival_angles = np.degrees(np.arctan2(rivals[:, 1], rivals[:, 0]))
for name, k, s, n, a in zip(
    ["near", "long"],
    rivals,
    rival_scores,
    rival_lengths,
    rival_angles,
    strict=True,
):
    print(f"{name}: k = {k.round(3)}  θ = {a:.0f}°  ‖k‖ = {n:.0f}", end="")
    print(f"  q·k = {s:.3f}")
for i, name in enumerate(["near", "long"]):
    glue(f"ch1_{name}_angle", float(rival_angles[i]), display=False)
    glue(f"ch1_{name}_length", float(rival_lengths[i]), display=False)
    glue(f"ch1_{name}_score", float(rival_scores[i]), display=False)

# %% [markdown]
# The near key is only {glue:text}`ch1_near_angle:.0f`° away and scores
# {glue:text}`ch1_near_score:.3f`; the long key is {glue:text}`ch1_long_angle:.0f`° away, but its
# length of {glue:text}`ch1_long_length:.0f` lifts its score to {glue:text}`ch1_long_score:.3f`.
# It wins.
#
# ```{glue:figure} fig-ch1-length
# :name: fig-ch1-length
#
# A long key at a worse angle beats a short key at a better one: the near key
# ({glue:text}`ch1_near_angle:.0f`°, length {glue:text}`ch1_near_length:.0f`) scores
# {glue:text}`ch1_near_score:.3f`, the long key ({glue:text}`ch1_long_angle:.0f`°, length
# {glue:text}`ch1_long_length:.0f`) scores {glue:text}`ch1_long_score:.3f`.
# ```

# %% tags=["remove-input"]
panel = {
    "query": q,
    "keys": rivals,
    "scores": rival_scores,
    "labels": ["near", "long"],
}
fig = plots.plot_query_keys([panel])
glue("fig-ch1-length", fig, display=False)
plt.close(fig)

# %% [markdown]
# In a trained model the lengths carry meaning too: a key vector that is long says "attend to me"
# to many queries at once. It also means that the sizes of the scores grow with the sizes of the
# vectors, and with their dimension $d$: {ref}`ch-scaling` shows why that calls for the division
# by $\sqrt{d_k}$.
#
# ## Every score at once: $QK^\top$
#
# A sentence has many queries, one per word. Stack them as the rows of a matrix (행렬) $Q$ of
# shape $(L, E)$, $L$ queries of size $E$, and the keys as the rows of $K$, shape $(S, E)$.
# $E$ is the same size as $d$ above: code in this book (and PyTorch's documentation) names it
# $E$, and from {ref}`ch-scaling` on, the formulas call the size of a key $d_k$. In this book
# $E = d = d_k$ unless a chapter says otherwise. The transpose (전치) $K^\top$ turns the rows of
# $K$ into columns, and then every score is one entry of a single matrix product:
#
# $$
# \underbrace{Q}_{(L,\,E)}\;\underbrace{K^\top}_{(E,\,S)} = \underbrace{QK^\top}_{(L,\,S)},
# \qquad (QK^\top)_{ij} = \mathbf{q}_i\cdot\mathbf{k}_j .
# $$ (eq-qkt)
#
# Row $i$ holds query $i$'s scores against every key. Take the seed's query and two more:

# %%
# [L, E] = [3, 2]: the seed's query first, then two more
Q = np.array([q, [0.0, 1.0], [-1.0, 0.5]])
all_scores = ac.dot_scores(Q, keys)  # [L, E] @ [E, S] -> [L, S]
loops = np.array(
    [[sum(Qi[m] * kj[m] for m in range(2)) for kj in keys] for Qi in Q]
)
k_t = np.swapaxes(keys, -1, -2)
print("Q:", Q.shape, " K:", keys.shape, " Kᵀ:", k_t.shape)
print("QKᵀ:", all_scores.shape)
print(all_scores)
print(
    "same as the loops of sums, query by query:",
    np.allclose(all_scores, loops),
)
glue("ch1_row0", ", ".join(f"{s:g}" for s in all_scores[0]), display=False)
glue("ch1_qkt_shape", str(all_scores.shape), display=False)

# %% [markdown]
# The result has shape {glue:text}`ch1_qkt_shape`, one row per query and one column per key, and
# its first row, {glue:text}`ch1_row0`, is the seed's scores from before. One matrix product does
# all $L \times S$ dot products, which is why attention runs fast on hardware built for matrix
# products, and also why its cost grows with $L \times S$.
#
# ### A batch of sentences: why not `k.T`
#
# In practice the arrays carry more axes in front: a batch (배치) of $B$ sentences gives queries of
# shape $(B, L, E)$ and keys $(B, S, E)$, and several heads add one more axis. The transpose must
# swap only the *last two* axes. NumPy's `k.T` reverses **all** of them:

# %%
B, L, S, E = 2, 3, 4, 5
q_batch = rng.normal(size=(B, L, E))
k_batch = rng.normal(size=(B, S, E))
print("k:                       ", k_batch.shape)
print(
    "k.T:                     ",
    k_batch.T.shape,
    " <- the batch axis moved to the end",
)
print("np.swapaxes(k, -1, -2):  ", np.swapaxes(k_batch, -1, -2).shape)
try:
    q_batch @ k_batch.T
except ValueError as err:
    wrapped = textwrap.wrap(str(err), 60)  # the full message
    print("q @ k.T fails:", *wrapped, sep="\n  ")
# [B, L, E] @ [B, E, S] -> [B, L, S]
batch_scores = q_batch @ np.swapaxes(k_batch, -1, -2)
print("q @ np.swapaxes(k, -1, -2):", batch_scores.shape)
print(
    "equal to ac.dot_scores:",
    np.allclose(batch_scores, ac.dot_scores(q_batch, k_batch)),
)

# %% [markdown]
# Here `q @ k.T` failed loudly. That is the lucky case: when the sizes happen to line up (say
# $B = L = S = E$) it runs and returns wrong numbers without a word. `np.swapaxes(k, -1, -2)` (in
# PyTorch, `k.transpose(-2, -1)`, as in the seed's `SimpleSelfAttention`) is right for any number
# of leading axes, and is what `ac.dot_scores` uses. One of the exercises below is this bug.
#
# ## Try it: the query pad
#
# Drag the query $\mathbf{q}$ (or any key) around the plane. The pad shows each key's dot product,
# its $\cos\theta$, and the attention weights that the next two chapters build from them. Point
# $\mathbf{q}$ straight at a key, then at right angles to it, then away; then make a key long and
# watch it win from a worse angle. It starts at the seed's example and runs in the browser, even
# on the static site.

# %%
QueryPad()

# %% [markdown]
# ## Summary
#
# - A query is the search term, a key the index entry, a value the book's content (도서관, the
#   seed's library); the score (점수) says how well a query matches a key.
# - The dot product (내적) of a query and a key is $\sum_m q_m k_m$, equation {eq}`eq-dot`, which
#   equals $\|\mathbf{q}\|\|\mathbf{k}\|\cos\theta$, equation {eq}`eq-dot-cos`.
# - It is largest for the same direction, zero at a right angle and negative for opposite
#   directions; the lengths scale it, so a long key can win at a worse angle.
# - All scores of $L$ queries against $S$ keys are one product $QK^\top$, $(L, E) @ (E, S) \to
#   (L, S)$, equation {eq}`eq-qkt`.
# - With leading batch or head axes, transpose the last two axes only: `np.swapaxes(k, -1, -2)`,
#   never `k.T`.
#
# Next, {ref}`ch-softmax` turns a row of scores into weights.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} Three dot products by hand
# :label: ex-ch1-scores-by-hand
#
# Without a computer, compute the dot products of the query $\mathbf{q}$ with each of the three
# keys printed by the cell below. Give them as a list of three numbers.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# One key at a time: multiply the first components, multiply the second components, add.
# ```

# %%
q_ex, keys_ex = ch1.scores_by_hand.inputs
print("q =", q_ex, "\nkeys =\n", keys_ex)
answer = ...  # your three scores, e.g. [0.0, 0.0, 0.0]
ch1.scores_by_hand.check(answer)

# %% [markdown]
# ```{solution-start} ex-ch1-scores-by-hand
# :class: dropdown
# ```
#
# Each score is $q_1 k_1 + q_2 k_2$, written out key by key:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
answer = [2 * 1 + 1 * 0, 2 * 0 + 1 * 3, 2 * (-1) + 1 * 1]
ch1.scores_by_hand.check(answer)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The angle behind a score
# :label: ex-ch1-cosine-by-hand
#
# For the same query $\mathbf{q}$ and the **second** key, compute $\cos\theta$ by hand (to three
# decimals), using equation {eq}`eq-dot-cos`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# You already have $\mathbf{q}\cdot\mathbf{k}$ from the exercise above. Divide it by both lengths,
# $\|\mathbf{q}\| = \sqrt{q_1^2 + q_2^2}$ and $\|\mathbf{k}\|$ likewise.
# ```

# %%
answer = ...  # cos θ, a number
ch1.cosine_by_hand.check(answer)

# %% [markdown]
# ```{solution-start} ex-ch1-cosine-by-hand
# :class: dropdown
# ```
#
# The dot product, then both lengths, then the quotient (rounded to three decimals, as by hand):

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
dot = 2 * 0 + 1 * 3  # q = (2, 1), the second key = (0, 3)
length_q, length_k = (2**2 + 1**2) ** 0.5, (0**2 + 3**2) ** 0.5
answer = round(dot / (length_q * length_k), 3)
print(f"q·k = {dot}   ‖q‖ = {length_q:.3f}   ‖k‖ = {length_k:.3f}")
print(f"cos θ = {answer}")
print(f"θ = {np.degrees(np.arccos(answer)):.1f}°")
ch1.cosine_by_hand.check(answer)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Write the scores function
# :label: ex-ch1-my-scores
#
# Write `my_scores(q, k)` that returns every score $\mathbf{q}_i\cdot\mathbf{k}_j$ for queries
# `q` of shape $(\dots, L, E)$ and keys `k` of shape $(\dots, S, E)$, as an array of shape
# $(\dots, L, S)$, with plain NumPy (no `ac.dot_scores`). The check runs it on single matrices and
# on batches, and compares with `attn_core`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-qkt` is one `@`. Which axes of `k` must trade places?
# ```


# %%
def my_scores(q, k): ...  # your code here


ch1.my_scores.check(my_scores)

# %% [markdown]
# ```{solution-start} ex-ch1-my-scores
# :class: dropdown
# ```
#
# Swap the last two axes of the keys and multiply; `@` broadcasts over any leading axes.


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def my_scores(q, k):
    # [..., L, E] @ [..., E, S] -> [..., L, S]
    return q @ np.swapaxes(k, -1, -2)


ch1.my_scores.check(my_scores)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Find the bug: scores for a batch
# :label: ex-ch1-bug-kT
#
# A colleague wrote the function printed below. It passes their test on one sentence, but fails
# on a batch of sentences. Copy it into the next cell as `fixed_scores`, fix the one line, and run
# the check.
# ```

# %%
bugs.kT_batch.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print `k.T.shape` for a batch of keys `k` of shape $(B, S, E)$. Which axes should have moved?
# ```


# %%
def fixed_scores(q, k):
    raise NotImplementedError  # copy the function above here and fix it


bugs.kT_batch.check(fixed_scores)

# %% [markdown]
# ```{solution-start} ex-ch1-bug-kT
# :class: dropdown
# ```
#
# `k.T` reverses every axis, so a batch of keys $(B, S, E)$ becomes $(E, S, B)$. Swap only the
# last two:


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def fixed_scores(q, k):
    """All pairwise scores q·k.

    q (..., L, E), k (..., S, E) -> (..., L, S).
    """
    # [..., L, E] @ [..., E, S] -> [..., L, S]
    return q @ np.swapaxes(k, -1, -2)


bugs.kT_batch.check(fixed_scores)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Predict, then run: which key wins?
# :label: ex-ch1-which-key-wins
#
# The cell below prints a query and three keys named a, b and c. *Before* computing anything,
# decide which key gets the largest dot product with the query, and answer with its name.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Look at the query first: which way does it point, and how long is it? For such a query, which
# part of each key is all that counts in $\sum_m q_m k_m$?
# ```

# %%
q_win, keys_win = ch1.which_key_wins.inputs
named = {name: k.tolist() for name, k in keys_win.items()}
print("q =", q_win, "  keys:", named)
answer = ...  # "a", "b" or "c"
ch1.which_key_wins.check(answer)

# %% [markdown]
# ```{solution-start} ex-ch1-which-key-wins
# :class: dropdown
# ```
#
# This query points along the first axis with length 1, so each score is simply the key's first
# component. Key b is further off in angle than a, but so much longer that it wins; c is the
# longest of all, but at a right angle to $\mathbf{q}$ it scores nothing.

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
answer = "b"
ch1.which_key_wins.check(answer)

# %% [markdown]
# The scores, computed:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
win_keys = np.stack(list(keys_win.values()))  # [3, E]
win_scores = ac.dot_scores(q_win, win_keys)  # [E] @ [E, 3] -> [3]
dict(zip(keys_win, win_scores.round(3).tolist(), strict=True))

# %% [markdown]
# ```{solution-end}
# ```
