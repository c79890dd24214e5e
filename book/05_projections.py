# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Where queries, keys and values come from (쿼리, 키, 밸류는 어디서 오나)
#
# [Chapter 4](04_worked_example.ipynb) wrote the queries, keys and values of "나는 사과를
# 먹었다" down by hand. A real model does not: it has one vector per word, and it *makes* the
# query (쿼리), the key (키) and the value (밸류) of every word from that vector with three
# learned matrices (가중치 행렬), $W_Q$, $W_K$ and $W_V$. The second seed article says it in
# one line: "입력 벡터에서 선형 변환을 통해 Q, K, V 벡터 생성" (Q, K, V are made from the input
# vectors by linear maps). This chapter does that by hand, with matrices small enough for
# pencil and paper, and chooses their numbers so that the attention they give can be read.
#
# After this chapter you will be able to:
#
# - multiply word vectors $X$ by $W_Q$, $W_K$, $W_V$ by hand, give the shape of every
#   product, and run the attention of Chapter 4 on the result;
# - say why the model needs three different matrices, and what goes wrong when $W_Q = W_K$;
# - tell self-attention from cross-attention, and compute a
#   cross-attention whose weight matrix is not square;
# - show that shuffling the words shuffles the outputs the same way, and say why models add
#   positions to the word vectors;
# - read the seed's PyTorch `SimpleSelfAttention` line by line and match it with numpy;
# - show, with numbers you can run, what the seeds claim: every word reaches every other in
#   one step, and all words are computed at once.

# %%
import time

import attn_core as ac
import numpy as np
from attn_book.exercises import ch05_projections as ch5
from attn_book.figures import Figures
from attn_book.plots import plot_patch_attention, plot_token_heatmaps
from attn_book.prose import dec, plain, vector
from attn_book.tables import step_table
from attn_book.widgets import AttentionHeatmap
from attn_core.by_hand import trace_self_attention

figures = Figures(chapter=5)

# %% [markdown]
# ## Words as vectors (단어 벡터)
#
# A model reads a sentence as a matrix $X$: one row per token (토큰), the word's vector, of
# some width $d_\text{model}$. Real models learn these vectors (임베딩, embeddings) and give
# them hundreds of features nobody named. Ours have four features we can name, each 0 or 1:
# is the word a noun, is it a verb, does it carry the subject marker -는, does it carry the
# object marker -를.

# %%
tokens = list(ac.SENTENCE_KO)  # 나는, 사과를, 먹었다
features = ["noun", "verb", "-는 (subject)", "-를 (object)"]
X = np.array(
    [
        [1, 0, 1, 0],  # 나는: a noun with the subject marker
        [1, 0, 0, 1],  # 사과를: a noun with the object marker
        [0, 1, 0, 0],  # 먹었다: a verb
    ]
)  # [n, d_model] = [3, 4]: n tokens
columns = {f: X[:, i] for i, f in enumerate(features)}
step_table(columns, index=tokens, digits=0)

# %% [markdown]
# $X$ has shape {eval}`plain(X.shape, " × ")`: {eval}`X.shape[0]` tokens of
# $d_\text{model} =$ {eval}`X.shape[1]` features.
#
# ## Three projections, by hand (투영)
#
# Each of $W_Q$, $W_K$, $W_V$ has one row per feature of $X$ and one column per feature of
# the space it projects into: here three, so $d_k = d_v = 3$. Multiplying $X$ by each
# gives every token's query, key and value at once:
#
# $$
# Q = X W_Q, \qquad K = X W_K, \qquad V = X W_V .
# $$ (eq-ch5-projections)
#
# The three columns of the key space are three roles a word can offer: *action* (an event
# happened), *actor* (who did it) and *patient* (what it was done to). The keys say which
# role each word offers; the queries say which roles each word asks for. In the seed's
# library of [Chapter 1](01_dot_product.ipynb), $W_Q$ writes a word's search terms (검색어),
# $W_K$ its index tags (색인), and $W_V$ the content of the book a search hands over: three
# different things, made from the same word by three different matrices.

# %%
W_K = np.array(
    [
        [0, 0, 0],  # noun: offers no role by itself
        [1, 0, 0],  # verb: offers the action
        [0, 1, 0],  # -는: offers the actor
        [0, 0, 1],  # -를: offers the patient
    ]
)  # [d_model, d_k] = [4, 3]
W_Q = 2 * np.array(
    [
        [0, 0, 0],  # noun: asks for nothing by itself
        [0, 0, 1],  # verb: asks what was acted on
        [1, 0, 0],  # -는: the subject asks what it did
        [1, 1, 0],  # -를: the object asks what happened, and who did it
    ]
)  # [d_model, d_k] = [4, 3]; the 2 makes every question twice as loud
W_V = np.array(
    [
        [0, 0, 0],  # noun
        [0, 0, 1],  # verb: hands over "did"
        [1, 0, 0],  # -는: hands over "who"
        [0, 1, 0],  # -를: hands over "what"
    ]
)  # [d_model, d_v] = [4, 3]

# %% [markdown]
# Now multiply. Row $i$ of $XW$ is $\mathbf x_i W = \sum_f x_{if}\, W_{f,:}$, the rows of $W$
# weighted by the word's features; with features that are 0 or 1, it is the sum of the rows
# of $W$ that the word's ones pick. "사과를" has ones at *noun* and *-를*, so its query is row
# 1 of $W_Q$ plus row 4, {eval}`vector(W_Q[0])` + {eval}`vector(W_Q[3])`:

# %%
Q = X @ W_Q  # [3, 4] @ [4, 3] -> [3, 3]
K = X @ W_K  # [3, 4] @ [4, 3] -> [3, 3]
V = X @ W_V  # [3, 4] @ [4, 3] -> [3, 3]
step_table(
    {"query qᵢ": [vector(r) for r in Q], "key kᵢ": [vector(r) for r in K]}
    | {"value vᵢ": [vector(r) for r in V]},
    index=tokens,
)

# %% [markdown]
# The query of "사과를" is {eval}`vector(Q[1])`: it asks for an action and an actor. The keys
# answer: "나는" offers the actor, {eval}`vector(K[0])`; "먹었다" offers the action,
# {eval}`vector(K[2])`; "사과를" itself offers the patient, {eval}`vector(K[1])`. Every
# product keeps the number of rows of $X$ (one per token) and takes the number of columns of
# its $W$: {eval}`plain(X.shape, " × ")` times {eval}`plain(W_Q.shape, " × ")` gives
# {eval}`plain(Q.shape, " × ")`.
#
# ## The attention of Chapter 4, on the projections
#
# From here on nothing is new: the scores are $QK^\top$, divided by $\sqrt{d_k}$, and each
# row goes through the softmax.

# %%
scores = Q @ K.T  # [3, 3] @ [3, 3] -> [3, 3]: row i = token i's query
weights = ac.attention_weights(Q, K)  # softmax(scores / √d_k), by row
output = weights @ V  # [3, 3] @ [3, 3] -> [3, 3]
by_key = {t: scores[:, j] for j, t in enumerate(tokens)}  # a column a key
step_table(by_key, index=tokens, digits=0)

# %% [markdown]
# The scores are whole numbers you can check by hand: the row of "사과를" is
# {eval}`plain(scores[1])`, the seed's own scores (1, 0, 1) of Chapter 4, doubled by the 2 in
# $W_Q$. With $d_k =$ {eval}`Q.shape[1]` the weights are:

# %%
step_table({t: weights[:, j] for j, t in enumerate(tokens)}, index=tokens)

# %% [markdown]
# By hand, the row of "사과를": its scaled scores are {eval}`dec(scores[1] / np.sqrt(3), 2)`,
# $e^{2/\sqrt 3} \approx$ {eval}`dec(np.exp(scores[1, 0] / np.sqrt(3)), 2)`, $e^0 = 1$, and
# the row's sum is {eval}`dec(np.exp(scores[1] / np.sqrt(3)).sum(), 2)`; so
# {eval}`dec(np.exp(scores[1, 0] / np.sqrt(3)), 2)` / {eval}`dec(np.exp(scores[1] / np.sqrt(3)).sum(), 2)`
# = {eval}`dec(weights[1, 0])`.
#
# "사과를" puts {eval}`dec(weights[1, 0])` on "나는" and {eval}`dec(weights[1, 2])` on
# "먹었다", and only {eval}`dec(weights[1, 1])` on itself: exactly the seed's sentence, "사과"
# looks at "나는" and "먹었다". Now the reason can be stated: the object marker -를 asks for
# an action and an actor, and those are what -는 and the verb offer. The other rows follow
# the same reading: "나는" asks what it did and puts {eval}`dec(weights[0, 2])` on "먹었다";
# "먹었다" asks what was acted on and puts {eval}`dec(weights[2, 1])` on "사과를".
#
# The values of this example are chosen to be read too: they hand over "who", "what" and
# "did". The new vector of "사과를" is {eval}`vector(output[1])`: mostly who and did, the
# context the apple was missing.
#
# ## Click a word
#
# The heatmap below draws these weights from the same $Q$ and $K$. Click a row (or use the
# arrow keys) to list one word's weights; switch the scaling off or change the temperature
# and watch the rows sharpen or flatten.

# %%
heatmap_ko = AttentionHeatmap(
    query_tokens=tokens, query_vectors=Q, key_vectors=K, selected=1
)
figures.show(
    heatmap_ko,
    "fig-heatmap-ko",
    "The attention weights of “나는 사과를 먹었다” from $Q = XW_Q$ and "
    "$K = XW_K$, live: rows are queries (the word asking), columns keys; "
    "row “사과를” is selected.",
)

# %% [markdown]
# The same matrices work for an English sentence: the features do not depend on the
# language, only on what each word is. English has no case markers, so here the features
# *subject* and *object* come from the word order. "the" has none of the four features: its
# vector is zero.

# %%
tokens_en = ["I", "ate", "the", "apple"]
X_en = np.array(
    [
        [1, 0, 1, 0],  # I: a noun, the subject
        [0, 1, 0, 0],  # ate: a verb
        [0, 0, 0, 0],  # the: none of the four features
        [1, 0, 0, 1],  # apple: a noun, the object
    ]
)  # [4, d_model]
weights_en = ac.attention_weights(X_en @ W_Q, X_en @ W_K)  # [4, 4]
heatmap_en = AttentionHeatmap(
    query_tokens=tokens_en,
    query_vectors=X_en @ W_Q,
    key_vectors=X_en @ W_K,
    selected=3,
)
figures.show(
    heatmap_en,
    "fig-heatmap-en",
    "The same $W_Q$ and $W_K$ on “I ate the apple”, live; row “apple” is "
    "selected.",
)

# %% [markdown]
# "apple" attends to "I" and "ate" with {eval}`dec(weights_en[3, 0])` each, as "사과를" did
# (with four words instead of three each weight is a little smaller). The row of "the" is
# flat, {eval}`dec(weights_en[2])`: a zero query scores 0 against every key, and a softmax
# of equal scores is uniform. Attention cannot look *nowhere*: its weights always add up to
# 1.
#
# ## Why three matrices? What $W_Q = W_K$ would break
#
# Could one matrix make both the queries and the keys? Try it: use $W_K$ for both.

# %%
scores_same = K @ K.T  # queries made with W_K too: [3, 3]
scores_same

# %% [markdown]
# Two things go wrong, and both always do. First, the score matrix is symmetric
# (대칭): $(\mathbf x_i W)\cdot(\mathbf x_j W) = (\mathbf x_j W)\cdot(\mathbf x_i W)$, so "사과를
# looks for 나는" would mean "나는 looks for 사과를" just as much; a question and its answer
# can no longer be different things. Second, each word's score with itself is the squared
# length $\|\mathbf x_i W\|^2$, and the Cauchy–Schwarz inequality bounds every other score
# by the two diagonal entries, $s_{ij} \le \sqrt{s_{ii}\, s_{jj}} \le \max(s_{ii}, s_{jj})$:
# words tend to look at themselves. Here it is extreme, the identity matrix: every word's only match is itself, and
# "사과를" gives {eval}`dec(ac.softmax(scores_same[1] / np.sqrt(3))[1])` of its attention to
# itself instead of {eval}`dec(weights[1, 1])`. Separate $W_Q$ and $W_K$ let "what I ask
# for" differ from "what I offer"; a separate $W_V$ lets "what I hand over" differ from both.

# %%
np.testing.assert_array_equal(scores_same, scores_same.T)  # symmetric
bool((scores == scores.T).all())  # three matrices: not symmetric

# %% [markdown]
# ## Self-attention and cross-attention (셀프 어텐션, 크로스 어텐션)
#
# Everything so far is self-attention: $Q$, $K$ and $V$ all come from the same sentence $X$,
# so the weight matrix is square, one row and one column per word. In cross-attention the
# queries come from one sequence and the keys and values from another. The first attention
# model was one ([Bahdanau et al., 2014](references.md)): while a translation is written,
# each word being written (the decoder's, 디코더) asks questions of the words of the
# original sentence (the encoder's, 인코더). With $L$ words written and $S$ words in the
# original,
#
# $$
# Q = X_\text{dec} W_Q \;(L \times d_k), \quad K = X_\text{enc} W_K \;(S \times d_k), \quad
# V = X_\text{enc} W_V \;(S \times d_v),
# $$ (eq-ch5-cross)
#
# and the weights $\mathrm{softmax}(QK^\top/\sqrt{d_k})$ are $L \times S$. Translate our
# sentence into "I ate the apple": the decoder's words ask for the Korean word that plays
# their role, so here its query matrix is $2W_K$ (the English word's role, asked for
# loudly).

# %%
W_Q_dec = 2 * W_K  # asks for the source word in its own role
Q_dec = X_en @ W_Q_dec  # [L, d_model] @ [d_model, d_k] -> [4, 3]
scores_cross = Q_dec @ K.T  # [4, 3] @ [3, 3] -> [4, 3]: L rows, S columns
weights_cross = ac.attention_weights(Q_dec, K)  # [4, 3], rows sum to 1
output_cross = weights_cross @ V  # [4, 3] @ [3, 3] -> [4, 3]
by_key = {t: scores_cross[:, j] for j, t in enumerate(tokens)}
step_table(by_key, index=tokens_en, digits=0)

# %% [markdown]
# By hand: "I" has the subject feature, so its query is $2 \times$ (row 3 of $W_K$) =
# {eval}`vector(Q_dec[0])`, and it scores {eval}`plain(scores_cross[0])` against the keys of
# "나는", "사과를", "먹었다". The weight matrix has {eval}`weights_cross.shape[0]` rows and
# {eval}`weights_cross.shape[1]` columns:

# %%
cross_panel = {
    "matrix": weights_cross,  # [L, S] = [4, 3]
    "rows": tokens_en,
    "cols": tokens,
    "title": "cross-attention, L × S = 4 × 3",
    "digits": 3,
}
figures.show(
    plot_token_heatmaps(
        [cross_panel],
        xlabel="key: the Korean sentence (encoder)",
        ylabel="query: the English words (decoder)",
    ),
    "fig-cross",
    "Cross-attention from the English words being written (rows) to the "
    "Korean sentence (columns): a weight matrix of "
    f"{weights_cross.shape[0]} × {weights_cross.shape[1]}, not square.",
)

# %% [markdown]
# Each English word finds its counterpart: "I" puts {eval}`dec(weights_cross[0, 0])` on
# "나는", "ate" {eval}`dec(weights_cross[1, 2])` on "먹었다", "apple"
# {eval}`dec(weights_cross[3, 1])` on "사과를", and "the", which has no counterpart, spreads
# its attention evenly ({eval}`figures.ref("fig-cross")`). That is the alignment (정렬)
# Bahdanau et al. drew for French and English. Each output row is a mix of the *Korean*
# values, handed to the English word being written.
#
# Self-attention is cross-attention with both sides the same sentence:


# %%
def cross_attention(X_dec, X_enc, W_Q, W_K, W_V):
    """softmax((X_dec W_Q)(X_enc W_K)ᵀ / √d_k) X_enc W_V.

    X_dec [L, D] and X_enc [S, D] -> [L, d_v].
    """
    Q = X_dec @ W_Q  # [L, D] @ [D, d_k] -> [L, d_k]
    K, V = X_enc @ W_K, X_enc @ W_V  # [S, d_k], [S, d_v]
    return ac.scaled_dot_product_attention(Q, K, V)  # [L, d_v]


np.testing.assert_allclose(cross_attention(X, X, W_Q, W_K, W_V), output)
translated = cross_attention(X_en, X, W_Q_dec, W_K, W_V)
np.testing.assert_allclose(translated, output_cross)

# %% [markdown]
# ## Shuffle the words: the outputs shuffle too (순열 등변성)
#
# Korean word order is free enough that "사과를 나는 먹었다" is still a sentence. Feed it in:

# %%
order = [1, 0, 2]  # 사과를, 나는, 먹었다
X_shuffled = X[order]  # the rows of X, reordered: [3, 4]
output_shuffled = cross_attention(X_shuffled, X_shuffled, W_Q, W_K, W_V)
np.testing.assert_allclose(output_shuffled, output[order])  # reordered
output_shuffled.round(3)

# %% [markdown]
# Every word gets exactly the output it had, in its new place: the row of "사과를" is still
# {eval}`vector(output_shuffled[0])`. This is permutation equivariance (순열 등변성): permuting
# the rows of $X$ by a permutation matrix $P$ permutes $Q$, $K$ and $V$ the same way, the
# scores become $P\,QK^\top P^\top$, the row-wise softmax commutes with that, and
# $P^\top P = I$ leaves $\mathrm{Attention}(PX) = P\,\mathrm{Attention}(X)$. Here it is
# welcome, since the case markers carry the roles. In English it is not: with no positions,
# "dog bites man" and "man bites dog" give "dog" the same output.

# %%
d_model = 4
words = ["dog", "bites", "man"]
dog_bites_man = ac.toy_embeddings(words, d_model)  # [3, 4], seeded
man_bites_dog = dog_bites_man[[2, 1, 0]]  # the same words, reversed
layer = ac.SimpleSelfAttention(d_model, np.random.default_rng(0))
dog_first = layer(dog_bites_man[None])[0][0, 0]  # "dog", first word
dog_last = layer(man_bites_dog[None])[0][0, 2]  # "dog", last word
np.testing.assert_allclose(dog_first, dog_last)

# %% [markdown]
# Whether the dog bites or is bitten, attention alone gives it the same vector. That is why
# the Transformer adds a positional encoding (위치 인코딩) to every word vector before the
# first layer: a vector that depends on the word's position (sines and cosines of several
# frequencies in the original paper, [Vaswani et al., 2017](references.md)), so that the
# same word at another place is a different row of $X$.
#
# ## The seed's `SimpleSelfAttention`, in numpy
#
# The second seed article shows a minimal self-attention layer in PyTorch. Here it is as
# written there (comments translated):
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
#
#         # queries, keys, values (쿼리, 키, 값 계산)
#         q = self.query(x)  # [batch_size, seq_len, embed_dim]
#         k = self.key(x)  # [batch_size, seq_len, embed_dim]
#         v = self.value(x)  # [batch_size, seq_len, embed_dim]
#
#         # attention scores (어텐션 스코어 계산)
#         # q @ k.transpose(-2, -1) -> [batch_size, seq_len, seq_len]
#         attention = torch.matmul(q, k.transpose(-2, -1)) / self.scale
#
#         # softmax (소프트맥스 적용)
#         attention = F.softmax(attention, dim=-1)
#
#         # weighted sum (가중치 적용)
#         # attention @ v -> [batch_size, seq_len, embed_dim]
#         output = torch.matmul(attention, v)
#
#         return output, attention
# ```
#
# It is {eq}`eq-ch5-projections` and the attention of Chapter 4, with two additions: each
# `nn.Linear` is a matrix *and a bias* (편향, a vector added to every row), and a leading
# batch (배치) axis processes several sentences at once. `attn_core.SimpleSelfAttention` is the same
# layer in numpy, initialised as `nn.Linear` is; the translation is word for word:
#
# | PyTorch | numpy (`attn_core`) |
# |---|---|
# | `nn.Linear(d, d)(x)` = `x @ W.T + b`, `W` is (out, in) | `x @ w + b`, `w` is (in, out) |
# | `k.transpose(-2, -1)` | `np.swapaxes(k, -1, -2)`; `k.T` would reverse the batch axis too |
# | `F.softmax(a, dim=-1)` | `ac.softmax(a, axis=-1)` |
# | `torch.sqrt(torch.FloatTensor([d]))` | `math.sqrt(d)`, a Python number |
#
# Run it on our sentence, a batch of one, with seeded random weights; `embed_dim` is the
# width of $X$, {eval}`X.shape[1]`:

# %%
twin = ac.SimpleSelfAttention(X.shape[1], np.random.default_rng(0))
trace = trace_self_attention(twin, X[None])  # x: [batch=1, 3, 4]
for name, array in trace.items():
    print(f"{name:>9} {array.shape}")

# %% [markdown]
# Every array keeps the batch axis first; the scores and the attention are
# {eval}`plain(trace["attention"].shape[1:], " × ")` per sentence. With random weights the
# pattern means nothing yet: training is what moves $W_Q$ and $W_K$ towards matrices like
# ours. Where PyTorch is installed, the cell below gives the seed's layer the twin's weights
# and compares the two (PyTorch is not needed for anything else in this book; without it the
# cell says so and skips).

# %% tags=["nbval-ignore-output"]
try:
    import torch
    from attn_book.seed_torch import SimpleSelfAttention, copy_weights
except ImportError:
    print("PyTorch is not installed here: the comparison is skipped.")
else:
    seed_layer = SimpleSelfAttention(X.shape[1]).double()
    copy_weights(twin, seed_layer)  # W = w.T in every nn.Linear, same b
    x_torch = torch.from_numpy(X[None].astype(float))  # [1, 3, 4]
    torch_output, torch_attention = seed_layer(x_torch)
    gap = np.abs(torch_output.detach().numpy() - trace["output"]).max()
    print(f"PyTorch and numpy agree: largest difference {gap:.1e}")

# %% [markdown]
# (With `embed_dim` = 4 the two agree to the last bits, since $\sqrt 4 = 2$ is exact. For
# other widths they differ by about $10^{-8}$: the seed's `self.scale` is a float32 tensor, so
# $\sqrt{d}$ is rounded to float32 while everything else is float64.)
#
# ## One step to any word, all words at once
#
# The seed article credits self-attention with two strengths: long-range dependencies
# (장거리 의존성), because every word reaches every other in one step, and parallel
# processing (병렬 처리), because all the rows are computed at once. Both are claims about the
# shape of the computation, so compare it with the model attention replaced, a recurrent
# network (순환 신경망, RNN): it reads the words one at a time, and each state
# $\mathbf h_t = \tanh(\mathbf x_t W_x + \mathbf h_{t-1} W_h)$ needs the one before it.
# Take a few dozen random word vectors and both models with seeded random weights:

# %%
rng = np.random.default_rng(0)
n, d = 50, 8
x_long = rng.normal(size=(n, d))  # [n, d]: n words of width d
attention_layer = ac.SimpleSelfAttention(d, rng)
w_x = rng.normal(size=(d, d)) / np.sqrt(d)  # [d, H]
w_h = rng.normal(size=(d, d)) / np.sqrt(d)  # [H, H]
rnn_states = ac.simple_rnn(x_long, w_x, w_h)  # n steps in a row: [n, H]
attention_out, _ = attention_layer(x_long[None])  # all rows: [1, n, d]

# %% [markdown]
# That is $n =$ {eval}`n` words of width {eval}`d` (we write $n$ for the number of words,
# as [Chapter 9](09_cost.ipynb) does; $T$ stays the temperature). How much does the last word's output
# move when an earlier word moves a little? Nudge word
# $n-1-\text{distance}$ (counting from 0) by $\varepsilon$ and measure the change of the last output, divided
# by $\varepsilon$:

# %%
eps = 1e-4
distances = [1, 5, 10, 20, 30]
moved = {"attention": [], "RNN": []}
for distance in distances:
    nudged = x_long.copy()
    nudged[n - 1 - distance] += eps  # move one earlier word a little
    last_attention = attention_layer(nudged[None])[0][0, -1]  # [d]
    last_state = ac.simple_rnn(nudged, w_x, w_h)[-1]  # [H]
    change_attention = np.abs(last_attention - attention_out[0, -1]).max()
    change_rnn = np.abs(last_state - rnn_states[-1]).max()
    moved["attention"].append(change_attention / eps)
    moved["RNN"].append(change_rnn / eps)
step_table(
    {
        "attention": moved["attention"],
        "RNN": [f"{m:.1e}" for m in moved["RNN"]],  # tiny: powers of 10
    },
    index=[f"distance {k}" for k in distances],
)

# %% [markdown]
# The weights are seeded, so these numbers come out the same on every run. Attention's
# sensitivity hardly depends on the distance ({eval}`dec(moved["attention"][0])`
# for the neighbour, {eval}`dec(moved["attention"][-1])` for a word
# {eval}`distances[-1]` places back): the last word's query scores every key directly. The
# RNN's falls by orders of magnitude, from {eval}`dec(moved["RNN"][0])` to
# {eval}`f"{moved['RNN'][-1]:.0e}"`: a word's influence has to pass through every state in
# between, and each step shrinks it. The same picture counts the steps: the RNN needs
# {eval}`n` steps one after another, each waiting for the last; attention is two matrix
# products whatever $n$ is, and no row of them waits for another.
#
# Rows that wait for nothing can be computed together, and that is where the time goes. The
# cell below computes the same attention twice, all rows in one call and one row at a time
# in a loop (the only way an RNN can go), and times the RNN too. Run it; its numbers depend
# on your machine, so the text does not quote them.

# %% tags=["nbval-ignore-output"]
timing_rng = np.random.default_rng(1)
x_timing = timing_rng.normal(size=(1000, 64))  # 1000 words, width 64
w_x_timing, w_h_timing = timing_rng.normal(size=(2, 64, 64)) / 8
start = time.perf_counter()
all_rows = ac.scaled_dot_product_attention(x_timing, x_timing, x_timing)
all_rows_seconds = time.perf_counter() - start
start = time.perf_counter()
row_by_row = np.stack(
    [
        ac.scaled_dot_product_attention(x, x_timing, x_timing)
        for x in x_timing
    ]
)  # 1000 calls, one query each
row_by_row_seconds = time.perf_counter() - start
start = time.perf_counter()
ac.simple_rnn(x_timing, w_x_timing, w_h_timing)  # 1000 steps in a row
rnn_seconds = time.perf_counter() - start
np.testing.assert_allclose(all_rows, row_by_row)  # the same numbers
print(f"attention, all rows at once: {all_rows_seconds * 1e3:7.1f} ms")
print(f"attention, row by row:       {row_by_row_seconds * 1e3:7.1f} ms")
print(f"RNN, step by step:           {rnn_seconds * 1e3:7.1f} ms")

# %% [markdown]
# All rows at once is many times faster than the same rows one by one. The RNN may well beat
# both here: it does $n d^2$ multiplications where attention does $n^2 d$, and a two-core
# machine is limited by the arithmetic. On a GPU with thousands of cores the waiting is what
# limits, and attention has none, which is why the Transformer trained faster than the
# recurrent models before it ([Vaswani et al., 2017](references.md)). The price of the
# one-step reach is the $n \times n$ score matrix: attention's cost grows with $n^2$, the
# limit the first seed article names.
#
# ## Attention over an image (컴퓨터 비전)
#
# The seed ends by noting that attention is used in computer vision too. The trick is to make
# an image look like a sentence: cut it into small square patches (패치), flatten each into a
# row, and treat the rows as tokens; a vision transformer then runs the same self-attention
# over them, with learned $W_Q$, $W_K$, $W_V$ and a positional encoding for where each patch
# sits ([Dosovitskiy et al., 2021](references.md)). Take a tiny synthetic image, a bright
# square top left, a bright bar bottom right and a small diagonal top right, and cut it into
# patches:

# %%
image = np.zeros((8, 8))
image[0:4, 0:4] = 1.0  # a bright square, top left
image[4:8, 6:8] = 1.0  # a bright bar, bottom right
image[0:2, 6:8] = [[1, 0], [0, 1]]  # a small diagonal, top right
patch_size = 2
patches = ac.image_patches(image, patch_size)  # [16 patches, 4 pixels]
patch_weights = ac.attention_weights(patches, patches)  # [16, 16]
patches.shape

# %% [markdown]
# The image has {eval}`plain(image.shape, " × ")` pixels and the patches
# {eval}`patch_size` × {eval}`patch_size`, so there are {eval}`patches.shape[0]` tokens of
# {eval}`patches.shape[1]` numbers each. To keep it to one idea we skip the learned matrices: each patch's pixels are its query and
# its key (the symmetric case above, enough to find patches that look alike). Patch 0, the
# top-left corner of the square:

# %%
figures.show(
    plot_patch_attention(image, patch_size, patch_weights[0], selected=0),
    "fig-patches",
    "Left: an 8 × 8 image cut into 16 patches of 2 × 2 pixels "
    "(outlined: patch 0). Right: the attention weights of patch 0 "
    "over all 16 patches, laid out where the patches are.",
)

# %% [markdown]
# Patch 0 puts {eval}`dec(patch_weights[0, 0])` on each bright patch of its own square and
# the same on the far bar (patch {eval}`patches.shape[0] - 1`,
# {eval}`dec(patch_weights[0, -1])`), but only {eval}`dec(patch_weights[0, 2])` on a dark
# patch: as with words, distance plays no part; only what the patches hold
# ({eval}`figures.ref("fig-patches")`).
#
# ## Summary
#
# - A model makes each word's query, key and value from its vector with three learned
#   matrices: $Q = XW_Q$, $K = XW_K$, $V = XW_V$. Each product keeps a row per word and takes
#   the width of its matrix.
# - With features and matrices that mean something, the weights can be read: "사과를" asks
#   for an action and an actor and puts {eval}`dec(weights[1, 0])` on "나는" and
#   {eval}`dec(weights[1, 2])` on "먹었다".
# - $W_Q = W_K$ makes the scores symmetric and pulls each word towards itself; three matrices
#   keep asking, offering and handing over apart.
# - Self-attention takes $Q$, $K$, $V$ from one sequence; cross-attention takes $Q$ from one
#   and $K$, $V$ from another, with $L \times S$ weights.
# - Shuffling the words shuffles the outputs the same way, so models add positions.
# - The seed's PyTorch layer is this with biases and a batch axis; attention reaches any word
#   in one step and computes every row at once, where an RNN needs $n$ steps in a row.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict.
# The hints and solutions are folded away until you ask for them.
#
# ```{exercise} Scores of two projected tokens, by hand
# :label: ex-ch5-scores-by-hand
#
# Two tokens $\mathbf x_1$, $\mathbf x_2$ (the rows of `X_ex` below) and two matrices `W_Q_ex`
# and `W_K_ex` (printed below). Compute $Q = XW_Q$ and $K = XW_K$ by hand, then the 2 × 2
# score matrix $QK^\top$, *before* any scaling.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Row $i$ of $XW$ is $\sum_f x_{if} W_{f,:}$: each feature of the token times the row of $W$
# it picks. Entry $(i, j)$ of $QK^\top$ is $\mathbf q_i \cdot \mathbf k_j$, query of token $i$,
# key of token $j$.
# ```

# %%
X_ex, W_Q_ex, W_K_ex = ch5.scores_by_hand.inputs
print("X =", X_ex.tolist())
print("W_Q =", W_Q_ex.tolist(), "  W_K =", W_K_ex.tolist())
answer = ...  # the 2 × 2 scores, e.g. [[0, 0], [0, 0]]
ch5.scores_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch5-scores-by-hand
# :class: dropdown
#
# $Q$ has rows {eval}`vector(X_ex[0] @ W_Q_ex)` and {eval}`vector(X_ex[1] @ W_Q_ex)`; $K$
# has rows {eval}`vector(X_ex[0] @ W_K_ex)` and {eval}`vector(X_ex[1] @ W_K_ex)`. The four
# dot products give the score matrix with rows
# {eval}`vector((X_ex @ W_Q_ex)[0] @ (X_ex @ W_K_ex).T)` and
# {eval}`vector((X_ex @ W_Q_ex)[1] @ (X_ex @ W_K_ex).T)`:
#
# ```python
# Q_ex, K_ex = X_ex @ W_Q_ex, X_ex @ W_K_ex  # [2, 3] @ [3, 2] -> [2, 2] each
# answer = Q_ex @ K_ex.T  # row i: query i against both keys
# ch5.scores_by_hand.check(answer)
# ```
# ````
#
# ```{exercise} One matrix for queries and keys
# :label: ex-ch5-same-matrix
#
# A model uses one matrix $W$ for both: $W_Q = W_K = W$. Compare the score of word $i$'s
# query with word $j$'s key, and the score of word $j$'s query with word $i$'s key. Are they
# `"equal"`, `"opposite"` or `"unrelated"`?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write both scores with $\mathbf x_i W$ and $\mathbf x_j W$.
# ```

# %%
answer = ...  # "equal", "opposite" or "unrelated"
ch5.same_matrix.check(answer)

# %% [markdown]
# ````{solution} ex-ch5-same-matrix
# :class: dropdown
#
# Both are $(\mathbf x_i W)\cdot(\mathbf x_j W)$, and a dot product does not care about the
# order of its two vectors: the score matrix equals its transpose, as `scores_same` did
# above.
#
# ```python
# ch5.same_matrix.check("equal")
# ```
# ````
#
# ```{exercise} The shapes of a cross-attention
# :label: ex-ch5-cross-shapes
#
# A decoder has written $L$ words and reads an encoder's $S$ words; both have vectors of
# width $d_\text{model}$; $W_Q$ and $W_K$ are $d_\text{model} \times d_k$ and $W_V$ is
# $d_\text{model} \times d_v$ (the numbers are printed below). Give four numbers: the rows
# and columns of the weight matrix, then the rows and columns of the output.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write the shape of $Q$, $K$ and $V$ first, with {eq}`eq-ch5-cross`; then $QK^\top$, then
# the weights times $V$.
# ```

# %%
L_ex, S_ex, d_model_ex, d_k_ex, d_v_ex = ch5.cross_shapes.inputs
print(f"L = {L_ex}, S = {S_ex}, d_model = {d_model_ex},", end=" ")
print(f"d_k = {d_k_ex}, d_v = {d_v_ex}")
answer = ...  # [weight rows, weight columns, output rows, output columns]
ch5.cross_shapes.check(answer)

# %% [markdown]
# ````{solution} ex-ch5-cross-shapes
# :class: dropdown
#
# $Q$ is $L \times d_k$, $K$ is $S \times d_k$, $V$ is $S \times d_v$. The weights
# $\mathrm{softmax}(QK^\top/\sqrt{d_k})$ are $L \times S$: a row per word written, a column per
# word read. The output, weights times $V$, is $L \times d_v$.
#
# ```python
# answer = [L_ex, S_ex, L_ex, d_v_ex]
# ch5.cross_shapes.check(answer)
# ```
# ````
#
# ```{exercise} Predict, then run: the same words in another order
# :label: ex-ch5-shuffled
#
# Feed "먹었다 사과를 나는" (the rows of $X$ in the order 3, 2, 1) to the same self-attention.
# Is the output of "사과를" the `"same"` vector as before, {eval}`vector(output[1])`, or
# `"different"`? Answer first; the solution runs it.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The output of "사과를" is made from its own query, all the keys and all the values. Which
# of them does the order change?
# ```

# %%
answer = ...  # "same" or "different"
ch5.shuffled_sentence.check(answer)

# %% [markdown]
# ````{solution} ex-ch5-shuffled
# :class: dropdown
#
# Its query is the same, and it meets the same keys and values, only listed in another
# order; the sums of the softmax and of the weighted values do not depend on the order of
# their terms. Row 2 of the reordered output is row 2 of the original:
#
# ```python
# reordered = cross_attention(X[[2, 1, 0]], X[[2, 1, 0]], W_Q, W_K, W_V)
# np.testing.assert_allclose(reordered[1], output[1])
# ch5.shuffled_sentence.check("same")
# ```
# ````
#
# ```{exercise} Find the bug: self-attention from three projections
# :label: ex-ch5-bug-projections
#
# Someone wrote self-attention with its three projections. It runs, its rows sum to 1, and
# its outputs have the right shape, but they are wrong. Copy it as `fixed_self_attention`,
# change the one line that is wrong, and run the check.
# ```

# %%
ch5.keys_from_queries.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print the score matrix `Q @ K.T` for our sentence and compare it with its transpose.
# ```


# %%
def fixed_self_attention(X, W_Q, W_K, W_V):
    raise NotImplementedError  # copy the function above here and fix it


ch5.keys_from_queries.check(fixed_self_attention)

# %% [markdown]
# ````{solution} ex-ch5-bug-projections
# :class: dropdown
#
# The keys are made with `W_Q`, so the queries and the keys are the same vectors and every
# score matrix is symmetric: the failure of a single matrix shown above. Each of $Q$, $K$, $V$
# needs its own matrix; the keys need `W_K`.
#
# ```python
# def fixed_self_attention(X, W_Q, W_K, W_V):
#     Q = X @ W_Q  # [..., n, D] @ [D, d_k] -> [..., n, d_k]
#     K = X @ W_K  # the fix: the keys' own matrix
#     V = X @ W_V  # [..., n, D] @ [D, d_v] -> [..., n, d_v]
#     K_t = np.swapaxes(K, -1, -2)  # [..., d_k, n]
#     scores = Q @ K_t / np.sqrt(Q.shape[-1])  # [..., n, n]
#     return ac.softmax(scores, axis=-1) @ V  # [..., n, d_v]
#
#
# ch5.keys_from_queries.check(fixed_self_attention)
# ```
# ````
