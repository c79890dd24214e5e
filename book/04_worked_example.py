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
# (ch-worked-example)=
# # The worked example, by hand (손으로 푸는 예제)
#
# The first three chapters built the pieces: the dot product (내적) scores a query against a key,
# softmax (소프트맥스) turns scores into weights, and dividing by $\sqrt{d_k}$ keeps the scores
# in a range where softmax still learns. This chapter puts them together on the seed article's
# example and follows one query (쿼리) all the way through, one small table per step.
#
# After this chapter you will be able to:
#
# - compute an attention output with pencil and paper: scores, scaling, exponentials, weights
#   and the weighted sum (가중합), and check every digit against `attn_core`;
# - say what the scaling changed, by redoing the example without it;
# - draw the output as a point among the values and explain why it can never leave their
#   convex hull;
# - compute the attention of a whole sentence as two matrix products, and find the hand
#   computation in the row of "사과를" (the apple);
# - read the PyTorch `SimpleSelfAttention` of the second seed article and run its numpy twin,
#   with the shape of every intermediate array;
# - say what comes after this chapter: self- and cross-attention, many heads, masks, and why
#   the cost grows with the square of the sentence length.
#
# Every number in the text below is computed by the code cells and rounded to three decimals, as
# the seed article does.

# %%
import math

import attn_core as ac
import matplotlib.pyplot as plt
import numpy as np
from attn_book.exercises import ch04_worked_example as ch4
from attn_book.plots import plot_convex_combination
from attn_book.prose import glue_each, vector
from attn_book.tables import step_table
from attn_book.widgets import QueryPad
from attn_core.by_hand import (
    hand_steps,
    sentence_example,
    trace_self_attention,
)
from IPython.display import Math
from myst_nb import glue

# %% [markdown]
# ## The example
#
# One query $\mathbf q$ looks at three words. Each word $j$ offers a key (키) $\mathbf k_j$, what
# it can be found by, and a value (밸류) $\mathbf v_j$, what it hands over when it is looked at.
# The vectors have $d_k =$ {glue:text}`ch4_dk` dimensions (차원), small enough to do everything
# by hand:

# %%
example = ac.seed_example()
q, K, V = example.query, example.keys, example.values
d_k = q.shape[-1]
glue("ch4_dk", d_k, display=False)
glue("ch4_q", vector(q), display=False)
words = ["word 1", "word 2", "word 3"]
table = {
    "key kⱼ": [vector(k) for k in K],
    "value vⱼ": [vector(v) for v in V],
}
print("query q =", vector(q))
step_table(table, index=words)

# %% [markdown]
# The query is $\mathbf q =$ {glue:text}`ch4_q`. The whole computation is the formula of
# scaled dot-product attention (스케일 내적 어텐션) for a single query:
#
# $$
# \mathbf o = \sum_{j} w_j \mathbf v_j, \qquad
# w_j = \frac{e^{s_j}}{\sum_l e^{s_l}}, \qquad
# s_j = \frac{\mathbf q \cdot \mathbf k_j}{\sqrt{d_k}}.
# $$ (eq-ch4-attention)
#
# Read {eq}`eq-ch4-attention` from right to left: that is the order of the five steps below.

# %% [markdown]
# ## Step 1: dot products (내적) give the scores (점수)
#
# Multiply the query and each key component by component and add: $\mathbf q\cdot\mathbf k_j =
# q_1 k_{j1} + q_2 k_{j2}$.

# %%
steps = hand_steps(q, K, V)
written = []  # "a×b + c×d" for each key
for k in K:
    products = [f"{a:g}×{b:g}" for a, b in zip(q, k, strict=True)]
    written.append(" + ".join(products))
glue_each("ch4_score", steps.scores)
step_table({"q · kⱼ": written, "score": steps.scores}, index=words)

# %% [markdown]
# The scores are {glue:text}`ch4_score1:.0f`, {glue:text}`ch4_score2:.0f` and
# {glue:text}`ch4_score3:.0f`. Keys 1 and 3 have a component along the query's direction and
# so score {glue:text}`ch4_score1:.0f` each; key 2 is orthogonal to it (직교) and scores zero.
#
# ## Step 2: divide by $\sqrt{d_k}$
#
# With $d_k =$ {glue:text}`ch4_dk`, $\sqrt{d_k} \approx$ {glue:text}`ch4_sqrt_dk:.3f`
# ({ref}`Chapter 3 <ch-scaling>` explains why we divide).

# %%
glue("ch4_sqrt_dk", math.sqrt(d_k), display=False)
glue_each("ch4_scaled", steps.scaled)
step_table({"score": steps.scores, "÷ √dₖ": steps.scaled}, index=words)

# %% [markdown]
# The scaled scores are $s_1 \approx$ {glue:text}`ch4_scaled1:.3f`, $s_2 =$
# {glue:text}`ch4_scaled2:.3f` and $s_3 \approx$ {glue:text}`ch4_scaled3:.3f`.
#
# ## Step 3: exponentials (지수) and their sum
#
# The softmax starts by raising $e$ to each scaled score, which makes every number positive.

# %%
glue_each("ch4_exp", steps.exps)
glue("ch4_total", float(steps.total), display=False)
table = {"sⱼ": steps.scaled, "exp(sⱼ)": steps.exps}
step_table(table, index=words, footer=("sum", {"exp(sⱼ)": steps.total}))

# %% [markdown]
# $e^{s_1} \approx$ {glue:text}`ch4_exp1:.3f`, $e^{s_2} =$ {glue:text}`ch4_exp2:.0f`,
# $e^{s_3} \approx$ {glue:text}`ch4_exp3:.3f`, and the sum is {glue:text}`ch4_exp1:.3f` +
# {glue:text}`ch4_exp2:.0f` + {glue:text}`ch4_exp3:.3f` $\approx$ {glue:text}`ch4_total:.3f`.
#
# ## Step 4: the weights (가중치)
#
# Divide each exponential by the sum. That is the softmax, and the results are the attention
# weights: positive, and they add up to 1.

# %%
glue_each("ch4_w", steps.weights)
glue("ch4_wsum", float(steps.weights.sum()), display=False)
table = {"exp(sⱼ)": steps.exps, "÷ sum = wⱼ": steps.weights}
footer = ("sum", {"÷ sum = wⱼ": steps.weights.sum()})
step_table(table, index=words, footer=footer)

# %% [markdown]
# $w_1 \approx$ {glue:text}`ch4_exp1:.3f` / {glue:text}`ch4_total:.3f` $\approx$
# {glue:text}`ch4_w1:.3f`, $w_2 \approx$ {glue:text}`ch4_w2:.3f` and $w_3 \approx$
# {glue:text}`ch4_w3:.3f`, which add up to {glue:text}`ch4_wsum:.3f`. Words 1 and 3, whose keys
# point the same way as the query or close to it, share most of the attention; the orthogonal
# word 2 still gets {glue:text}`ch4_w2:.3f`, because $e^{s_2}$ is not zero. The same weights come
# straight out of `attn_core.softmax` and `attn_core.attention_weights`:

# %%
np.testing.assert_allclose(ac.softmax(steps.scaled), steps.weights)
ac.attention_weights(q, K).round(3)

# %% [markdown]
# ## Step 5: the weighted sum (가중합) of the values
#
# The output (출력) is each value scaled by its weight, then added up, one component at a time:

# %%
# (3, 1) * (3, 2) -> (3, 2): row j is wⱼ vⱼ
contributions = steps.weights[:, None] * V
np.testing.assert_allclose(contributions.sum(axis=0), steps.output)
glue_each("ch4_o", steps.output)
first, second = "wⱼvⱼ, first component", "wⱼvⱼ, second component"
rows = {"wⱼ": steps.weights, first: contributions[:, 0]}
rows[second] = contributions[:, 1]
labels = [f"{w}, vⱼ = {vector(v)}" for w, v in zip(words, V, strict=True)]
output_row = {first: steps.output[0], second: steps.output[1]}
step_table(rows, index=labels, footer=("sum = output o", output_row))

# %%
# one term per word: weight, then value
pairs = zip(steps.weights, V, strict=True)
terms = [f"{w:.3f} {vector(v)}" for w, v in pairs]
equation = f"o = {' + '.join(terms)} ≈ {vector(steps.output)}"
glue(
    "ch4_eq_output",
    Math(equation.replace("o =", r"\mathbf o =")),
    display=False,
)
print(equation)

# %% [markdown]
# ```{glue:math} ch4_eq_output
# :label: eq-ch4-output
# ```
#
# The output is $\mathbf o \approx$ ({glue:text}`ch4_o1:.3f`, {glue:text}`ch4_o2:.3f`): the
# query's word now carries mostly the values of words 1 and 3. That is how attention updates the
# representation of one word. All five steps are one call to the library:

# %%
output = ac.scaled_dot_product_attention(q, K, V)
np.testing.assert_allclose(output, steps.output)
output.round(3)

# %% [markdown]
# A pencil keeps three decimals at every step. Does rounding early change the answer? Redo steps
# 4 and 5 from the rounded exponentials and compare:

# %%
exps_3 = steps.exps.round(3)  # as written in the table
weights_3 = (exps_3 / exps_3.sum()).round(3)  # step 4 from rounded numbers
output_3 = (weights_3 @ V).round(3)  # step 5 from rounded weights
print("weights", weights_3, "output", output_3)
assert (weights_3 == steps.weights.round(3)).all() and (
    output_3 == steps.output.round(3)
).all()

# %% [markdown]
# Here the three decimals survive. In general rounding early can move the last digit, so keep one
# more decimal in the middle steps than you want at the end.
#
# ## The same example without the scaling
#
# Skip step 2 and feed the raw scores {glue:text}`ch4_score1:.0f`, {glue:text}`ch4_score2:.0f`,
# {glue:text}`ch4_score3:.0f` to the softmax (`scale=1.0`):

# %%
plain = hand_steps(q, K, V, scale=1.0)
glue_each("ch4_plain_exp", plain.exps)
glue("ch4_plain_total", float(plain.total), display=False)
glue_each("ch4_plain_w", plain.weights)
glue_each("ch4_plain_o", plain.output)
table = {
    "sⱼ": plain.scaled,
    "exp(sⱼ)": plain.exps,
    "wⱼ": plain.weights,
    "wⱼ (scaled, above)": steps.weights,
}
big_dk = 64  # the size of a key in the seed's "real model"
glue("ch4_big_dk", big_dk, display=False)
glue("ch4_big_sqrt", math.sqrt(big_dk), display=False)
step_table(table, index=words)

# %% [markdown]
# Now $e^{s_1} \approx$ {glue:text}`ch4_plain_exp1:.3f`, the sum is
# {glue:text}`ch4_plain_total:.3f`, and the weights are {glue:text}`ch4_plain_w1:.3f`,
# {glue:text}`ch4_plain_w2:.3f`, {glue:text}`ch4_plain_w3:.3f` instead of {glue:text}`ch4_w1:.3f`,
# {glue:text}`ch4_w2:.3f`, {glue:text}`ch4_w3:.3f`: more extreme, because the gaps between the
# scores are $\sqrt{d_k} \approx$ {glue:text}`ch4_sqrt_dk:.3f` times larger before the
# exponential amplifies them. The output moves to ({glue:text}`ch4_plain_o1:.3f`,
# {glue:text}`ch4_plain_o2:.3f`), further towards $\mathbf v_1$. With $d_k =$
# {glue:text}`ch4_dk` the difference is modest; with $d_k =$ {glue:text}`ch4_big_dk`, as in the
# seed's real model, the divisor is $\sqrt{d_k} =$ {glue:text}`ch4_big_sqrt:g` and the difference
# is dramatic ({ref}`Chapter 3 <ch-scaling>`).
#
# ## A picture: the output is a convex combination
#
# The weights are positive and add up to 1, so the output $\sum_j w_j \mathbf v_j$ is a *convex
# combination* (볼록 결합) of the values: a weighted average, which always lies inside the
# smallest convex shape containing them, their convex hull (볼록 껍질). For three values in the
# plane that shape is a triangle, and the weights are the point's barycentric coordinates
# (무게중심 좌표).
#
# The seed's values hold a surprise, though:

# %%
coordinate_sums = V.sum(axis=1)  # v_j1 + v_j2 for each value
glue("ch4_vsum", float(coordinate_sums[0]), display=False)
glue("ch4_osum", float(steps.output.sum()), display=False)
print(
    "v_j1 + v_j2 for each value:",
    coordinate_sums,
    " o_1 + o_2:",
    round(steps.output.sum(), 3),
)

# %% [markdown]
# Every value has coordinates that add up to {glue:text}`ch4_vsum:.0f`: the three points lie on
# one line, $x + y =$ {glue:text}`ch4_vsum:.0f`, with $\mathbf v_3$ exactly halfway between
# $\mathbf v_1$ and $\mathbf v_2$. Their "triangle" is flat, a segment, and every output of this
# example lies on it: {glue:text}`ch4_o1:.3f` + {glue:text}`ch4_o2:.3f` =
# {glue:text}`ch4_osum:.3f`. To see a real triangle, the right panel of {numref}`fig-ch4-convex`
# moves $\mathbf v_3$ to {glue:text}`ch4_v3_tri` and keeps everything else. The weights do not
# change (they depend only on the query and the keys), so the output moves to the same mix of the
# new values.

# %%
V_tri = np.array([V[0], V[1], [2.0, 2.0]])  # v3 moved off the line
out_tri = ac.scaled_dot_product_attention(q, K, V_tri)
glue("ch4_v3_tri", vector(V_tri[2]), display=False)
glue_each("ch4_tri_o", out_tri)
print("v3 moved to", vector(V_tri[2]), "-> output", vector(out_tri))

# %% tags=["remove-input"]
angles = np.linspace(0.0, 2.0 * np.pi, 181)
# (181, 2): unit queries, once round the circle
turning = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
# a window round the two outputs, for the magnified inset
middle = (steps.output + plain.output) / 2
half = 0.2
window = (middle[0] - half, middle[0] + half, middle[1] - half)
panels = [
    {
        "values": V,
        "title": "the seed's values (collinear)",
        "outputs": {
            "o, scaled": steps.output,
            "o, unscaled": plain.output,
        },
        "path": ac.scaled_dot_product_attention(turning, K, V),
        "inset": (*window, middle[1] + half),
    },
    {
        "values": V_tri,
        "title": f"v₃ moved to {vector(V_tri[2])}",
        "outputs": {"o, scaled": out_tri},
        "path": ac.scaled_dot_product_attention(turning, K, V_tri),
    },
]
fig = plot_convex_combination(panels)  # shown below, with its caption
glue("ch4_fig_convex", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} ch4_fig_convex
# :name: fig-ch4-convex
#
# The attention output is a weighted average of the values. Left: the seed's values lie on the
# line $x + y =$ {glue:text}`ch4_vsum:.0f`, so the output (circle: scaled; diamond: unscaled)
# stays on that segment; the inset magnifies the two outputs, and the dotted curve is the output
# as a unit query turns once round the circle. Right: with
# $\mathbf v_3$ moved to {glue:text}`ch4_v3_tri` the hull is a true triangle, and the output
# ({glue:text}`ch4_tri_o1:.3f`, {glue:text}`ch4_tri_o2:.3f`) sits inside it, at barycentric
# coordinates equal to the weights.
# ```
#
# However the query turns, the dotted curve never reaches a corner: softmax never gives a weight
# of exactly 0 or 1, so the output is always strictly inside.
#
# ## The whole sentence at once: $Q$, $K$, $V$ as matrices (행렬)
#
# So far one query. In self-attention (셀프 어텐션) every word of the sentence asks its own
# question, so every word has a query, a key and a value. Take the seed's sentence and give its
# three tokens small vectors: the keys and values are the ones we used, word by word, and the
# query of "사과를" (the apple) is the $\mathbf q$ above. That is the seed's own case: when the
# model processes "사과", its query is compared with every key, and "나는" (I) and "먹었다" (ate)
# should score high. (In a trained model the vectors come from the word vectors through learned
# matrices $W_Q$, $W_K$, $W_V$; here we write them down directly.)

# %%
sentence = sentence_example()
Q, K_s, V_s = sentence.query, sentence.keys, sentence.values
tokens = list(ac.SENTENCE_KO)
glue("ch4_Q_shape", " × ".join(map(str, Q.shape)), display=False)
columns = {
    "query qᵢ": [vector(r) for r in Q],
    "key kᵢ": [vector(r) for r in K_s],
    "value vᵢ": [vector(r) for r in V_s],
}
step_table(columns, index=tokens)

# %% [markdown]
# Stacking the queries as the rows of $Q$ (shape {glue:text}`ch4_Q_shape`), and likewise the keys
# and values, turns the three separate computations into two matrix products:
#
# $$
# \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V
# $$ (eq-ch4-matrix)
#
# with the softmax taken along each row. Entry $(i, j)$ of $QK^\top$ is $\mathbf q_i \cdot
# \mathbf k_j$: row $i$ holds the scores of word $i$'s query against every key.

# %%
scores = ac.dot_scores(Q, K_s)  # [3, 2] @ [2, 3] -> [3, 3]
# the softmax of each row of scores / √d_k
weights = ac.attention_weights(Q, K_s)
out = weights @ V_s  # [3, 3] @ [3, 2] -> [3, 2]
print(f"Q {Q.shape} @ Kᵀ {K_s.T.shape} -> scores {scores.shape}")
print(f"weights {weights.shape} @ V {V_s.shape} -> output {out.shape}")
print("scores QKᵀ:\n", scores)
print("weights (each row sums to 1):\n", weights.round(3))
print("output:\n", out.round(3))

# %% [markdown]
# The row of "사과를", the second row of every matrix, is the hand computation. The check below
# compares it (row 1 in numpy) with the output of the five steps, and the same row of the
# weights with the weights of step 4:

# %%
apple = tokens.index("사과를")  # 1: the second row
np.testing.assert_allclose(weights[apple], steps.weights)
np.testing.assert_allclose(out[apple], steps.output)
glue_each("ch4_apple_o", out[apple])
glue_each("ch4_apple_w", weights[apple])
glue_each("ch4_i_w", weights[tokens.index("나는")])
glue_each("ch4_verb_w", weights[tokens.index("먹었다")])
print(f"row of 사과를: {vector(out[apple].round(3))}")
print(f"by hand:      {vector(steps.output.round(3))}")

# %% [markdown]
# The row of "사과를" is ({glue:text}`ch4_apple_o1:.3f`, {glue:text}`ch4_apple_o2:.3f`), the same
# as by hand. Read its weights as the seed reads them: the query of "사과" puts
# {glue:text}`ch4_apple_w1:.3f` on "나는" and {glue:text}`ch4_apple_w3:.3f` on "먹었다", the two
# words related to it, and only {glue:text}`ch4_apple_w2:.3f` on itself. The new representation
# of "사과" is the weighted sum of the three values with these weights: the apple now carries
# who ate it and what happened to it.
#
# The other rows are new. "나는" (I), whose query points towards the key of "먹었다", puts
# {glue:text}`ch4_i_w3:.3f` on the verb and {glue:text}`ch4_i_w1:.3f` on itself; "먹었다", whose
# query points towards the key of "사과를", puts {glue:text}`ch4_verb_w2:.3f` on its object, as much,
# {glue:text}`ch4_verb_w3:.3f`, on itself, and only {glue:text}`ch4_verb_w1:.3f` on "나는". The
# matrix form costs nothing extra to write, and it is how every library computes attention: one
# product $QK^\top$ of shape $n \times n$ for $n$ words, one softmax per row, one product with
# $V$.
#
# ## The seed's `SimpleSelfAttention`, in numpy
#
# The second seed article shows a minimal self-attention layer in PyTorch. Here it is as written
# there (comments translated; not run in this book, which needs only numpy):
#
# ```python
# import torch
# import torch.nn as nn
# import torch.nn.functional as F
#
# class SimpleSelfAttention(nn.Module):
#     def __init__(self, embed_dim):
#         super(SimpleSelfAttention, self).__init__()
#         self.query = nn.Linear(embed_dim, embed_dim)
#         self.key = nn.Linear(embed_dim, embed_dim)
#         self.value = nn.Linear(embed_dim, embed_dim)
#         self.scale = torch.sqrt(torch.FloatTensor([embed_dim]))
#
#     def forward(self, x):
#         # x: [batch_size, seq_len, embed_dim]
#         batch_size, seq_len, embed_dim = x.shape
#         # queries, keys, values (쿼리, 키, 값)
#         q = self.query(x)  # [batch_size, seq_len, embed_dim]
#         k = self.key(x)  # [batch_size, seq_len, embed_dim]
#         v = self.value(x)  # [batch_size, seq_len, embed_dim]
#         # attention scores: q @ k.transpose(-2, -1)
#         #   -> [batch_size, seq_len, seq_len]
#         attention = torch.matmul(q, k.transpose(-2, -1)) / self.scale
#         # softmax (소프트맥스)
#         attention = F.softmax(attention, dim=-1)
#         # weighted sum: attention @ v -> [batch_size, seq_len, embed_dim]
#         output = torch.matmul(attention, v)
#         return output, attention
# ```
#
# It is {eq}`eq-ch4-matrix` with two additions: $Q$, $K$ and $V$ are made from the same input
# `x` by three learned linear maps (`nn.Linear`, a matrix and a bias each), and a leading batch
# axis lets it process several sentences at once. `attn_core.SimpleSelfAttention` is the same
# layer in numpy, initialised the way `nn.Linear` is; the translation is word for word:
#
# | PyTorch | numpy (`attn_core`) |
# |---|---|
# | `nn.Linear(d, d)(x)` = `x @ W.T + b`, `W` is (out, in) | `x @ w + b`, `w` is (in, out) |
# | `k.transpose(-2, -1)` | `np.swapaxes(k, -1, -2)`; `k.T` would reverse the batch axis too |
# | `F.softmax(a, dim=-1)` | `ac.softmax(a, axis=-1)` |
# | `torch.sqrt(torch.FloatTensor([d]))` | `math.sqrt(d)`: a plain Python number, so dividing a float32 array by it leaves float32 |
#
# Run it on the three tokens of our sentence, as a batch of one, with random word vectors of
# {glue:text}`ch4_embed_dim` dimensions (`ac.toy_embeddings`, seeded) and seeded random weights:

# %%
embed_dim = 4
glue("ch4_embed_dim", embed_dim, display=False)
# [batch=1, seq_len=3, embed_dim]
x = ac.toy_embeddings(ac.SENTENCE_KO, embed_dim)[None]
rng = np.random.default_rng(0)
layer = ac.SimpleSelfAttention(embed_dim=embed_dim, rng=rng)
trace = trace_self_attention(layer, x)
meaning = {
    "x": "input: [batch_size, seq_len, embed_dim]",
    "q": "x @ w_q + b_q",
    "k": "x @ w_k + b_k",
    "v": "x @ w_v + b_v",
    "scores": "q @ swapaxes(k) -> [batch_size, seq_len, seq_len]",
    "attention": "softmax(scores / √embed_dim, axis=-1)",
    "output": "attention @ v -> [batch_size, seq_len, embed_dim]",
}
for name, array in trace.items():
    print(f"{name:>9} {array.shape!s:<10} {meaning[name]}")

# %% [markdown]
# Row $i$ is the weights of token $i$'s query (the token asking) over the three keys (the tokens
# looked at, the columns); every row sums to 1:

# %%
# the one sentence of the batch: [seq_len, seq_len]
attention = trace["attention"][0]
np.testing.assert_allclose(attention.sum(axis=-1), 1.0)
columns = {t: attention[:, j] for j, t in enumerate(tokens)}
step_table(columns, index=tokens)

# %% [markdown]
# With random weights the pattern means nothing yet: training is what makes the queries and keys
# line up the way our hand-made vectors do.
#
# ## Drag the query away, and come back
#
# The query pad of {ref}`Chapter 1 <ch-dot-product>` starts at the seed's example: the query
# $\mathbf q =$ {glue:text}`ch4_q`, the three keys (dots) and the three values (squares). It shows
# the scores, the weights as bars and the output $\mathbf o$. Check that it shows the numbers of
# this chapter; then drag $\mathbf q$ away and watch the weights and the output move (the output
# stays on the values' segment, as in {numref}`fig-ch4-convex`); switch the scaling off to see
# the weights of the unscaled section; drag a value off the line; and come back to
# {glue:text}`ch4_q`. The figure runs in the browser, even on the static site.

# %%
pad = QueryPad()
pad

# %% [markdown]
# The pad computes with `attn_core`, so setting its query from code gives the numbers of this
# chapter too. Away and back again:

# %%
pad.query = tuple(K[1])  # point q at k2 instead
away = np.round(pad.weights, 3)
pad.query = tuple(q)  # and back to the seed's query
np.testing.assert_allclose(pad.weights, steps.weights)
np.testing.assert_allclose(pad.output, steps.output)
print(f"q = {vector(K[1])}: weights {away}")
print(f"q = {vector(q)}: weights {np.round(pad.weights, 3)}")

# %% [markdown]
# ## Summary
#
# - For one query: scores $\mathbf q\cdot\mathbf k_j$, divided by $\sqrt{d_k}$, exponentiated,
#   divided by their sum (the softmax), give weights that are positive and add up to 1; the
#   output is the weighted sum of the values. On the seed's example: weights
#   {glue:text}`ch4_w1:.3f`, {glue:text}`ch4_w2:.3f`, {glue:text}`ch4_w3:.3f` and output
#   ({glue:text}`ch4_o1:.3f`, {glue:text}`ch4_o2:.3f`).
# - Without the scaling the weights are more extreme: {glue:text}`ch4_plain_w1:.3f`,
#   {glue:text}`ch4_plain_w2:.3f`, {glue:text}`ch4_plain_w3:.3f`.
# - The output is a convex combination of the values: it lies inside their convex hull, never on
#   a corner. The seed's values happen to be collinear, so there the hull is a segment.
# - A whole sentence is two matrix products, $\mathrm{softmax}(QK^\top/\sqrt{d_k})\,V$; row $i$ is
#   word $i$'s computation, and the row of "사과를" is the hand computation: "사과" looks at
#   "나는" and "먹었다".
# - The PyTorch `SimpleSelfAttention` is this, plus three linear maps and a batch axis.
#
# ## What comes next
#
# This chapter computed one kind of attention on one sentence. The seed articles name what a real
# model adds on top, and the book's later chapters take these up one at a time.
#
# **Self-attention (셀프 어텐션).** Everything in this chapter: the queries, keys and values all
# come from the *same* sequence, so every word looks at the words of its own sentence, "사과"
# at "나는" and "먹었다". Because every row is computed independently of the others, all the
# words are processed in parallel (병렬 처리), and a word can look at one far away as easily as at
# its neighbour (장거리 의존성, long-range dependencies).
#
# **Cross-attention (크로스 어텐션).** The queries come from one sequence and the keys and values
# from another: in translation, each word of the sentence being written asks questions of the
# words of the original sentence, as in the first attention model {cite:p}`bahdanau2014` and the
# encoder–decoder of the Transformer {cite:p}`vaswani2017`. The formula is the same
# {eq}`eq-ch4-matrix`; only $Q$ comes from elsewhere, so $QK^\top$ has a row per word being
# written and a column per original word, and need not be square.
#
# **Many heads, many layers.** A real model runs several attention heads (헤드) side by side, each
# with its own $W_Q$, $W_K$, $W_V$ and its own, smaller $d_k$, so that each can look for a
# different relation, and it stacks many such layers (층), each refining the representations the
# one before it produced.
#
# **Masks (마스크).** A score of $-\infty$ gets weight $e^{-\infty} = 0$: setting scores to
# $-\infty$ hides keys from a query, for instance the padding of a short sentence or, when a
# model writes text, the words that come later.
#
# **The cost grows with $n^2$.** $QK^\top$ has one score for every pair of words: $n^2$ of them
# for $n$ words, and the computation and the memory grow in proportion. For one head, in float32
# ({glue:text}`ch4_float32_bytes` bytes a number), the score matrix alone takes:


# %%
def in_bytes(size):
    """A size in bytes, in the largest unit that keeps it >= 1."""
    for unit, factor in [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)]:
        if size >= factor:
            return f"{size / factor:g} {unit}"
    return f"{size:g} bytes"


float32_bytes = np.dtype(np.float32).itemsize  # bytes per number
glue("ch4_float32_bytes", float32_bytes, display=False)
lengths_n = [1_000, 10_000, 100_000]
rows = {"n² scores": [], "memory (float32)": []}
for n in lengths_n:
    entries = n * n  # one score per (query, key) pair
    size = entries * float32_bytes
    rows["n² scores"].append(f"{entries:,}")
    rows["memory (float32)"].append(in_bytes(size))
    glue(f"ch4_cost_n_{n}", f"{n:,}", display=False)
    glue(f"ch4_cost_entries_{n}", f"{entries:,}", display=False)
    glue(f"ch4_cost_gb_{n}", in_bytes(size), display=False)
glue("ch4_cost_growth", lengths_n[1] // lengths_n[0], display=False)
glue("ch4_cost_factor", (lengths_n[1] // lengths_n[0]) ** 2, display=False)
step_table(rows, index=[f"n = {n:,}" for n in lengths_n])

# %% [markdown]
# A sentence {glue:text}`ch4_cost_growth` times longer costs {glue:text}`ch4_cost_factor` times
# more: {glue:text}`ch4_cost_n_1000` words give {glue:text}`ch4_cost_entries_1000` scores in
# {glue:text}`ch4_cost_gb_1000`, but {glue:text}`ch4_cost_n_100000` words give
# {glue:text}`ch4_cost_entries_100000` scores in {glue:text}`ch4_cost_gb_100000`, for one head of
# one layer. This is the technical limit of attention that the first seed article names,
# and much current research is about getting round it.
#
# **A caveat.** The Quanta column behind the first seed article {cite:p}`wolchover2026` ends on a
# doubt: attention alone may not be enough for learning language efficiently, and a human brain
# learns language from far less data and with far less energy. That is a question for cognitive
# science, not for this book's mathematics, which is what the next chapters continue with.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict. The
# hints and solutions are folded away until you ask for them.
#
# ```{exercise} The example again, with another query: the weights
# :label: ex-ch4-weights-by-hand
#
# Keep the seed's three keys and change the query to the one printed below. Follow steps 1 to 4
# with pencil and paper and give the three weights to three decimals. Two exponentials will
# save you a calculator: $e^{x} \approx$ {glue:text}`ch4_ex_exp1:.3f` and $e^{-x} \approx$
# {glue:text}`ch4_ex_exp2:.3f`, where $x$ is the largest of your scaled scores.
# ```

# %% tags=["remove-cell"]
# The numbers the statement and the solution's text quote (hidden on the page).
q_new, keys = ch4.weights_by_hand.inputs
ex_steps = hand_steps(q_new, keys, V)
glue_each("ch4_ex_exp", ex_steps.exps[:2])
glue_each("ch4_ex_score", ex_steps.scores)
glue_each("ch4_ex_scaled", ex_steps.scaled)
ex_values = ch4.output_by_hand.inputs[2]
subscripts = "₁₂₃₄₅₆₇₈₉"
terms = " + ".join(
    f"w{subscripts[j]} {vector(v)}" for j, v in enumerate(ex_values)
)
glue("ch4_ex_sum_terms", terms, display=False)
del ex_steps, ex_values, terms

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Steps 1 to 4 of this chapter, in order, with the new query. One score is negative now: its
# exponential is still positive, just smaller than 1.
# ```

# %%
q_new, keys = ch4.weights_by_hand.inputs
print("q =", q_new, "\nkeys =\n", keys)
answer = ...  # your three weights, e.g. [0.0, 0.0, 0.0]
ch4.weights_by_hand.check(answer)

# %% [markdown]
# ```{solution-start} ex-ch4-weights-by-hand
# :class: dropdown
# ```
#
# The scores are {glue:text}`ch4_ex_score1:.0f`, {glue:text}`ch4_ex_score2:.0f`,
# {glue:text}`ch4_ex_score3:.0f`; divided by $\sqrt{d_k} \approx$ {glue:text}`ch4_sqrt_dk:.3f`
# they are {glue:text}`ch4_ex_scaled1:.3f`,
# {glue:text}`ch4_ex_scaled2:.3f`, {glue:text}`ch4_ex_scaled3:.3f`. Their exponentials, from the
# values given, and their sum:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
exps_by_hand = [2.028, 0.493, 1.0]  # e^x, e^-x and e^0, as given
total = sum(exps_by_hand)
answer = [round(e / total, 3) for e in exps_by_hand]
weights_found = answer  # for the next exercise
print(f"sum = {total:.3f}, weights = {answer}")
ch4.weights_by_hand.check(answer)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The example again, with another query: the output
# :label: ex-ch4-output-by-hand
#
# With the weights of the previous exercise and the seed's values (printed below), finish step 5:
# the output, two numbers to three decimals.
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
print("values =\n", values)
answer = ...  # the output, e.g. [0.0, 0.0]
ch4.output_by_hand.check(answer)

# %% [markdown]
# ```{solution-start} ex-ch4-output-by-hand
# :class: dropdown
# ```
#
# Weight each value and add, one component at a time: {glue:text}`ch4_ex_sum_terms`.

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
w1, w2, w3 = weights_found  # the weights of the previous solution
answer = [
    round(w1 * 2 + w2 * 0 + w3 * 1, 3),
    round(w1 * 0 + w2 * 2 + w3 * 1, 3),
]
coord_sum = round(sum(answer), 3)
print("output =", answer, "| coordinates add up to", coord_sum)
ch4.output_by_hand.check(answer)

# %% [markdown]
# The two coordinates add up to {glue:text}`ch4_vsum:.0f` again, as they must for the seed's
# values.
#
# ```{solution-end}
# ```
#
# ```{exercise} Predict, then run: a fourth word joins
# :label: ex-ch4-add-a-word
#
# A fourth word joins the example, with key $\mathbf k_4 =$ {glue:text}`ch4_k4`, the same as
# $\mathbf k_1$, and value $\mathbf v_4 =$ {glue:text}`ch4_v4`. The query stays
# {glue:text}`ch4_q`. Does word 1's weight $w_1$ go
# `"up"`, `"down"`, or stay the `"same"`? Answer first; the solution runs it.
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
print(f"q = {vector(q_4)}", end="   ")
print(f"k4 = {vector(keys_4[3])}   v4 = {vector(values_4[3])}")
answer = ...  # "up", "down" or "same"
ch4.add_a_word.check(answer)

# %% tags=["remove-cell"]
# the numbers of the exercise's statement, for the text
glue("ch4_k4", vector(keys_4[3]), display=False)
glue("ch4_v4", vector(values_4[3]), display=False)

# %% [markdown]
# ```{solution-start} ex-ch4-add-a-word
# :class: dropdown
# ```
#
# $w_1$'s numerator $e^{s_1}$ does not change, but the sum it is divided by gains $e^{s_4}$: every
# old weight shrinks to make room, the more so the better the new key matches the query.

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
ch4.add_a_word.check("down")

# %% [markdown]
# The weights, before and after:

# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
print("three words:", ac.attention_weights(q_4, keys_4[:3]).round(3))
print("four words: ", ac.attention_weights(q_4, keys_4).round(3))

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The whole computation as one function
# :label: ex-ch4-my-attention
#
# Write `my_attention(q, keys, values)` with plain NumPy (no `ac.softmax` and no
# `ac.scaled_dot_product_attention`): all five steps for queries of shape $(\dots, L, E)$, keys
# $(\dots, S, E)$ and values $(\dots, S, E_v)$, returning the outputs $(\dots, L, E_v)$. The check
# runs it on the seed's example, on the sentence, on a batch, and on very large scores.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Equation {eq}`eq-ch4-matrix`, with `np.swapaxes(keys, -1, -2)` for $K^\top$. For the large
# scores, recall Chapter 2: subtract each row's maximum before `np.exp`.
# ```


# %%
def my_attention(q, keys, values): ...  # your code here


ch4.my_attention.check(my_attention)

# %% [markdown]
# ```{solution-start} ex-ch4-my-attention
# :class: dropdown
# ```
#
# Steps 1 and 2 are one matrix product and a division; steps 3 and 4 are the stable softmax along
# the keys; step 5 is one more matrix product.


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def my_attention(q, keys, values):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(keys, -1, -2) / math.sqrt(d_k)  # [..., L, S]
    top = scores.max(axis=-1, keepdims=True)  # each row's largest score
    e = np.exp(scores - top)  # every exponent <= 0
    weights = e / e.sum(axis=-1, keepdims=True)  # each row sums to 1
    # [..., L, S] @ [..., S, Ev] -> [..., L, Ev]
    return weights @ values


ch4.my_attention.check(my_attention)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Find the bug: from one query to the whole sentence
# :label: ex-ch4-bug-sentence
#
# Someone turned the hand computation into code for a whole sentence at once. On the seed's
# single query it gives ({glue:text}`ch4_o1:.3f`, {glue:text}`ch4_o2:.3f`), but on the sentence its
# rows are wrong. Copy it as `fixed_sentence_attention`, change the one line that is wrong, and
# run the check.
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
# ```{solution-start} ex-ch4-bug-sentence
# :class: dropdown
# ```
#
# `e.sum()` adds up every entry of the matrix, so the weights of all the queries share one
# denominator. Each query needs the sum of its own row, `axis=-1, keepdims=True`: that is the one
# line to change. The global `scores.max()` can stay. Subtracting the same number from every
# score of a row multiplies all its exponentials by the same factor, which cancels in the
# division, so any constant works, the global maximum included. (Each row's own maximum is still
# the safer habit: a row whose scores all lie far below the global maximum could underflow to
# zeros.)


# %% jupyter={"outputs_hidden": true, "source_hidden": true}
# Solution
def fixed_sentence_attention(Q, K, V):
    """softmax(QKᵀ/√d_k) V for all queries.

    Q (..., L, E), K (..., S, E), V (..., S, Ev) -> (..., L, Ev).
    """
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)  # [..., L, S]
    e = np.exp(scores - scores.max())  # unchanged: any constant cancels
    weights = e / e.sum(axis=-1, keepdims=True)  # the fix: each row's sum
    return weights @ V  # [..., L, S] @ [..., S, Ev] -> [..., L, Ev]


ch4.sentence_softmax.check(fixed_sentence_attention)

# %% [markdown]
# ```{solution-end}
# ```
