# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (ch-dot-product)=
# # The dot product (내적) as similarity
#
# Attention (어텐션) lets every word of a sentence decide how much to look at every other word.
# Each word carries a *query* (쿼리, what it is looking for) and a *key* (키, what it offers), both
# vectors (벡터) of numbers, and a third vector, its *value* (밸류), that it passes on. Where
# the three come from (each word's own vector, multiplied by three learned matrices) is the
# subject of [Chapter 5](05_projections.ipynb); until then they are simply given.
#
# The Korean explainer of queries, keys and values, one of the two articles this book follows
# (see the [introduction](intro.md) and the [references](references.md)), explains the three
# with a library (도서관). The query is
# the search term you type in (검색어); the keys are the books' index entries and tags (색인,
# 태그), what each book can be found by; the value is the content of a book (책의 내용), what you take home.
# The search term is compared with every index entry, and the better an entry matches, the more
# of that book's content you take. Attention does the same, except that it never picks just one
# book: it takes a little of every book, more of the ones that match better.
#
# Before anything else, attention needs one number, a score (점수), that says how well a query
# matches a key. The first attention for translation learned a small neural network for it
# ([Bahdanau et al., 2014](references.md)), which this chapter computes once by hand; the
# Transformer uses the dot product ([Vaswani et al., 2017](references.md)), and so does the rest
# of this book.
#
# After this chapter you will be able to:
#
# - compute a dot product by hand, as a sum of products and as lengths times $\cos\theta$;
# - compute Bahdanau's additive score by hand, and say what it costs beside the dot product;
# - say why the same direction scores high, a right angle scores zero and the opposite direction
#   scores negative, and why a long key makes a score more extreme, in both directions;
# - compute every query–key score at once as $QK^\top$, with the shapes spelled out;
# - transpose a *batch* of keys correctly (not with `k.T`).

# %%
import textwrap

import attn_core as ac
import numpy as np
from attn_book import plots
from attn_book.data import quanta_example
from attn_book.exercises import ch01_dot_product as ch1
from attn_book.figures import Figures
from attn_book.prose import dec, plain, vector
from attn_book.tables import step_table
from attn_book.widgets import QueryPad

figures = Figures(chapter=1)
# every random number of this chapter comes from here
rng = np.random.default_rng(1)

# %% [markdown]
# ## Two ways to write one number
#
# For a query $\mathbf{q}$ and a key $\mathbf{k}$ with $d_k$ components each (their dimension,
# 차원), the dot product multiplies matching components and adds them up:
#
# $$
# \mathbf{q}\cdot\mathbf{k} = \sum_{m=1}^{d_k} q_m k_m .
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
# Take the Quanta write-up's example: one query and three keys. Equation {eq}`eq-dot` first,
# one key at a time, as a loop over the components:

# %%
example = quanta_example()
q, keys = example.query, example.keys  # [d_k], [S, d_k]: d_k = 2, S = 3
q_dim = len(q)  # d_k, the number of components
scores_by_loop = np.zeros(len(keys))  # [S]
for j, k in enumerate(keys):
    for m in range(q_dim):
        scores_by_loop[j] += q[m] * k[m]
print(scores_by_loop)

# %% [markdown]
# The loop does the same thing for every key, so one matrix–vector product does all three at
# once: row $j$ of `keys` times $\mathbf{q}$ is $\mathbf{q}\cdot\mathbf{k}_j$. `attn_core`,
# the book's small NumPy package, has it as `ac.dot_scores`, which the later chapters use:

# %%
scores = keys @ q  # [S, d_k] @ [d_k] -> [S]
print(scores)
print("same as the loop:", np.allclose(scores, scores_by_loop))
print("same as ac.dot_scores:", np.allclose(scores, ac.dot_scores(q, keys)))

# %% [markdown]
# Now equation {eq}`eq-dot-cos`: the same scores from the keys' lengths and their angles to
# the query, each angle measured on its own with `np.arctan2`:

# %%
lengths = np.linalg.norm(keys, axis=-1)  # ‖k‖, [S]
# the angle θ of each key, measured from q: [S]
angles = np.arctan2(keys[:, 1], keys[:, 0]) - np.arctan2(q[1], q[0])
cosines = np.cos(angles)  # [S]
by_angle = np.linalg.norm(q) * lengths * cosines  # ‖q‖‖k‖cos θ
forms_agree = np.allclose(scores, by_angle)
degrees = np.degrees(angles)  # θ in degrees, [S]

# %% tags=["hide-input"]
step_table(
    {
        "q·k": scores,
        "θ": [f"{a:.0f}°" for a in degrees],
        "cos θ": cosines,
        "‖k‖": lengths,
        "‖q‖‖k‖cos θ": by_angle,
    },
    index=[f"k{j + 1} = {vector(k)}" for j, k in enumerate(keys)],
)

# %% [markdown]
# The query is $\mathbf{q} =$ {eval}`vector(q)`, with $d_k =$ {eval}`q_dim` components, and
# its scores are {eval}`plain(scores)`, whichever way they are computed. The two forms agree
# (`np.allclose` says {eval}`forms_agree`); for the third key, for example, the angle is
# {eval}`dec(degrees[2], 0)`°, its cosine {eval}`dec(cosines[2])` and its length
# {eval}`dec(lengths[2])`, and their product gives back its score, {eval}`plain(scores[2])`. {eval}`figures.ref("fig-ch1-example")` draws them.

# %% tags=["hide-input"]
key_names = [f"k{j + 1}" for j in range(len(keys))]
example_panel = {
    "query": q,
    "keys": keys,
    "scores": scores,
    "labels": key_names,
}
figures.show(
    plots.plot_query_keys([example_panel]),
    "fig-ch1-example",
    "The worked example's query q (black, dashed) and its three keys, each "
    "labelled with its score q·k: {scores}. The key at a right angle to q "
    "scores zero.",
    scores=plain(scores),
)

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


turns = np.array([0.0, 45.0, 90.0, 135.0, 180.0])  # angles in degrees
unit_keys = np.stack([unit(t) for t in turns])  # [5, 2]
turn_scores = unit_keys @ q  # [5, 2] @ [2] -> [5]; q = (1, 0) has length 1
# at 90° the float cosine leaves 6e-17, printed as 0.000 (abs: not as −0.000)
right_angle_score = abs(turn_scores[2])

# %% tags=["hide-input"]
step_table({"θ": [f"{t:.0f}°" for t in turns], "q·k": turn_scores})

# %% [markdown]
# The same direction gives the largest score, {eval}`dec(turn_scores[0])`; at
# {eval}`plain(turns[1])`° the score is {eval}`dec(turn_scores[1])`; at a right angle (직교,
# orthogonal) it is {eval}`dec(right_angle_score)`, since the key has nothing in common with
# the query; pointing the opposite way gives the most negative score,
# {eval}`dec(turn_scores[4])`. This is the sense in which the dot product measures similarity
# (유사도): how much two vectors point the same way. Softmax, in
# [Chapter 2](02_softmax.ipynb), will turn these scores into weights, and a negative score will
# get a small weight, never a negative one.
#
# ## Length matters too
#
# The cosine alone would be a pure measure of direction. The dot product is not: by equation
# {eq}`eq-dot-cos` the lengths multiply it. Take four keys: a short one (length 1) and a long
# one (length 3) on the query's side, and the same two pointing away from it:

# %%
rivals = np.stack(
    [
        unit(10.0),  # near: length 1, 10° from q
        3.0 * unit(60.0),  # long: length 3, 60° from q
        unit(120.0),  # away: length 1, 120° from q
        3.0 * unit(120.0),  # long away: length 3, same direction
    ]
)  # [4, 2]
rival_names = ["near", "long", "away", "long away"]
rival_scores = rivals @ q  # [4, 2] @ [2] -> [4]
rival_lengths = np.linalg.norm(rivals, axis=-1)  # [4]
rival_angles = np.degrees(np.arctan2(rivals[:, 1], rivals[:, 0]))  # θ from q = (1, 0)

# %% tags=["hide-input"]
step_table(
    {
        "θ": [f"{a:.0f}°" for a in rival_angles],
        "‖k‖": rival_lengths,
        "q·k": rival_scores,
    },
    index=rival_names,
)

# %% [markdown]
# The near key is only {eval}`dec(rival_angles[0], 0)`° away and scores
# {eval}`dec(rival_scores[0])`; the long key is {eval}`dec(rival_angles[1], 0)`° away, but its
# length of {eval}`dec(rival_lengths[1], 0)` lifts its score to {eval}`dec(rival_scores[1])`.
# It wins. On the other side the same factor works the other way: the short key that points
# away scores {eval}`dec(rival_scores[2])`, the long one {eval}`dec(rival_scores[3])`, three
# times as negative. {eval}`figures.ref("fig-ch1-length")` shows all four.

# %% tags=["hide-input"]
length_panel = {
    "query": q,
    "keys": rivals,
    "scores": rival_scores,
    "labels": rival_names,
}
figures.show(
    plots.plot_query_keys([length_panel]),
    "fig-ch1-length",
    "Length makes a score more extreme in both directions. On the query's "
    "side, the long key ({rival_angles_1}°, length {rival_lengths_1}) beats "
    "the near key ({rival_angles_0}°, length 1): {rival_scores_1} against "
    "{rival_scores_0}. Pointing away, the long key scores {rival_scores_3}, "
    "the short one {rival_scores_2}.",
    rival_angles_1=dec(rival_angles[1], 0),
    rival_lengths_1=dec(rival_lengths[1], 0),
    rival_angles_0=dec(rival_angles[0], 0),
    rival_scores_1=dec(rival_scores[1]),
    rival_scores_0=dec(rival_scores[0]),
    rival_scores_3=dec(rival_scores[3]),
    rival_scores_2=dec(rival_scores[2]),
)

# %% [markdown]
# So a long key does not simply say "attend to me": it makes the opinion of every query that
# is not at a right angle to it stronger. Queries on its side give it a higher score than they
# would give a short key in the same direction; queries pointing away give it a lower one, so
# they ignore it *more*. It also means that the sizes of the scores grow with the sizes of the
# vectors, and, when each component keeps a typical size, with their dimension $d_k$:
# [Chapter 3](03_scaling.ipynb) shows why that calls for the division by $\sqrt{d_k}$.
#
# ## The score before the dot product: a small network
#
# The dot product is not the only way to score a key. The first attention for translation
# ([Bahdanau et al., 2014](references.md)) learned its score. There the query is the decoder's
# previous state $\mathbf{s}_{i-1}$, the key is the encoder's annotation $\mathbf{h}_j$ of
# source word $j$, and the same $\mathbf{h}_j$ is also the value. A small neural network with
# one hidden layer (은닉층) maps the query with a matrix $W$ and the key with a matrix $U$ into
# the same $A$ hidden units, adds the two, squashes the sum with $\tanh$, and reads one number
# out of it with a vector $\mathbf{v}_a$ (Bahdanau's name for it; the subscript keeps it apart
# from the values $\mathbf{v}_j$):
#
# $$
# \mathrm{score}(\mathbf{q}, \mathbf{k}) = \mathbf{v}_a^\top \tanh(W\mathbf{q} + U\mathbf{k}) .
# $$ (eq-additive)
#
# This is the *additive* score (가산 점수), named for the sum inside the $\tanh$. In a model,
# $W$, $U$ and $\mathbf{v}_a$ are learned with everything else. To compute it by hand, take the
# smallest choice that still tells the keys apart: $W$ and $U$ copy the query and the key into
# $A = 2$ hidden units, and $\mathbf{v}_a$ counts the first unit for a key and the second
# against it. The cell takes the steps a pencil takes, for all three keys at once, and checks
# them against `ac.additive_scores`, which computes equation {eq}`eq-additive` for every pair:

# %%
W = np.eye(2)  # [A, d_k]: A = 2 hidden units, the query copied in
U = np.eye(2)  # [A, d_k]: the key copied in
v_a = np.array([1.0, -1.0])  # [A]: unit 1 counts for a key, unit 2 against it
# W q + U k for every key: [A] + [S, d_k] @ [d_k, A] -> [S, A]
pre = W @ q + keys @ U.T
hidden = np.tanh(pre)  # [S, A]
additive = hidden @ v_a  # [S, A] @ [A] -> [S]
by_pencil = np.allclose(additive, ac.additive_scores(q, keys, W, U, v_a))
print(additive.round(3), " same as ac.additive_scores:", by_pencil)

# %% tags=["hide-input"]
step_table(
    {
        "W q + U k": [vector(p) for p in pre],
        "tanh(W q + U k)": [vector(h) for h in hidden],
        "vₐᵀ tanh(…)": additive,
        "q·k": scores,
    },
    index=["k1", "k2", "k3"],
)

# %% [markdown]
# By hand, for the first key: $W\mathbf{q} + U\mathbf{k}_1 =$ {eval}`vector(pre[0])`, its
# $\tanh$ is {eval}`vector(hidden[0])`, and $\mathbf{v}_a$ takes the first unit minus the second:
# {eval}`dec(additive[0])`. The three additive scores are {eval}`dec(additive)` (the hidden
# layer written out agrees with `ac.additive_scores`: {eval}`by_pencil`). The dot product ties
# the first and the third key at {eval}`plain(scores[0])`; this network, which holds a key's
# second component against it, ranks the third key below the first. Neither ranking is the
# right one: a trained network learns $W$, $U$ and $\mathbf{v}_a$ to score whatever its task
# needs, and can compare a query and a key of different sizes.
#
# Why, then, does the rest of this book use the dot product? Luong, Pham and Manning found the
# dot product and the bilinear ("general") score $\mathbf{q}^\top W \mathbf{k}$, both
# multiplicative scores (곱셈 점수), doing well and an additive ("concat") score poorly
# ([Luong et al., 2015](references.md)), and the Transformer's authors chose the dot product
# for its speed ([Vaswani et al., 2017](references.md)); the introduction's
# [short history](intro.md#a-short-history) tells the story in their words. What the speed is
# made of is a folded aside at the end of the next section, once every score is one matrix
# product.
#
# ## Every score at once: $QK^\top$
#
# A sentence has many queries, one per word. Stack them as the rows of a matrix (행렬) $Q$ of
# shape $(L, d_k)$, $L$ queries of width $d_k$, and the keys as the rows of $K$, shape
# $(S, d_k)$. (PyTorch's documentation, whose shape legend `attn_core`'s docstrings mirror,
# calls this width $E$.) The transpose (전치) $K^\top$ turns the rows of $K$ into columns, and
# then every score is one entry of a single matrix product:
#
# $$
# \underbrace{Q}_{(L,\,d_k)}\;\underbrace{K^\top}_{(d_k,\,S)} =
# \underbrace{QK^\top}_{(L,\,S)}, \qquad (QK^\top)_{ij} = \mathbf{q}_i\cdot\mathbf{k}_j .
# $$ (eq-qkt)
#
# Row $i$ holds query $i$'s scores against every key. Take the worked example's query and
# three more, so that the four queries and the three keys tell rows from columns:

# %%
# [L, d_k] = [4, 2]: the worked example's query first, then three more
Q = np.array([q, [0.0, 1.0], [-1.0, 0.5], [1.0, 1.0]])
all_scores = Q @ keys.T  # [L, d_k] @ [d_k, S] -> [L, S]
print("Q:", Q.shape, " K:", keys.shape, " Kᵀ:", keys.T.shape, " QKᵀ:", all_scores.shape)
print(all_scores)
print("row 0 is the scores of q from before:", np.allclose(all_scores[0], scores))
print("same as ac.dot_scores:", np.allclose(all_scores, ac.dot_scores(Q, keys)))

# %% [markdown]
# The result has shape {eval}`all_scores.shape`, one row per query and one column per key, and
# its first row, {eval}`plain(all_scores[0])`, is the worked example's scores from before. One matrix
# product does all $L \times S$ dot products, which is why attention runs fast on hardware built
# for matrix products, and also why its cost grows with $L \times S$.
#
# ```{admonition} Aside: what the additive score costs
# :class: dropdown
#
# The additive score of equation {eq}`eq-additive` needs about as many operations, but not the
# same kind of work ($W\mathbf{q}$ and $U\mathbf{k}$ are computed once per query and once per
# key, before the pairs):
#
# | | dot product, $QK^\top$ | additive score |
# |---|---|---|
# | work per (query, key) pair | $d_k$ multiply-adds | $A$ additions, $A$ $\tanh$s, $A$ multiply-adds |
# | held in memory | the $L \times S$ scores | an $(L, S, A)$ array, $A$ times the scores, in a straightforward implementation |
# | one matrix product? | yes | no: the pairwise step is elementwise |
#
# With $A$ about $d_k$ the counts are of the same order, yet the dot product is faster and
# smaller in practice, because it runs as one matrix product, on highly optimised
# matrix-multiplication code: the Transformer's authors' argument, quoted in the
# introduction's [short history](intro.md#a-short-history)
# ([Vaswani et al., 2017](references.md), §3.2.1).
# ```
#
# ### A batch of sentences: why not `k.T`
#
# For a matrix, `keys.T` is the transpose. In practice the arrays carry more axes in front: a
# batch (배치) of $B$ sentences gives queries of shape $(B, L, d_k)$ and keys $(B, S, d_k)$, and
# several heads add one more axis. The transpose must swap only the *last two* axes. NumPy's
# `k.T` reverses *all* of them:

# %%
B, L, S, d_k = 2, 3, 4, 5
q_batch = rng.normal(size=(B, L, d_k))
k_batch = rng.normal(size=(B, S, d_k))
print("k:                       ", k_batch.shape)
print(
    "k.T:                     ",
    k_batch.T.shape,
    " <- the batch axis moved to the end",
)
try:
    q_batch @ k_batch.T
except ValueError as err:
    wrapped = textwrap.wrap(str(err), 60)  # the full message
    print("q @ k.T fails:", *wrapped, sep="\n  ")

# %% [markdown]
# Here `q @ k.T` failed loudly. That is the lucky case: when the sizes happen to line up (for
# instance when $B = S = d_k$, or when $B = 1$ and $S = d_k$) it runs anyway and, unless $B$,
# $S$ and $d_k$ are all 1, returns wrong numbers, sometimes in a wrong shape, without a word.
# The right transpose turns each $(S, d_k)$ block of keys into $(d_k, S)$ and leaves the batch
# axis where it is; writing it is the last exercise, and `ac.dot_scores` does it for you. The
# one before it gets the same scores with no transpose at all.
#
# ## Try it: the query pad
#
# Drag the query $\mathbf{q}$ (or any key) around the plane; the pad shows each key's dot
# product and its $\cos\theta$. Point $\mathbf{q}$ straight at a key, then at right angles
# to it, then away; then make a key long and watch its score grow on both sides: it wins from
# a worse angle, and it sinks further when $\mathbf{q}$ points away. It starts at the worked
# example and runs in the browser, even on the static site. (The same pad returns in
# [Chapter 4](04_worked_example.ipynb), showing the weights, the scaling and the values too.)

# %%
pad = QueryPad(show=())  # dot products and cos θ only
figures.show(
    pad,
    "fig-ch1-pad",
    "The query pad: drag q or a key; each key's q·k and cos θ follow.",
)

# %% [markdown]
# ## Summary
#
# - A query is the search term, a key the index entry, a value the book's content (the explainer's
#   library); the score says how well a query matches a key.
# - The dot product of a query and a key is $\sum_m q_m k_m$, equation {eq}`eq-dot`, which
#   equals $\|\mathbf{q}\|\|\mathbf{k}\|\cos\theta$, equation {eq}`eq-dot-cos`.
# - Bahdanau's additive score $\mathbf{v}_a^\top\tanh(W\mathbf{q} + U\mathbf{k})$, equation
#   {eq}`eq-additive`, is a small learned network run once per (query, key) pair; the dot product
#   needs no parameters and computes every pair in one matrix product.
# - It is largest for the same direction, zero at a right angle and negative for opposite
#   directions. The lengths scale it: a long key scores higher with the queries on its side
#   (it can win at a worse angle) and lower with the queries pointing away.
# - All scores of $L$ queries against $S$ keys are one product $QK^\top$,
#   $(L, d_k) @ (d_k, S) \to (L, S)$, equation {eq}`eq-qkt`.
# - With leading batch or head axes, `k.T` moves the batch axis too: transpose the keys' last
#   two axes only (the last two exercises).
#
# Next, [Chapter 2](02_softmax.ipynb) turns a row of scores into weights.
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
# ````{solution} ex-ch1-scores-by-hand
# :class: dropdown
#
# Each score is $q_1 k_1 + q_2 k_2$, written out key by key:
#
# ```python
# answer = [2 * 1 + 1 * 0, 2 * 0 + 1 * 3, 2 * (-1) + 1 * 1]
# ch1.scores_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The angle behind a score
# :label: ex-ch1-cosine-by-hand
#
# For the same query $\mathbf{q}$ and the *second* key, compute $\cos\theta$ by hand (to three
# decimals), using equation {eq}`eq-dot-cos`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# You already have $\mathbf{q}\cdot\mathbf{k}$ from the exercise above. Divide it by both
# lengths, $\|\mathbf{q}\| = \sqrt{q_1^2 + q_2^2}$ and $\|\mathbf{k}\|$ likewise.
# ```

# %%
answer = ...  # cos θ, a number
ch1.cosine_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch1-cosine-by-hand
# :class: dropdown
#
# The dot product, then both lengths, then the quotient (rounded to three decimals, as by
# hand). Here $\mathbf{q} = (2, 1)$ and the second key is $(0, 3)$: the dot product is 3, the
# lengths are $\sqrt{5}$ and 3, so $\cos\theta = 3/(3\sqrt{5}) = 1/\sqrt{5} \approx$
# {eval}`dec(ch1.cosine_by_hand.solution)`.
#
# ```python
# dot = 2 * 0 + 1 * 3  # q = (2, 1), the second key = (0, 3)
# length_q, length_k = (2**2 + 1**2) ** 0.5, (0**2 + 3**2) ** 0.5
# answer = round(dot / (length_q * length_k), 3)
# print(f"cos θ = {answer}, θ = {np.degrees(np.arccos(answer)):.1f}°")
# ch1.cosine_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Bahdanau's additive score by hand
# :label: ex-ch1-additive-by-hand
#
# The cell below prints a query $\mathbf{q}$, a key $\mathbf{k}$, the matrices $W$ and $U$ and
# the vector $\mathbf{v}_a$ of a small additive score, equation {eq}`eq-additive`, and a few
# values of $\tanh$. Without a computer, compute
# $\mathbf{v}_a^\top \tanh(W\mathbf{q} + U\mathbf{k})$ to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Three steps, as in the table of the section on the additive score: the hidden layer
# $W\mathbf{q} + U\mathbf{k}$ (two numbers), its $\tanh$ unit by unit (read them from the
# printed values), then the dot product with $\mathbf{v}_a$.
# ```

# %%
q_add, k_add, W_add, U_add, va_add = ch1.additive_by_hand.inputs
print("q =", q_add, "  k =", k_add, "  v_a =", va_add)
print("W =", W_add.tolist(), "  U =", U_add.tolist())
print("tanh:", {x: round(float(np.tanh(x)), 3) for x in (1, 2, 3, 4)})
answer = ...  # your score, a number
ch1.additive_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch1-additive-by-hand
# :class: dropdown
#
# $W$ and $U$ are the identity, so the hidden layer is $\mathbf{q} + \mathbf{k} = (2, 4)$;
# its $\tanh$ is about $(0.964, 0.999)$, and $\mathbf{v}_a = (1, -1)$ takes the first unit minus
# the second: {eval}`dec(ch1.additive_by_hand.solution)`. The dot product of the same pair is
# 3; the tanh squashes both units close to 1, so their difference is nearly 0.
#
# ```python
# hidden_add = np.tanh(W_add @ q_add + U_add @ k_add)  # [A]
# answer = round(float(va_add @ hidden_add), 3)
# print("tanh(W q + U k) =", hidden_add.round(3), "  score =", answer)
# ch1.additive_by_hand.check(answer)
# ```
# ````

# %% [markdown]
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
# ````{solution} ex-ch1-which-key-wins
# :class: dropdown
#
# This query points along the first axis with length 1, so each score is simply the key's first
# component. Key b is further off in angle than a, but so much longer that it wins; c is the
# longest of all, but at a right angle to $\mathbf{q}$ it scores nothing. The scores, computed:
#
# ```python
# win_keys = np.stack(list(keys_win.values()))  # [3, d_k]
# print(dict(zip(keys_win, ac.dot_scores(q_win, win_keys).tolist())))
# answer = "b"
# ch1.which_key_wins.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict, then run: a shorter query and a key that points away
# :label: ex-ch1-long-key-away
#
# The cell below prints a query $\mathbf{q}$ and a key $\mathbf{k}$ that points away from it
# (the angle between them is more than 90°). Halve the *query's* length, keeping its direction
# and the key. Does the score $\mathbf{q}\cdot\mathbf{k}$ go `"up"`, `"down"`, or stay the
# `"same"`? Answer first; the solution runs it.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-dot-cos`: halving the query halves $\|\mathbf{q}\|$ and leaves $\theta$
# alone. What is the sign of $\cos\theta$ beyond 90°, and which way does halving move a
# negative number?
# ```

# %%
q_away, k_away = ch1.long_key_away.inputs
print("q =", q_away, "  k =", k_away, "  q·k =", q_away @ k_away)
answer = ...  # "up", "down" or "same"
ch1.long_key_away.check(answer)

# %% [markdown]
# ````{solution} ex-ch1-long-key-away
# :class: dropdown
#
# Up. The score is $\|\mathbf{q}\|\|\mathbf{k}\|\cos\theta$ with $\cos\theta < 0$, so
# halving $\|\mathbf{q}\|$ halves a negative number, which brings it up towards 0 (the listing
# prints both scores). Length works the same way on both vectors: a shorter query makes every
# score less extreme, the positive ones lower and the negative ones higher, the mirror image of
# the long key of the section on length.
#
# ```python
# print("q·k       =", q_away @ k_away)
# print("(q / 2)·k =", (q_away / 2) @ k_away)
# answer = "up"
# ch1.long_key_away.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Design, and prove: the best key of a given length
# :label: ex-ch1-best-key
#
# The cell below prints a query $\mathbf{q}$ and a length $r$. Design the key $\mathbf{k}$ of
# length at most $r$ that gets the largest score $\mathbf{q}\cdot\mathbf{k}$, and give it as
# a list of two numbers. Then prove, from equation {eq}`eq-dot-cos`, that no key of length at
# most $r$ scores more than $r\,\|\mathbf{q}\|$, and that yours is the only one that reaches
# it. (The check tests the key; the proof is yours, with one in the solution to compare.)
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# In $\|\mathbf{q}\|\|\mathbf{k}\|\cos\theta$ only two factors are yours to choose. How
# large can each be?
# ```

# %%
q_design, r_design = ch1.best_key.inputs
print("q =", q_design, "  r =", r_design)
answer = ...  # your key, e.g. [0.0, 0.0]
ch1.best_key.check(answer)

# %% [markdown]
# ````{solution} ex-ch1-best-key
# :class: dropdown
#
# **Proof.** By equation {eq}`eq-dot-cos`,
# $\mathbf{q}\cdot\mathbf{k} = \|\mathbf{q}\|\,\|\mathbf{k}\|\cos\theta$. Here
# $\|\mathbf{k}\| \le r$. If $\cos\theta \le 0$ the score is at most 0, below
# $r\,\|\mathbf{q}\|$; otherwise $\|\mathbf{k}\|\cos\theta \le r\cos\theta \le r$, so in
# every case $\mathbf{q}\cdot\mathbf{k} \le r\,\|\mathbf{q}\|$
# (the Cauchy–Schwarz inequality, 코시–슈바르츠 부등식). Equality needs both bounds at once:
# $\|\mathbf{k}\| = r$ and $\cos\theta = 1$, that is $\mathbf{k}$ pointing exactly along
# $\mathbf{q}$. So the one best key is $r\,\mathbf{q}/\|\mathbf{q}\|$: the query's
# direction, stretched to the length allowed. A key cannot buy a higher score by its direction
# alone; only its length lifts the ceiling, which is why a learned model can make one key
# "loud" simply by making it long.
#
# ```python
# answer = r_design * q_design / np.linalg.norm(q_design)  # r q / ‖q‖
# print("k =", answer, " length", np.linalg.norm(answer))
# print("q·k =", q_design @ answer, " r‖q‖ =", r_design * np.linalg.norm(q_design))
# ch1.best_key.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the score matrix with einsum
# :label: ex-ch1-my-scores
#
# Equation {eq}`eq-qkt` says entry $(i, j)$ is $\sum_d q_{i,d}\,k_{j,d}$. NumPy's
# `np.einsum` computes exactly such sums from a string that gives each axis a letter: a letter
# that appears in the inputs but not after the `->` is summed over, the others are kept in the
# order the output names them, and `...` stands for any axes in front. So
# `np.einsum("d,d->", q, k)` is the dot product $\mathbf q \cdot \mathbf k$, and
# `np.einsum("sd->ds", keys)` is $K^\top$. Write `my_scores(q, k)` with one `np.einsum` and no
# transpose (no `attn_core`): every score $\mathbf{q}_i \cdot \mathbf{k}_j$ for queries of
# shape $(\dots, L, d_k)$ and keys of shape $(\dots, S, d_k)$, as an array of shape
# $(\dots, L, S)$. Before you write it, say which letter is summed and what shape the scores
# have for queries $(2, 4, 3, 8)$ (batch, heads, $L$, $d_k$) and keys $(2, 4, 5, 8)$; then
# print the shape to check. The check runs your function on the worked example, on two
# matrices, on a batch of sentences and on a batch with heads.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Call the query axis `l`, the key axis `s` and the width `d`. Which letters does the output
# keep, and in which order? Then put `...` in front of all three parts.
# ```


# %%
def my_scores(q, k): ...  # your code here


ch1.my_scores.check(my_scores)

# %% [markdown]
# ````{solution} ex-ch1-my-scores
# :class: dropdown
#
# The width `d` is in both inputs and not in the output, so it is summed: entry $(l, s)$ is
# $\sum_d q_{l,d}\,k_{s,d} = \mathbf q_l \cdot \mathbf k_s$. The output keeps `l` then `s`,
# one row per query, and `...` carries the batch and head axes through untouched: queries
# $(2, 4, 3, 8)$ and keys $(2, 4, 5, 8)$ give scores $(2, 4, 3, 5)$. Without `...` the string
# fits only matrices, and einsum refuses a batch.
#
# ```python
# def my_scores(q, k):
#     return np.einsum("...ld,...sd->...ls", q, k)  # sum over d: [..., L, S]
#
#
# ch1.my_scores.check(my_scores)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: scores for a batch
# :label: ex-ch1-bug-kt
#
# The function printed below computes the scores of a single sentence correctly. Copy it into
# the next cell as `fixed_scores` and fix it so that it works for any leading axes, as its
# docstring promises: a batch of sentences, $(B, L, d_k)$ queries and $(B, S, d_k)$ keys, and
# a batch of heads, $(B, H, L, d_k)$. The check runs it on a matrix, on batches of 1 and 2, one
# of them square ($B = L = S = d_k$), where the bug does not raise, and on a batch of heads.
# Before you
# fix it, say what shape `k.T` has for keys $(B, S, d_k) = (2, 5, 4)$ and why
# `q @ k.T` fails there but runs when $B = L = S = d_k$.
# ```

# %%
ch1.kT_batch.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print `k.T.shape` for keys of shape $(2, 5, 4)$. Which axes did `.T` move?
# ```


# %%
def fixed_scores(q, k):
    raise NotImplementedError  # copy the function above here and fix it


ch1.kT_batch.check(fixed_scores)

# %% [markdown]
# ````{solution} ex-ch1-bug-kt
# :class: dropdown
#
# `.T` reverses *every* axis, so on a batch it moves the batch axis to the end: on $(B, S, d_k)$
# keys it gives $(d_k, S, B)$, and the product either fails or, when the sizes happen to fit,
# pairs the wrong numbers. Swap only the last two axes:
#
# ```python
# def fixed_scores(q, k):
#     """All scores q·k: q (..., L, E), k (..., S, E) -> (..., L, S)."""
#     return q @ np.swapaxes(k, -1, -2)  # [..., L, E] @ [..., E, S] -> [..., L, S]
#
#
# ch1.kT_batch.check(fixed_scores)
# ```
# ````
