# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (ch-worked-example)=
# # The worked example, by hand (손으로 푸는 예제)
#
# The first three chapters built the pieces: the dot product (내적) scores a query against a key,
# softmax (소프트맥스) turns scores into weights, and dividing by $\sqrt{d_k}$ keeps the scores
# in a range where softmax still learns. This chapter puts them together on the example of
# the Korean write-up of the Quanta Magazine column "Is 'Attention' the Essence of
# Intelligence?" (the Quanta write-up, from here on; see the [references](references.md)),
# and follows one query (쿼리) all the way
# through, one small step at a time.
#
# After this chapter you will be able to:
#
# - compute an attention output with pencil and paper: scores, scaling, exponentials, weights
#   and the weighted sum (가중합), and check every digit against `attn_core`;
# - say what the scaling changes in the weights and in the output;
# - draw the output as a point among the values and explain why it can never leave their
#   convex hull;
# - write the attention of several queries at once as two matrix products;
# - derive how the output moves when the query moves (an exercise: a proof, then numbers).
#
# Every number in the text is computed by the code cells and rounded to three decimals, as the
# Quanta write-up does.

# %%
import math

import attn_core as ac
import numpy as np
from attn_book.data import SENTENCE_KO, quanta_example, sentence_example
from attn_book.exercises import ch04_worked_example as ch4
from attn_book.figures import Figures
from attn_book.plots import plot_convex_combination
from attn_book.prose import dec, plain, vector
from attn_book.tables import step_table
from attn_book.widgets import QueryPad

figures = Figures(chapter=4)

# %% [markdown]
# ## The example
#
# One query $\mathbf q$ looks at three words. Each word $j$ offers a key (키) $\mathbf k_j$, what
# it can be found by, and a value (밸류) $\mathbf v_j$, what it hands over when it is looked at.

# %%
example = quanta_example()  # the Quanta write-up's example
q = example.query  # [d_k]
K = example.keys  # [S, d_k]: one key per row
V = example.values  # [S, d_v]: one value per row
d_k = q.shape[-1]
words = ["word 1", "word 2", "word 3"]
print("q =", vector(q))
step_table(
    {"key kⱼ": [vector(k) for k in K], "value vⱼ": [vector(v) for v in V]},
    index=words,
)

# %% [markdown]
# The query is $\mathbf q =$ {eval}`vector(q)` and the vectors have $d_k =$ {eval}`d_k`
# dimensions (차원), small enough to do everything by hand. The whole computation is the formula
# of scaled dot-product attention (스케일 내적 어텐션) for a single query:
#
# $$
# \mathbf o = \sum_{j} w_j \mathbf v_j, \qquad
# w_j = \frac{e^{s_j}}{\sum_l e^{s_l}}, \qquad
# s_j = \frac{\mathbf q \cdot \mathbf k_j}{\sqrt{d_k}}.
# $$ (eq-ch4-attention)
#
# Read {eq}`eq-ch4-attention` from right to left: that is the order of the five steps below.
#
# ## Step 1: dot products give the scores (점수)
#
# Multiply the query and each key component by component and add: $\mathbf q\cdot\mathbf k_j =
# q_1 k_{j1} + q_2 k_{j2}$. With the keys as the rows of $K$, all three at once are $K\mathbf q$:

# %%
scores = K @ q  # [S, d_k] @ [d_k] -> [S]
scores

# %% [markdown]
# The scores are {eval}`plain(scores)`. Keys 1 and 3 have a component along the query's
# direction and so score {eval}`plain(scores[0])` each; key 2 is orthogonal (직교) to the query
# and scores zero.
#
# ## Step 2: divide by $\sqrt{d_k}$
#
# Divide every score by the square root of the dimension
# ([Chapter 3](03_scaling.ipynb) explains why we divide):

# %%
root_d_k = math.sqrt(d_k)
scaled = scores / root_d_k  # Chapter 3: scores' spread near 1 for random unit-variance components
scaled.round(3)

# %% [markdown]
# With $d_k =$ {eval}`d_k`, $\sqrt{d_k} \approx$ {eval}`dec(root_d_k)`. The scaled scores are $s_1 \approx$ {eval}`dec(scaled[0])`, $s_2 =$ {eval}`dec(scaled[1])`
# and $s_3 \approx$ {eval}`dec(scaled[2])`. From here on $s_j$ means the *scaled* score, as in
# equation {eq}`eq-ch4-attention`; in [Chapter 2](02_softmax.ipynb) it was the raw dot product.
#
# ## Step 3: exponentials (지숫값) and their sum
#
# The softmax starts by raising $e$ to each scaled score, which makes every number positive:

# %%
exps = np.exp(scaled)  # [S], all positive
total = exps.sum()
step_table(
    {"sⱼ": scaled, "exp(sⱼ)": exps},
    index=words,
    footer=("sum", {"exp(sⱼ)": total}),
)

# %% [markdown]
# $e^{s_1} \approx$ {eval}`dec(exps[0])`, $e^{s_2} =$ {eval}`plain(exps[1])`,
# $e^{s_3} \approx$ {eval}`dec(exps[2])`, and the sum is {eval}`dec(exps[0])` +
# {eval}`plain(exps[1])` + {eval}`dec(exps[2])` $\approx$ {eval}`dec(total)`.
#
# ## Step 4: the weights (가중치)
#
# Divide each exponential by the sum. That is the softmax, and the results are the attention
# weights: positive, and they add up to 1.

# %%
weights = exps / total  # [S], sums to 1
weights_sum = weights.sum()
# key 3 against key 1: its angle to the query, and its length over key 1's
angle_3 = np.degrees(np.arccos(K[2] @ q / (np.linalg.norm(K[2]) * np.linalg.norm(q))))
length_ratio_3 = np.linalg.norm(K[2]) / np.linalg.norm(K[0])
weights.round(3)

# %% [markdown]
# $w_1 \approx$ {eval}`dec(exps[0])` / {eval}`dec(total)` $\approx$ {eval}`dec(weights[0])`,
# $w_2 \approx$ {eval}`dec(weights[1])` and $w_3 \approx$ {eval}`dec(weights[2])`, which add up
# to {eval}`dec(weights_sum)`. Words 1 and 3, whose keys score equally, share most of the
# attention: key 3 points {eval}`plain(angle_3)`° away from the query but is
# {eval}`dec(length_ratio_3)` times as long as key 1, the length effect of
# [Chapter 1](01_dot_product.ipynb#length-matters-too). Word 2, whose key is orthogonal to the query, still gets
# {eval}`dec(weights[1])`, because $e^{s_2}$ is not zero. The library gives the same weights:

# %%
np.testing.assert_allclose(ac.attention_weights(q, K), weights)

# %% [markdown]
# ## Step 5: the weighted sum of the values
#
# The output (출력) is each value scaled by its weight, then added up, one component at a time.
# Here the values have as many components as the keys, but nothing ties their width, $d_v$, to
# $d_k$: the keys decide the weights, the values are only averaged with them, and the output
# has $d_v$ components (an exercise of [Chapter 5](05_projections.ipynb) has $d_v \ne d_k$):

# %%
output = weights @ V  # [S] @ [S, d_v] -> [d_v]
contributions = weights[:, None] * V  # row j is wⱼ vⱼ
step_table(
    {
        "wⱼ": weights,
        "wⱼvⱼ (first)": contributions[:, 0],
        "wⱼvⱼ (second)": contributions[:, 1],
    },
    index=words,
    footer=(
        "sum = o",
        {"wⱼvⱼ (first)": output[0], "wⱼvⱼ (second)": output[1]},
    ),
)

# %% [markdown]
# In numbers, $\mathbf o \approx$ {eval}`dec(weights[0])` × {eval}`vector(V[0])` +
# {eval}`dec(weights[1])` × {eval}`vector(V[1])` + {eval}`dec(weights[2])` ×
# {eval}`vector(V[2])`. The output is $\mathbf o \approx$ {eval}`vector(output)`: the query's word now carries mostly
# the values of words 1 and 3. That is how attention updates the representation of one word
# (in a real layer this output then goes through one more matrix, $W_O$, and is added back to
# the word's own vector by a residual connection, 잔차 연결: [Chapter
# 7](07_heads_and_masks.ipynb)). All five steps are one call to the library:

# %%
np.testing.assert_allclose(ac.scaled_dot_product_attention(q, K, V), output)

# %% [markdown]
# A pencil keeps three decimals at every step. Does rounding early change the answer? Redo steps
# 4 and 5 from the exponentials as the table shows them:

# %%
exps_3 = exps.round(3)  # as written in the table
weights_3 = (exps_3 / exps_3.sum()).round(3)
output_3 = (weights_3 @ V).round(3)
print("weights", weights_3, " output", output_3)

# %% [markdown]
# The same three decimals as {eval}`dec(weights)` and {eval}`vector(output)`. In general
# rounding early can move the last digit, so keep one more decimal in the middle steps than you
# want at the end.
#
# ## The same example without the scaling
#
# Without step 2, the softmax gets the raw scores {eval}`plain(scores)` directly, as the
# Quanta write-up also shows; the division by $\sqrt{d_k}$ is the only difference:

# %%
# step 2 left out: no division by √d_k
weights_unscaled = ac.softmax(scores)
output_unscaled = weights_unscaled @ V
output_unscaled_3 = weights_unscaled.round(3) @ V  # rounded weights
step_table({"wⱼ unscaled": weights_unscaled, "wⱼ scaled": weights}, index=words)

# %% [markdown]
# Unscaled, the weights are {eval}`dec(weights_unscaled)` instead of {eval}`dec(weights)`:
# more extreme, because the gaps between the scores are $\sqrt{d_k}$ times larger before the
# exponential amplifies them. The output moves to {eval}`vector(output_unscaled)`, further
# towards $\mathbf v_1$. A pencil that multiplies the rounded weights gets
# {eval}`vector(output_unscaled_3)`, one unit off in the last digit, as the rounding advice
# above predicts. With $d_k =$ {eval}`d_k` the difference is modest; at the widths of real
# models it is not ([Chapter 3](03_scaling.ipynb)).
#
# ## A picture: the output is a convex combination
#
# The weights are positive and add up to 1, so the output $\sum_j w_j \mathbf v_j$ is a *convex
# combination* (볼록 결합) of the values: a weighted average, which always lies inside the
# smallest convex shape containing them, their convex hull (볼록 껍질). For three values in the
# plane that shape is a triangle; when the three values are not collinear, the weights are
# the point's barycentric coordinates (무게중심 좌표), and they are unique: no other weights
# give the same point. The worked example's values hold a surprise, though:

# %%
value_sums = V.sum(axis=1)  # v_j1 + v_j2 for each value
output_sum = output.sum()
value_sums

# %% [markdown]
# Every value has coordinates that add up to {eval}`plain(value_sums[0])`: the three points lie on
# one line, $x + y =$ {eval}`plain(value_sums[0])`, with $\mathbf v_3$ exactly halfway between
# $\mathbf v_1$ and $\mathbf v_2$. Their "triangle" is flat, a segment, and every output of this
# example lies on it: {eval}`dec(output[0])` + {eval}`dec(output[1])` =
# {eval}`dec(output_sum)`. On a segment the weights are no longer coordinates: since
# $\mathbf v_3 = (\mathbf v_1 + \mathbf v_2)/2$, moving some weight $t$ off $\mathbf v_3$ and
# $t/2$ onto each of $\mathbf v_1$ and $\mathbf v_2$ gives the same output, so many weight
# triples land on the same point. To see a real triangle, move $\mathbf v_3$ off the line and keep
# everything else. The weights do not change (they depend only on the query and the keys), so
# the output moves to the same mix of the new values:

# %%
V_triangle = np.array([V[0], V[1], [2.0, 2.0]])  # v3 moved off the line
output_triangle = weights @ V_triangle
output_triangle.round(3)

# %% tags=["hide-input"]
angles = np.linspace(0.0, 2.0 * np.pi, 181)
turning = np.stack([np.cos(angles), np.sin(angles)], axis=-1)  # [181, 2] unit queries
middle, half = (output + output_unscaled) / 2, 0.2
panels = [
    {
        "values": V,
        "title": "the worked example's values (collinear)",
        "outputs": {"o, scaled": output, "o, unscaled": output_unscaled},
        "path": ac.scaled_dot_product_attention(turning, K, V),
        "inset": (
            middle[0] - half,
            middle[0] + half,
            middle[1] - half,
            middle[1] + half,
        ),
    },
    {
        "values": V_triangle,
        "title": f"v₃ moved to {vector(V_triangle[2])}",
        "outputs": {"o, scaled": output_triangle},
        "path": ac.scaled_dot_product_attention(turning, K, V_triangle),
    },
]
figures.show(
    plot_convex_combination(panels),
    "fig-convex",
    "The attention output is a weighted average of the values. Left: the "
    "worked example's values lie on the line $x + y = {value_sum}$, so the "
    "output (circle: scaled; diamond: unscaled) stays on that segment; the "
    "inset magnifies the two outputs, and the dotted curve is the output as "
    "a unit query turns once round the circle. Right: with $\\mathbf v_3$ "
    "moved to {moved_value} the hull is a true triangle, and the output "
    "{output_triangle} sits inside it, at barycentric coordinates equal to "
    "the weights.",
    value_sum=plain(V[0].sum()),
    moved_value=vector(V_triangle[2]),
    output_triangle=vector(output_triangle),
)

# %% [markdown]
# ## Several queries at once: $Q$, $K$, $V$ as matrices (행렬)
#
# So far one query. When every word of a sentence asks its own question, stack the queries as
# the rows of a matrix $Q$, as the keys already are in $K$. The scores of all queries against all
# keys are then one matrix product, and the whole computation is two:
#
# $$
# \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V
# $$ (eq-ch4-matrix)
#
# with the softmax taken along each row. Entry $(i, j)$ of $QK^\top$ is
# $\mathbf q_i \cdot \mathbf k_j$. Take the sentence of the Korean explainer of queries,
# keys and values, "나는 사과를 먹었다" (I ate the apple), with one small hand-made query, key
# and value per word; the keys and values are the ones above, and the query of
# "사과를" is our $\mathbf q$:

# %%
sentence = sentence_example()
tokens = list(SENTENCE_KO)
Q_s, K_s, V_s = sentence.query, sentence.keys, sentence.values
step_table(
    {
        "query qᵢ": [vector(row) for row in Q_s],
        "key kᵢ": [vector(row) for row in K_s],
        "value vᵢ": [vector(row) for row in V_s],
    },
    index=tokens,
)

# %% [markdown]
# Now all nine scores at once. `K_s.T` would do for these 2-D arrays, but, as the last
# exercise of [Chapter 1](01_dot_product.ipynb) finds, `np.swapaxes` is the transpose that
# stays right once batch axes appear. (NumPy 2.0 and later, and PyTorch, also name that
# transpose of the last two axes `K_s.mT`; this book keeps `np.swapaxes`, because NumPy 1.26,
# which it still supports, has no `.mT`.)

# %%
K_s_t = np.swapaxes(K_s, -1, -2)  # [3, 2] -> [2, 3]
# [3, 2] @ [2, 3] -> [3, 3], one row per query
weights_s = ac.softmax(Q_s @ K_s_t / math.sqrt(d_k), axis=-1)
output_s = weights_s @ V_s  # [3, 3] @ [3, 2] -> [3, 2]
first_row = weights_s[0]  # the weights of 나는's query
first_row_sum, first_row_sum_3 = first_row.sum(), first_row.round(3).sum()
step_table({t: weights_s[:, j] for j, t in enumerate(tokens)}, index=tokens)

# %% [markdown]
# Row $i$ holds the weights of word $i$'s query over the three keys (the columns), and each row
# sums to 1. Rounded to three decimals a row can add up to one unit more or less: the row of
# "{eval}`tokens[0]`" shows {eval}`dec(first_row, sep=" + ")` = {eval}`dec(first_row_sum_3)`,
# while its unrounded weights sum to {eval}`dec(first_row_sum)`. The row of "사과를" is the
# hand computation:

# %%
apple = tokens.index("사과를")  # the second row
np.testing.assert_allclose(weights_s[apple], weights)
np.testing.assert_allclose(output_s[apple], output)

# %% [markdown]
# Its output is {eval}`vector(output_s[apple])`, the same as by hand, and the query of "사과를"
# puts {eval}`dec(weights_s[apple, 0])` on "나는" and {eval}`dec(weights_s[apple, 2])` on "먹었다", the
# explainer's conditional at work: *if* "나는" and "먹었다" are judged related to "사과", they get
# high scores. Here they are, and they do. But nothing here *found* that relation. These
# vectors are the worked example's, relabelled as words: we chose the query of "사과를" to point
# at the keys we gave "나는" and "먹었다", so the relatedness is assumed, not produced. [Chapter
# 5](05_projections.ipynb) produces it: there the queries, keys and values are made from the
# words' own features by three matrices (learned in a real model, chosen by hand there so that
# they can be read), and "사과를" attends to "나는" and "먹었다" because of what those words are.
#
# ## Drag the query away, and come back
#
# The query pad starts at the worked example: the query, the three keys (dots) and the three
# values (squares), with the scores, the weights as bars and the output $\mathbf o$. Check that
# it shows the numbers of this chapter; then drag $\mathbf q$ away and watch the weights and the
# output move along the values' segment; switch the scaling off to see the unscaled weights;
# drag a value off the line; and come back. The figure runs in the browser, even on the static
# site.

# %%
pad = QueryPad()
figures.show(
    pad,
    "fig-pad",
    "The worked example, live: drag the query $\\mathbf q$, the keys or the values.",
)

# %% [markdown]
# The pad computes with `attn_core`, so setting its query from code gives this chapter's numbers:

# %%
pad.query = tuple(q)
np.testing.assert_allclose(pad.weights, weights)
np.testing.assert_allclose(pad.output, output)

# %% [markdown]
# ## Summary
#
# - For one query: scores $\mathbf q\cdot\mathbf k_j$, divided by $\sqrt{d_k}$, exponentiated,
#   divided by their sum (the softmax), give weights that are positive and add up to 1; the
#   output is the weighted sum of the values. On the worked example: weights
#   {eval}`dec(weights)` and output {eval}`vector(output)`.
# - Without the scaling the weights are more extreme: {eval}`dec(weights_unscaled)`.
# - The output is a convex combination of the values: it lies inside their convex hull. The
#   worked example's values happen to be collinear, so there the hull is a segment.
# - Several queries are two matrix products, $\mathrm{softmax}(QK^\top/\sqrt{d_k})\,V$; row $i$
#   is word $i$'s computation.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} The example again, with another query: the weights
# :label: ex-ch4-weights-by-hand
#
# Keep the worked example's three keys and change the query to the one printed below. Follow
# steps 1 to 4 with pencil and paper and give the three weights to three decimals. The two exponentials
# printed below will save you a calculator: $e^{x}$ and $e^{-x}$, where $x$ is the largest of
# your scaled scores.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Steps 1 to 4 of this chapter, in order, with the new query. One score is negative now: its
# exponential is still positive, just smaller than 1.
# ```

# %%
q_new, keys = ch4.weights_by_hand.inputs
# the largest scaled score: not the answer yet
x = max(keys @ q_new) / math.sqrt(d_k)
print("q =", vector(q_new), " keys:", *[vector(k) for k in keys])
print(f"e^x ≈ {math.exp(x):.3f}   e^-x ≈ {math.exp(-x):.3f}")
answer = ...  # your three weights, e.g. [0.0, 0.0, 0.0]
ch4.weights_by_hand.check(answer)

# %%
# the numbers the folded solution quotes (nothing is printed: work them out first)
scores_new = keys @ q_new  # [S, d_k] @ [d_k] -> [S]
scaled_new = scores_new / root_d_k

# %% [markdown]
# ````{solution} ex-ch4-weights-by-hand
# :class: dropdown
#
# The scores are $K\mathbf q$ = {eval}`plain(scores_new)`; divided by $\sqrt{2}$ they are
# {eval}`dec(scaled_new)`. Their exponentials are $e^{x}$, $e^{-x}$ and $e^0 = 1$; divide
# each by their sum. The weights are {eval}`dec(ch4.weights_by_hand.solution, sep=" / ")`. If
# you got the first two the other way round, a sign slipped in step 1: $q_2 = -1$ makes $\mathbf
# q\cdot\mathbf k_2$ negative.
#
# ```python
# # e^x, e^-x and e^0
# exps_by_hand = np.exp(keys @ q_new / math.sqrt(d_k))
# answer = (exps_by_hand / exps_by_hand.sum()).round(3)
# ch4.weights_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The example again, with another query: the output
# :label: ex-ch4-output-by-hand
#
# With the weights of the previous exercise and the worked example's values (printed below),
# finish step 5: the output, two numbers to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Step 5: multiply each value by its weight, then add the three vectors, first components
# together and second components together.
# ```

# %%
_, _, values = ch4.output_by_hand.inputs
print("values:", *[vector(v) for v in values])
answer = ...  # the output, e.g. [0.0, 0.0]
ch4.output_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch4-output-by-hand
# :class: dropdown
#
# Weight each value and add, one component at a time: the output is
# {eval}`vector(ch4.output_by_hand.solution)`. The two coordinates add up to
# {eval}`plain(value_sums[0])` again, as they must for the worked example's values.
#
# ```python
# # the previous exercise's weights
# w1, w2, w3 = ac.attention_weights(q_new, keys)
# answer = [w1 * 2 + w2 * 0 + w3 * 1, w1 * 0 + w2 * 2 + w3 * 1]
# ch4.output_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict, then run: a fourth word joins
# :label: ex-ch4-add-a-word
#
# A fourth word joins the example, with the same key as word 1 and the value printed below; the
# query stays {eval}`vector(q)`. Does word 1's weight $w_1$ go `"up"`, `"down"`, or stay the
# `"same"`? Answer first; the solution runs it. Then, before you open the solution: does the
# output stay on the line $x + y =$ {eval}`plain(value_sums[0])` of the three values?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write $w_1$ as the fraction of step 4. Which of its two parts does a fourth word change, and
# in which direction?
# ```

# %%
q_4, keys_4, values_4 = ch4.add_a_word.inputs
print(f"k4 = {vector(keys_4[3])}   v4 = {vector(values_4[3])}")
answer = ...  # "up", "down" or "same"
ch4.add_a_word.check(answer)

# %%
# for the folded solution: the weights with the first three words and with all four
weights_of = {n: ac.attention_weights(q_4, keys_4[:n]) for n in (3, 4)}
output_four = weights_of[4] @ values_4  # [4] @ [4, d_v] -> [d_v]
output_four_sum = output_four.sum()

# %% [markdown]
# ````{solution} ex-ch4-add-a-word
# :class: dropdown
#
# $w_1$'s numerator $e^{s_1}$ does not change, but the sum it is divided by gains $e^{s_4}$:
# every old weight shrinks to make room, the more so the better the new key matches the query.
# With three words the weights are {eval}`dec(weights_of[3])`; with four,
# {eval}`dec(weights_of[4])`.
#
# The output leaves the line: $\mathbf v_4 =$ {eval}`vector(values_4[3])` is off it, so the four values
# span a real triangle and the output moves into it, to {eval}`vector(output_four)`, whose
# coordinates add up to {eval}`dec(output_four_sum)`, not {eval}`plain(value_sums[0])` (the
# convex-combination picture above).
#
# ```python
# ch4.add_a_word.check("down")
# ```
# ````

# %% [markdown]
# ```{exercise} Prove, then compute: how the output moves with the query
# :label: ex-ch4-gradient
#
# Training moves $W_Q$, and with it the query; how does the output answer? Prove that for one query the
# derivative of the output with respect to the query is the $d_v \times d_k$ matrix
#
# $$
# \frac{\partial \mathbf o}{\partial \mathbf q} = \frac{1}{\sqrt{d_k}} \sum_j w_j
# \,(\mathbf v_j - \mathbf o)\, \mathbf k_j^\top ,
# $$ (eq-ch4-gradient)
#
# whose entry $(a, b)$ is $\partial o_a / \partial q_b$. Then evaluate it by hand on the
# worked example ($\mathbf q$, the keys and the values of this chapter, with the weights and
# the output you have): a 2 × 2 matrix, to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Three facts and the chain rule: $\partial s_l / \partial \mathbf q = \mathbf k_l / \sqrt{d_k}$;
# the softmax's derivative ([Chapter 2](02_softmax.ipynb)) is
# $\partial w_j / \partial s_l = w_j(\delta_{jl} - w_l)$; and $\mathbf o = \sum_j w_j \mathbf v_j$.
# Where does the $-\mathbf o$ come from? From the $-w_l$ term.
# ```

# %%
print("q =", vector(q), " weights:", dec(weights))
print("output:", vector(output))
answer = ...  # the 2 × 2 matrix [[∂o1/∂q1, ∂o1/∂q2], [∂o2/∂q1, ∂o2/∂q2]]
ch4.gradient_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch4-gradient
# :class: dropdown
#
# *Proof.* The output depends on $\mathbf q$ only through the weights:
# $\partial \mathbf o / \partial \mathbf q = \sum_j \mathbf v_j\, (\partial w_j / \partial
# \mathbf q)^\top$. By the chain rule,
# $\partial w_j / \partial \mathbf q = \sum_l w_j(\delta_{jl} - w_l)\, \mathbf k_l / \sqrt{d_k}
# = w_j (\mathbf k_j - \bar{\mathbf k}) / \sqrt{d_k}$, with
# $\bar{\mathbf k} = \sum_l w_l \mathbf k_l$ the weighted mean key. So
# $\partial \mathbf o / \partial \mathbf q = \frac{1}{\sqrt{d_k}} \big(\sum_j w_j \mathbf v_j
# \mathbf k_j^\top - \mathbf o\, \bar{\mathbf k}^\top\big)$, and since
# $\mathbf o\, \bar{\mathbf k}^\top = \sum_j w_j\, \mathbf o\, \mathbf k_j^\top$ this is
# {eq}`eq-ch4-gradient`. $\square$
#
# Read it: moving $\mathbf q$ by a small step $\boldsymbol\delta$ moves $\mathbf o$ by
# $\frac{1}{\sqrt{d_k}} \sum_j w_j\, (\mathbf k_j \cdot \boldsymbol\delta)\,(\mathbf v_j -
# \mathbf o)$: each word $j$ pulls the output towards its value $\mathbf v_j$ in proportion to
# $w_j\,(\mathbf k_j \cdot \boldsymbol\delta)$. Since
# $\sum_j w_j (\mathbf v_j - \mathbf o) = \mathbf 0$, only the part of $\mathbf k_j$ that
# differs from the weighted mean key $\bar{\mathbf k}$ counts: word $j$'s net pull is
# $w_j\,((\mathbf k_j - \bar{\mathbf k})\cdot\boldsymbol\delta)\,(\mathbf v_j - \mathbf o)$,
# so a step that raises the query's score with $\mathbf k_j$ more than its score with
# $\bar{\mathbf k}$ pulls the output towards $\mathbf v_j$ (a step along $\mathbf k_j$ alone
# need not, if another key has a larger component along it). The matrix is therefore also
# $\frac{1}{\sqrt{d_k}} \sum_j w_j (\mathbf v_j - \mathbf o)(\mathbf k_j - \bar{\mathbf
# k})^\top$, the $w$-weighted covariance of the values and the keys, divided by $\sqrt{d_k}$;
# if every value were the same, moving the query would change nothing. On the worked
# example the two entries of each column cancel: the output can only slide along the values'
# line $x + y =$ {eval}`plain(value_sums[0])`, as the convex-combination picture says.
#
# ```python
# jacobian = sum(
#     w * np.outer(v - output, k) for w, v, k in zip(weights, V, K)
# ) / root_d_k  # [d_v, d_k]
# answer = jacobian.round(3)
# ch4.gradient_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} The whole computation as one function
# :label: ex-ch4-my-attention
#
# Write `my_attention(q, keys, values)` with plain NumPy (no `ac.softmax` and no
# `ac.scaled_dot_product_attention`): all five steps for queries of shape $(\dots, L, d_k)$, keys
# $(\dots, S, d_k)$ and values $(\dots, S, d_v)$, returning the outputs $(\dots, L, d_v)$. The
# check runs it on the worked example, on the sentence, on a batch, and on very large scores.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-ch4-matrix`, with `np.swapaxes(keys, -1, -2)` for $K^\top$. For the large
# scores, recall [Chapter 2](02_softmax.ipynb): subtract each row's maximum before `np.exp`.
# ```


# %%
def my_attention(q, keys, values): ...  # your code here


ch4.my_attention.check(my_attention)

# %% [markdown]
# ````{solution} ex-ch4-my-attention
# :class: dropdown
#
# Steps 1 and 2 are one matrix product and a division; steps 3 and 4 are the stable softmax
# along the keys; step 5 is one more matrix product.
#
# ```python
# def my_attention(q, keys, values):
#     d_k = q.shape[-1]
#     # [..., L, d_k] @ [..., d_k, S] -> [..., L, S]
#     scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(d_k)
#     top = scores.max(axis=-1, keepdims=True)  # each row's largest
#     e = np.exp(scores - top)  # every exponent <= 0
#     weights = e / e.sum(axis=-1, keepdims=True)  # rows sum to 1
#     # [..., L, S] @ [..., S, d_v] -> [..., L, d_v]
#     return weights @ values
#
#
# ch4.my_attention.check(my_attention)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: from one query to the whole sentence
# :label: ex-ch4-bug-sentence
#
# Someone turned the hand computation into code for a whole sentence at once. On the worked
# example's
# single query it gives {eval}`vector(output)`, but on the sentence its rows are wrong. Copy it
# as `fixed_sentence_attention`, change the one line that is wrong, and run the check.
# ```

# %%
ch4.sentence_softmax.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print the weights' `sum(axis=-1)` for the sentence. By hand there was one query and one sum;
# how many sums does a matrix of scores need?
# ```


# %%
def fixed_sentence_attention(Q, K, V):
    raise NotImplementedError  # copy the function above here and fix it


ch4.sentence_softmax.check(fixed_sentence_attention)

# %% [markdown]
# ````{solution} ex-ch4-bug-sentence
# :class: dropdown
#
# `e.sum()` adds up every entry of the matrix, so the weights of all the queries share one
# denominator. Each query needs the sum of its own row, `axis=-1, keepdims=True`: that is the one
# line to change. The global `scores.max()` can stay: subtracting the same number from every
# score of a row multiplies all its exponentials by the same factor, which cancels in the
# division. (Each row's own maximum is still the safer habit: a row whose scores all lie far
# below the global maximum could underflow to zeros.)
#
# ```python
# def fixed_sentence_attention(Q, K, V):
#     d_k = Q.shape[-1]
#     # [..., L, d_k] @ [..., d_k, S] -> [..., L, S]
#     scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)
#     # unchanged: any constant cancels
#     e = np.exp(scores - scores.max())
#     # the fix: each row's own sum
#     weights = e / e.sum(axis=-1, keepdims=True)
#     # [..., L, S] @ [..., S, d_v] -> [..., L, d_v]
#     return weights @ V
#
#
# ch4.sentence_softmax.check(fixed_sentence_attention)
# ```
# ````
