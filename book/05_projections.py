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
# learned matrices (가중치 행렬), $W_Q$, $W_K$ and $W_V$. The Korean explainer of queries,
# keys and values (the explainer, from here on; see the [references](references.md)) says it
# in one line: "입력 벡터에서 선형 변환을 통해 Q, K, V 벡터 생성" (Q, K, V are made from the input
# vectors by linear maps). This chapter does that by hand, with matrices small enough for
# pencil and paper, and chooses their numbers so that the attention they give can be read.
#
# **The core of this chapter** is one skill: make $Q$, $K$ and $V$ from the tokens with three
# matrices, and read the weights they give, within one sentence (self-attention) or from one
# sentence to another (cross-attention). It runs through
# [Words as vectors](05_projections.ipynb#words-as-vectors) and
# [Three projections, by hand](05_projections.ipynb#three-projections-by-hand) to
# [Why three matrices?](05_projections.ipynb#why-three-matrices-what-would-break) and
# [Self-attention and cross-attention](05_projections.ipynb#self-attention-and-cross-attention).
# The sections marked *Going further* shuffle the words, port the explainer's PyTorch layer to
# numpy, and weigh attention against an RNN and on images; a first reading can skip them, and
# no core section needs them.
#
# After the core of this chapter you will be able to:
#
# - multiply word vectors $X$ by $W_Q$, $W_K$, $W_V$ by hand, give the shape of every
#   product, and run the attention of Chapter 4 on the result;
# - say why the model needs three different matrices, and what goes wrong when $W_Q = W_K$;
# - tell self-attention from cross-attention, and compute a
#   cross-attention whose weight matrix is not square.
#
# After the *Going further* sections you will also be able to:
#
# - show that shuffling the words shuffles the outputs the same way, and say why models add
#   positions to the word vectors;
# - read the explainer's PyTorch `SimpleSelfAttention` line by line and match it with numpy;
# - say what the explainer claims for this layer, every word reaching every other in
#   one step and all words computed at once, and when the second does not hold.

# %%
import attn_core as ac
import numpy as np
from attn_book.data import SENTENCE_KO, toy_embeddings
from attn_book.exercises import ch05_projections as ch5
from attn_book.figures import Figures
from attn_book.plots import plot_token_heatmaps
from attn_book.prose import dec, plain, sci, vector
from attn_book.tables import step_table
from attn_book.widgets import AttentionHeatmap
from attn_core import trace_self_attention

figures = Figures(chapter=5)

# %% [markdown]
# ## Words as vectors (단어 벡터)
#
# A model reads a sentence as a matrix $X$: one row per token (토큰), the word's vector, of
# some width $d_\text{model}$. Real models learn these vectors (임베딩, embeddings) and give
# them hundreds of features nobody named. Ours have four features we can name, each 0 or 1:
# is the word a noun, is it a verb, does it carry the topic marker -는 (보조사; here it marks
# the subject), does it carry the object marker -를 (목적격 조사, a case marker). -는 is not
# the subject marker 이/가: it marks what the sentence is about, and in "나는 사과를 먹었다"
# that is the one who ate.

# %%
tokens = list(SENTENCE_KO)  # 나는, 사과를, 먹었다
features = ["noun", "verb", "-는 (topic: subject)", "-를 (object)"]
X = np.array(
    [
        [1, 0, 1, 0],  # 나는: a noun with the topic marker, here the subject
        [1, 0, 0, 1],  # 사과를: a noun with the object marker
        [0, 1, 0, 0],  # 먹었다: a verb
    ]
)  # [n, d_model] = [3, 4]: one row per token
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
# role each word offers; the queries say which roles each word asks for. In the
# explainer's library of [Chapter 1](01_dot_product.ipynb), $W_Q$ writes a word's search terms (검색어),
# $W_K$ its index tags (색인), and $W_V$ the content of the book a search hands over: three
# different things, made from the same word by three different matrices.
#
# A row of each $W$ belongs to a *feature*, not to a word: row $i$ of $XW$ is
# $\mathbf x_i W = \sum_f x_{if}\, W_{f,:}$, the rows of $W$ weighted by the word's features.
# With features that are 0 or 1, a word's query is the sum of the rows of $W_Q$ that its ones
# pick, and likewise its key and value. That is why the comments below name features:

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
# Now multiply. "사과를" has ones at *noun* and *-를*, so its query is row 1 of $W_Q$ plus
# row 4, {eval}`vector(W_Q[0])` + {eval}`vector(W_Q[3])`:

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
# {eval}`plain(scores[1])`, the worked example's scores (1, 0, 1) of Chapter 4, doubled by the 2 in
# $W_Q$. With $d_k =$ {eval}`Q.shape[1]` the weights are:

# %%
step_table({t: weights[:, j] for j, t in enumerate(tokens)}, index=tokens)

# %% [markdown]
# By hand, the row of "사과를", the steps of Chapter 4:

# %%
# [3]: the row's scores / √d_k
apple_scaled = scores[1] / np.sqrt(Q.shape[1])
apple_exps = np.exp(apple_scaled)  # e^(2/√3), e^0, e^(2/√3)
apple_total = apple_exps.sum()
apple_exps / apple_total  # row 2 of the table above

# %% [markdown]
# Its scaled scores are {eval}`dec(apple_scaled, 2)`, $e^{2/\sqrt 3} \approx$
# {eval}`dec(apple_exps[0], 2)`, $e^0 = 1$, and the row's sum is {eval}`dec(apple_total, 2)`;
# so {eval}`dec(apple_exps[0], 2)` / {eval}`dec(apple_total, 2)` $\approx$
# {eval}`dec(weights[1, 0])` (the division of the unrounded numbers; the rounded ones give a
# little less).
#
# "사과를" puts {eval}`dec(weights[1, 0])` on "나는" and {eval}`dec(weights[1, 2])` on
# "먹었다", and only {eval}`dec(weights[1, 1])` on itself: exactly the explainer's sentence, "사과"
# looks at "나는" and "먹었다". Now the reason can be stated: the object marker -를 asks for
# an action and an actor, and those are what -는 and the verb offer. The other rows follow
# the same reading: "나는" asks what it did and puts {eval}`dec(weights[0, 2])` on "먹었다";
# "먹었다" asks what was acted on and puts {eval}`dec(weights[2, 1])` on "사과를".
#
# The values of this example are chosen to be read too: they hand over "who", "what" and
# "did". The new vector of "사과를" is {eval}`vector(output[1])`: mostly who and did, the
# meaning the apple was missing. It keeps only {eval}`dec(weights[1, 1])` of its own "what";
# in a real layer that is no loss, because the residual connection (잔차 연결) of [Chapter
# 7](07_heads_and_masks.ipynb) adds the word's own vector back to what attention gathered.
#
# ## Click a word
#
# The heatmap below draws these weights from the same $Q$ and $K$. Click a row (or use the
# arrow keys) to list one word's weights; switch the scaling off or change the temperature
# and watch the rows sharpen or flatten.

# %%
heatmap_ko = AttentionHeatmap(query_tokens=tokens, query_vectors=Q, key_vectors=K, selected=1)
figures.show(
    heatmap_ko,
    "fig-heatmap-ko",
    "The attention weights of “나는 사과를 먹었다” from $Q = XW_Q$ and "
    "$K = XW_K$, live: rows are queries (the word asking), columns keys; "
    "row “사과를” is selected.",
)

# %% [markdown]
# The same matrices work for an English sentence: the features do not depend on the
# language, only on what each word is. English marks these roles by word order (only its
# pronouns keep case, *I* against *me*, besides the possessive *'s*), so here the features
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
    "The same $W_Q$ and $W_K$ on “I ate the apple”, live; row “apple” is selected.",
)

# %% [markdown]
# "apple" attends to "I" and "ate" with {eval}`dec(weights_en[3, 0])` each, as "사과를" did
# (with four words instead of three each weight is a little smaller). The row of "the" is
# flat, {eval}`dec(weights_en[2])`: a zero query scores 0 against every key, and a softmax
# of equal scores is uniform. Attention cannot look *nowhere*: its weights always add up to
# 1, unless every key is masked. Such a row gets zeros by this book's convention
# ([Chapter 2](02_softmax.ipynb)); libraries differ there, NaN for one
# ([Chapter 7](07_heads_and_masks.ipynb#going-further-a-fully-masked-row-and-what-each-api-gives)).
#
# ## Why three matrices? What $W_Q = W_K$ would break
#
# Could one matrix make both the queries and the keys? Try it: use $W_K$ for both.

# %%
scores_same = K @ K.T  # queries made with W_K too: [3, 3]
scores_same

# %% [markdown]
# The first problem comes with every such matrix: the score matrix is symmetric (대칭),
# $(\mathbf x_i W)\cdot(\mathbf x_j W) = (\mathbf x_j W)\cdot(\mathbf x_i W)$, so "사과를 looks
# for 나는" would score exactly as "나는 looks for 사과를": the relation loses its direction.
# With three matrices the scores are not symmetric:

# %%
np.testing.assert_array_equal(scores_same, scores_same.T)  # symmetric
bool((scores == scores.T).all())  # three matrices: not symmetric

# %% [markdown]
# One matrix breaks a second thing, a pull towards the diagonal, and it needs care. Each
# word's score with itself is a squared length, $s_{ii} = \|\mathbf x_i W\|^2 \ge 0$, and the Cauchy–Schwarz
# inequality bounds the others by the geometric mean of two diagonal entries,
# $s_{ij} \le \|\mathbf x_i W\|\,\|\mathbf x_j W\| = \sqrt{s_{ii}\, s_{jj}}$. That is *not*
# $s_{ij} \le s_{ii}$: a word with a short projection can score a longer one above itself.
# Two words whose projections point the same way, one three times as long as the other:

# %%
short_long = np.array([[1.0, 0.0], [3.0, 0.0]])  # x_i W and x_j W
scores_short_long = short_long @ short_long.T  # [2, 2], W_Q = W_K = W
scores_short_long

# %% [markdown]
# The short word scores itself {eval}`plain(scores_short_long[0, 0])` and the long one
# {eval}`plain(scores_short_long[0, 1])`: it prefers the other word. What the inequality does
# give is weaker. Of any two words, the one with the longer projection scores itself at least
# as high as it scores the other ($s_{ij} \le \sqrt{s_{ii} s_{jj}} \le s_{ii}$ when
# $s_{jj} \le s_{ii}$); so the word with the longest projection ranks itself first, and when
# all the projections have the same length, every word does. Ours have: the keys are one-hot,
# $KK^\top$ is the identity, and every word's only match is itself:

# %%
weights_same = ac.attention_weights(K, K)  # queries made with W_K: [3, 3]
self_weight_same = weights_same[1, 1]  # 사과를 on itself, one matrix
self_weight = weights[1, 1]  # 사과를 on itself, three matrices
print(dec(self_weight_same), "instead of", dec(self_weight))

# %% [markdown]
# "사과를" gives {eval}`dec(self_weight_same)` of its attention to itself instead of
# {eval}`dec(self_weight)`. Separate $W_Q$ and $W_K$ let "what I ask for" differ from "what I
# offer"; a separate $W_V$ lets "what I hand over" differ from both.
#
# Both failures of one matrix have one root. The score of two words is
# $\mathbf x_i W_Q\,(\mathbf x_j W_K)^\top = \mathbf x_i\,(W_Q W_K^\top)\,\mathbf x_j^\top$: it
# depends on the two matrices only through their $d_\text{model} \times d_\text{model}$ product
# $W_Q W_K^\top$, and with $W_Q = W_K = W$ that product, $W W^\top$, is forced to be symmetric
# and positive semi-definite: symmetric gives the symmetric scores, positive semi-definite the
# pull towards the diagonal.

# %% [markdown]
# ## Self-attention and cross-attention (셀프 어텐션, 크로스 어텐션)
#
# Everything so far is self-attention: $Q$, $K$ and $V$ all come from the same sentence $X$,
# so the weight matrix is square, one row and one column per word. In cross-attention the
# queries come from one sequence and the keys and values from another. The first attention
# model for translation was one ([Bahdanau et al., 2014](references.md)): while a
# translation is written, each word being written (the decoder's, 디코더) asks questions of
# the words of the original sentence (the encoder's, 인코더). (Bahdanau's model scored with the
# additive network of [Chapter 1](01_dot_product.ipynb), not a dot product: it compared the
# decoder's state $\mathbf s_{i-1}$ with $U_a\mathbf h_j$, a learned map of each encoder state,
# and averaged the states $\mathbf h_j$ themselves, with no separate $W_V$; the form below is
# the Transformer's.) With $L$ words written and $S$
# words in the original,
#
# $$
# \begin{aligned}
# Q &= X_\text{dec} W_Q \;(L \times d_k), \\
# K &= X_\text{enc} W_K \;(S \times d_k), \\
# V &= X_\text{enc} W_V \;(S \times d_v),
# \end{aligned}
# $$ (eq-ch5-cross)
#
# and the weights $\mathrm{softmax}(QK^\top/\sqrt{d_k})$ are $L \times S$. Translate our
# sentence into "I ate the apple": the decoder's words ask for the Korean word that plays
# their role, so here its query matrix is $2W_K$ (the English word's role, asked for
# loudly). (A simplification: in a real decoder a word's query comes from the decoder's
# state *before* the word is emitted, Bahdanau's $s_{i-1}$ or, in a Transformer decoder, the
# state at the position whose input is the previous word (the target shifted right by one),
# which has already attended to every earlier target word; here each English word asks with its own
# features, to keep the alignment easy to read.)

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
    "xrotation": 0,  # Hangul reads across, not down
}
figures.show(
    plot_token_heatmaps(
        [cross_panel],
        xlabel="key: the Korean sentence (encoder)",
        ylabel="query: the English words (decoder)",
    ),
    "fig-cross",
    "Cross-attention from the English words being written (rows) to the "
    "Korean sentence (columns): a weight matrix of {n_english} × "
    "{n_korean}, not square.",
    n_english=weights_cross.shape[0],
    n_korean=weights_cross.shape[1],
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
# ## Going further: word order, the explainer's code, and what attention buys
#
# The core ends here. The three sections below add what the projections do to word order,
# the explainer's PyTorch layer ported to numpy, and the two strengths the explainer
# credits self-attention with; a first reading can skip to the
# [Summary](05_projections.ipynb#summary).
#
# ### Shuffle the words: the outputs shuffle too (순열 등변성)
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
# $P^\top P = I$ leaves $\mathrm{Attention}(PX) = P\,\mathrm{Attention}(X)$. Here it does
# little harm, since the particles -는 and -를 carry the roles. In English it does real harm: with no positions,
# "dog bites man" and "man bites dog" give "dog" the same output.

# %%
d_model = 4
words = ["dog", "bites", "man"]
dog_bites_man = toy_embeddings(words, d_model)  # [3, 4], seeded
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
# same word at another place is a different row of $X$. [Chapter 6](06_positions.ipynb) builds
# those encodings and the ones that replaced them, which rotate the queries and keys instead.
#
# ### The explainer's `SimpleSelfAttention`, in numpy
#
# The explainer shows a minimal self-attention layer in PyTorch. Here it is as
# written there (comments translated):
#
# ```{code-block} python
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
# pattern means nothing yet: training is what moves the product $W_Q W_K^\top$ towards one
# whose scores pick out the useful words, as ours do. The matrices themselves need not look
# like ours: the scores depend only on their product (the section on $W_Q = W_K$ above), and
# for any invertible $A$ the pair $W_Q A$, $W_K A^{-\top}$ gives the same product.
# [Chapter 8](08_learning.ipynb) watches training on a task whose answer is known.
# Where PyTorch is installed, the cell below gives the explainer's layer the twin's weights
# and compares the two (apart from this comparison, only one optional check in
# [Chapter 10](10_generation.ipynb) runs PyTorch; without it the cell says so and skips).

# %% tags=["nbval-ignore-output"]
try:
    import torch
    from attn_book.explainer_torch import SimpleSelfAttention, copy_weights
except ImportError:
    print("PyTorch is not installed here: the comparison is skipped.")
else:
    explainer_layer = SimpleSelfAttention(X.shape[1]).double()
    # W = w.T in every nn.Linear, same b
    copy_weights(twin, explainer_layer)
    x_torch = torch.from_numpy(X[None].astype(float))  # [1, 3, 4]
    torch_output, torch_attention = explainer_layer(x_torch)
    gap = np.abs(torch_output.detach().numpy() - trace["output"]).max()
    print(f"PyTorch and numpy agree: largest difference {gap:.1e}")

# %% [markdown]
# Where it runs, the two agree to rounding: the cell prints their largest difference, and the
# project's tests (`tests/test_simple_self_attention_torch.py`) hold the outputs and the
# weights equal to a relative $10^{-6}$ on every run that has PyTorch.
#
# The listing keeps `self.scale` as a plain tensor attribute, which `.double()`, `.to(device)`
# and `state_dict()` pass over; [the appendix on registered buffers](98_pytorch_buffers.ipynb)
# says what that breaks and gives the one-line fix.
#
# ### One step to any word, all words at once
#
# The explainer credits self-attention with two strengths, and both can be read off
# {eq}`eq-ch5-projections` and the score matrix $QK^\top$. Long-range dependencies (장거리
# 의존성): the last word's query meets every key in one product, so word 1 reaches word $n$ in
# one step, where a recurrent network (순환 신경망, RNN) passes it through the $n - 1$ states in
# between ([Vaswani et al., 2017](references.md), Table 1). Parallel processing (병렬 처리):
# $XW_Q$, $XW_K$, $XW_V$ and $QK^\top$ are matrix products whose rows wait for nothing, where an
# RNN's state $\mathbf h_t = \tanh(\mathbf x_t W_x + \mathbf h_{t-1} W_h)$ needs the one before
# it. The second claim holds when the whole sequence is known in advance, in training and when
# a model reads a prompt (the *prefill*); generating text writes one row at a time, and
# [Chapter 10](10_generation.ipynb) shows what that costs. The price of the one-step reach is
# the $n \times n$ score matrix, whose cost [Chapter 9](09_cost.ipynb) measures.

# %% tags=["hide-input"]
# the aside below: nudge one of n_far random words, see how far the last output moves
rng_far = np.random.default_rng(0)
n_far, d_far = 50, 8
x_far = rng_far.normal(size=(n_far, d_far))  # [50, 8], seeded
layer_far = ac.SimpleSelfAttention(d_far, rng_far)  # untrained
w_x, w_h = rng_far.normal(size=(2, d_far, d_far)) / np.sqrt(d_far)  # untrained
nudge = 1e-4


def moved(distance):
    """The last output's largest change per unit of nudge, attention and RNN."""
    nudged = x_far.copy()
    nudged[n_far - 1 - distance] += nudge  # a word `distance` places before the last
    last = layer_far(nudged[None])[0][0, -1] - layer_far(x_far[None])[0][0, -1]
    rnn = ac.simple_rnn(nudged, w_x, w_h)[-1] - ac.simple_rnn(x_far, w_x, w_h)[-1]
    return np.abs(last).max() / nudge, np.abs(rnn).max() / nudge


distances = [1, 10, 30]
attention_moved, rnn_moved = np.array([moved(t) for t in distances]).T
step_table(
    {
        "attention": [sci(v, 1) for v in attention_moved],
        "RNN": [sci(v, 1) for v in rnn_moved],
    },
    index=[plain(t) for t in distances],
    index_label="words back",
)

# %% [markdown]
# ```{admonition} Aside: measured against an RNN
# :class: dropdown
#
# `ac.simple_rnn` is the Elman RNN ([Elman, 1990](references.md)). Nudge one of
# {eval}`n_far` random words and measure how much the last output moves (the table above,
# per unit of nudge): with seeded, untrained weights, attention's sensitivity hardly depends
# on the distance, {eval}`sci(attention_moved[0], 1)` one word back and
# {eval}`sci(attention_moved[-1], 1)` {eval}`distances[-1]` words back, while the RNN's falls
# from {eval}`sci(rnn_moved[0], 1)` to {eval}`sci(rnn_moved[-1], 1)`, because each step multiplies
# the change by $W_h$ and by $\tanh$ slopes below 1. The gated RNNs that replaced it, the LSTM (장단기 메모리,
# [Hochreiter & Schmidhuber, 1997](references.md), with the forget gate of
# [Gers et al., 2000](references.md)) and the GRU ([Cho et al., 2014](references.md)), carry
# a signal much further, but word 1 still reaches word $n$ through $n - 1$ states that run one
# after another. Attention computes all its rows in one matrix product, and an RNN's step $t$
# waits for step $t - 1$ on any hardware; on a GPU, built to run thousands of products at once,
# that waiting is what limits, which is why the Transformer trained faster than the recurrent
# models before it ([Vaswani et al., 2017](references.md), §4 and §6.1).
# ```
#
# The explainer adds that attention serves computer vision (컴퓨터 비전) too: the vision
# transformer (ViT) runs this chapter's self-attention, in the multi-head form of
# [Chapter 7](07_heads_and_masks.ipynb), over an image cut into square patches (패치), each
# made a token by one learned matrix, the patch embedding (패치 임베딩), with a learned position
# embedding added to each, for the reason of the shuffling section above (and one extra
# learned token, whose output the classifier reads)
# ([Dosovitskiy et al., 2021](references.md)).
#
# ## Summary
#
# - A model makes each word's query, key and value from its vector with three learned
#   matrices: $Q = XW_Q$, $K = XW_K$, $V = XW_V$. Each product keeps a row per word and takes
#   the width of its matrix.
# - With features and matrices that mean something, the weights can be read: "사과를" asks
#   for an action and an actor and puts {eval}`dec(weights[1, 0])` on "나는" and
#   {eval}`dec(weights[1, 2])` on "먹었다".
# - $W_Q = W_K$ makes the scores symmetric and pulls towards the diagonal (a word scores itself
#   at least as high as any word whose projection is no longer than its own); three matrices keep asking,
#   offering and handing over apart.
# - Self-attention takes $Q$, $K$, $V$ from one sequence; cross-attention takes $Q$ from one
#   and $K$, $V$ from another, with $L \times S$ weights.
# - *Going further:* shuffling the words shuffles the outputs the same way, so models add
#   positions ([Chapter 6](06_positions.ipynb)).
# - *Going further:* the explainer's PyTorch layer is this with biases and a batch axis.
# - *Going further:* attention reaches any word in one step and, in training and prefill,
#   computes every row at once, where an RNN, gated or not, needs $n$ steps in a row;
#   generation is sequential ([Chapter 10](10_generation.ipynb)).
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

# %%
# the numbers the folded solution quotes (nothing is printed: work them out first)
Q_ex, K_ex = X_ex @ W_Q_ex, X_ex @ W_K_ex  # [2, 3] @ [3, 2] -> [2, 2] each
scores_ex = Q_ex @ K_ex.T  # [2, 2]

# %% [markdown]
# ````{solution} ex-ch5-scores-by-hand
# :class: dropdown
#
# $Q$ has rows {eval}`vector(Q_ex[0])` and {eval}`vector(Q_ex[1])`; $K$ has rows
# {eval}`vector(K_ex[0])` and {eval}`vector(K_ex[1])`. The four dot products give the score
# matrix with rows {eval}`vector(scores_ex[0])` and {eval}`vector(scores_ex[1])`:
#
# ```python
# Q_ex, K_ex = X_ex @ W_Q_ex, X_ex @ W_K_ex  # [2, 3] @ [3, 2] -> [2, 2] each
# answer = Q_ex @ K_ex.T  # row i: query i against both keys
# ch5.scores_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Symmetric scores, symmetric weights?
# :label: ex-ch5-symmetric-weights
#
# With one matrix for both, $W_Q = W_K = W$, the score matrix is symmetric, $s_{ij} = s_{ji}$,
# as shown above. Is the matrix of attention *weights* $w_{ij}$ symmetric too: `"always"`,
# `"never"` or `"sometimes"`? Work it out before you run anything; the solution then runs an
# example of each case.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Write $w_{ij}$ and $w_{ji}$ as the fractions of the softmax, each with the sum of its own
# row, $Z_i = \sum_l e^{s_{il}/\sqrt{d_k}}$.
# ```

# %%
answer = ...  # "always", "never" or "sometimes"
ch5.symmetric_weights.check(answer)

# %% [markdown]
# ````{solution} ex-ch5-symmetric-weights
# :class: dropdown
#
# $w_{ij} = e^{s_{ij}/\sqrt{d_k}}/Z_i$ and $w_{ji} = e^{s_{ji}/\sqrt{d_k}}/Z_j$ have the same
# numerator, so $w_{ij}/w_{ji} = Z_j/Z_i$: the weights are symmetric exactly when every row has
# the same normaliser $Z_i = \sum_l e^{s_{il}/\sqrt{d_k}}$ (the sum of the row's exponentials,
# before dividing). The chapter's one-hot keys give $KK^\top = I$, every row the same
# normaliser, and
# symmetric weights; the two words of the short and the long projection above do not:
#
# ```python
# w_short_long = ac.attention_weights(short_long, short_long)  # [2, 2]
# assert not np.allclose(w_short_long, w_short_long.T)  # Z_1 differs from Z_2
# np.testing.assert_allclose(weights_same, weights_same.T)  # equal row sums
# ch5.symmetric_weights.check("sometimes")
# ```
# ````

# %% [markdown]
# ```{exercise} The shapes of a cross-attention
# :label: ex-ch5-cross-shapes
#
# A decoder has written $L$ words and reads an encoder's $S$ words; both have vectors of
# width $d_\text{model}$; $W_Q$ and $W_K$ are $d_\text{model} \times d_k$ and $W_V$ is
# $d_\text{model} \times d_v$ (the numbers are printed below). Give four numbers: the rows
# and columns of the weight matrix, then the rows and columns of the output. Two of the five
# sizes appear nowhere in your answer: before you check, say which, and at which product
# each one disappears.
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
# word read. The output, weights times $V$, is $L \times d_v$. $d_\text{model}$ disappears in
# the three projections ($X W$ sums over it) and $d_k$ in $QK^\top$, which sums over the
# query and key components; $d_v$ survives because nothing sums over it.
#
# ```python
# answer = [L_ex, S_ex, L_ex, d_v_ex]
# ch5.cross_shapes.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Put the outputs back in order
# :label: ex-ch5-restore-order
#
# Feed the sentence in another order, `X[order]`, and self-attention returns
# `Y = Attention(X[order])`, one row per token *in the new order*. Permutation equivariance
# says that `Y` holds the original outputs, reordered. Write `restore(Y, order)` that returns
# them in the sentence's own order, without computing any attention: for `order = [1, 2, 0]`
# ("사과를 먹었다 나는") its result must equal the chapter's `output`. `Y` may carry a batch
# axis first, $(B, n, d)$; the order is the same for every sentence.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Row $k$ of `Y` belongs to token `order[k]`. Is `Y[order]` the answer? Try it on a swap of
# two words and on `[1, 2, 0]`. In matrix form `X[order]` is $PX$, and the row-wise softmax
# gives $\mathrm{Attention}(PX) = P\,\mathrm{Attention}(X)$: what undoes $P$?
# ```


# %%
def restore(Y, order): ...  # your code here


ch5.restore_order.check(restore)

# %% [markdown]
# ````{solution} ex-ch5-restore-order
# :class: dropdown
#
# `Y[order]` applies the permutation a second time. It is right for a swap of two words, which
# undoes itself, and wrong for a cycle. The inverse of a permutation matrix is its transpose,
# $P^{-1} = P^\top$, and in index form that is `np.argsort(order)`: the place of token $i$ in
# the new order. Index the token axis, $-2$, so that a batch axis stays where it is:
#
# ```python
# def restore(Y, order):
#     return Y[..., np.argsort(order), :]  # P^T Y: token i back at place i
#
#
# order_cycle = [1, 2, 0]  # 사과를 먹었다 나는
# Y = cross_attention(X[order_cycle], X[order_cycle], W_Q, W_K, W_V)
# np.testing.assert_allclose(restore(Y, order_cycle), output)
# ch5.restore_order.check(restore)
# ```
# ````

# %% [markdown]
# ```{exercise} Design a query: the verb finds its subject
# :label: ex-ch5-design-verb
#
# In the chapter's $W_Q$ the verb asks what was acted on, and "먹었다" finds "사과를". Change
# the verb's row of $W_Q$ (row 2, printed below; the verb's only feature is *verb*, so that
# row is its whole query) so that "먹었다" finds its *subject* instead: at least
# {eval}`plain(ch5.SUBJECT_SHARE)` of its attention, and more than on any other word, must go to
# "나는". Keep $W_K$ as it is. Any row that does this is right; the check computes the weights
# your row gives.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Which column of the key space does "나는" offer (look at $W_K$)? A query pointing there
# scores "나는" and nothing else. Then the size: with the scaled score $s$ on "나는" and 0 on
# the two other keys, its weight is $e^{s}/(e^{s} + 2)$.
# ```

# %%
print("the verb's row of W_Q now:", W_Q[1], "  W_K =", W_K.tolist())
answer = ...  # the verb's new row of W_Q, three numbers
ch5.verb_finds_subject.check(answer)

# %% [markdown]
# ````{solution} ex-ch5-design-verb
# :class: dropdown
#
# "나는" offers the actor, the second column of the key space, so the verb's query must point
# along $(0, a, 0)$. Its scaled score on "나는" is then $a/\sqrt 3$ and 0 on the two others,
# and $e^{a/\sqrt 3}/(e^{a/\sqrt 3} + 2) \ge 1/2$ needs $e^{a/\sqrt 3} \ge 2$, that is
# $a \ge \sqrt 3 \ln 2$: a row of 1 is too soft, the chapter's loudness 2
# works. The design is checked by what it does, so $(0, 5, 0)$ passes too, and so does any
# row that asks for the actor much more loudly than for the other two roles.
#
# ```python
# W_Q_subject = W_Q.copy()
# W_Q_subject[1] = [0, 2, 0]  # the verb asks who did it
# weights_subject = ac.attention_weights(X @ W_Q_subject, K)  # [3, 3]
# print("먹었다:", dec(weights_subject[2]))  # most of it on 나는
# ch5.verb_finds_subject.check(W_Q_subject[1])
# ```
# ````

# %% [markdown]
# ```{exercise} The explainer's layer in numpy
# :label: ex-ch5-my-self-attention
#
# Write `self_attention(X, W_Q, W_K, W_V)` with plain NumPy (no `ac.softmax` and no
# `ac.scaled_dot_product_attention`): the explainer's `SimpleSelfAttention` without its
# biases. $X$ is $(\dots, n, d_\text{model})$, one row per token with any batch axes in front;
# $W_Q$ and $W_K$ are $(d_\text{model}, d_k)$ and $W_V$ is $(d_\text{model}, d_v)$; return the
# outputs $(\dots, n, d_v)$: equation {eq}`eq-ch5-projections`, then the attention of Chapter 4.
# The check runs it on our sentence ($d_\text{model}$ = {eval}`X.shape[1]`,
# $d_k$ = {eval}`W_Q.shape[1]`), on a layer with $d_k \ne d_v$, on two batches of sentences,
# and on tokens so large that their scores pass ten thousand, with rows far apart.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Project first, one matrix each. The scale is $\sqrt{d_k}$, the width of the queries, not of
# $X$; `np.swapaxes` gives $K^\top$ for every sentence of a batch; and for the large tokens,
# recall [Chapter 2](02_softmax.ipynb): subtract each row's maximum before `np.exp`.
# ```


# %%
def self_attention(X, W_Q, W_K, W_V): ...  # your code here


ch5.my_self_attention.check(self_attention)

# %% [markdown]
# ````{solution} ex-ch5-my-self-attention
# :class: dropdown
#
# Three projections, then Chapter 4's attention on them, row by row along the keys. The scale
# is $\sqrt{d_k}$, the width of $Q$ and $K$ ({eval}`W_Q.shape[1]` for our sentence, where
# $d_\text{model}$ is {eval}`X.shape[1]`); `np.swapaxes` turns only the last two axes, so each
# sentence of a batch keeps its own keys; and subtracting each row's own maximum keeps every
# $e^{\text{score}}$ at most 1 when the scores run to tens of thousands.
#
# ```python
# def self_attention(X, W_Q, W_K, W_V):
#     Q = X @ W_Q  # [..., n, d_model] @ [d_model, d_k] -> [..., n, d_k]
#     K = X @ W_K  # [..., n, d_k]
#     V = X @ W_V  # [..., n, d_v]
#     scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # [..., n, n]
#     e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # every exponent <= 0
#     weights = e / e.sum(axis=-1, keepdims=True)  # each row sums to 1
#     return weights @ V  # [..., n, n] @ [..., n, d_v] -> [..., n, d_v]
#
#
# ch5.my_self_attention.check(self_attention)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: self-attention from three projections
# :label: ex-ch5-bug-projections
#
# Someone wrote self-attention with its three projections. It runs, its rows sum to 1, and
# its outputs have the right shape, but they are wrong. Copy it as `fixed_self_attention`,
# change the one line that is wrong, and run the check.
# ```

# %%
ch5.three_projections_bug.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print `Q`, `K` and the score matrix `Q @ K.T` for our sentence, and compare them with the
# chapter's.
# ```


# %%
def fixed_self_attention(X, W_Q, W_K, W_V):
    raise NotImplementedError  # copy the function above here and fix it


ch5.three_projections_bug.check(fixed_self_attention)

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
# ch5.three_projections_bug.check(fixed_self_attention)
# ```
# ````
