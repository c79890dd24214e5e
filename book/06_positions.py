# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Where each word is (위치 인코딩)
#
# [Chapter 5](05_projections.ipynb) ended on a flaw: shuffle the words of a sentence and
# self-attention (without a causal mask) shuffles its outputs the same way, so "dog bites man" and "man bites dog"
# look alike to it. Attention compares *what* the words are, never *where* they are. This
# chapter gives it positions, in the three ways models do today, each by hand first: add a
# vector per position to the word vectors, rotate the queries and keys by an angle per
# position, or add a penalty per distance to the scores.
#
# After this chapter you will be able to (the first four are the core; the last two are
# *Going further*):
#
# - measure that attention without positions cannot tell two word orders apart;
# - compute the sinusoidal position encodings of the Transformer by hand, add them to word
#   vectors, and say what the dot product of two encodings depends on;
# - say what a learned table of positions is and where it stops;
# - rotate a query and a key in the plane by their positions (RoPE) and prove that their
#   score depends only on the signed offset $n - m$; then state the general form, pairs of
#   coordinates turning at one frequency each;
# - add ALiBi's distance penalty to a row of scores as an additive mask, and say what it does
#   to the weights of far words;
# - name what well-known models use, treat RoPE's base as a parameter, and stretch RoPE past
#   its training length by position interpolation or a larger base, by hand.
#
# New terms: position encoding, learned position embedding, rotary position embedding (RoPE),
# relative position, relative position bias, linear bias (ALiBi), NoPE, position
# interpolation, NTK-aware scaling, each with its Korean name where it is introduced.
#
# **The core of this chapter** is telling attention the word order, in its two main forms:
# absolute positions added to the word vectors, and RoPE's rotations of the queries and keys,
# whose scores depend only on the offset. It runs through
# [the problem, measured](06_positions.ipynb#the-problem-measured),
# [sinusoidal encodings](06_positions.ipynb#sinusoidal-position-encodings),
# [learned tables](06_positions.ipynb#learned-position-embeddings),
# [RoPE in two dimensions](06_positions.ipynb#rotary-embeddings-in-two-dimensions-a-rotation)
# and [in $d$](06_positions.ipynb#rope-in-dimensions-pairs-that-turn-at-different-speeds), and
# [dog bites man, again](06_positions.ipynb#dog-bites-man-man-bites-dog-again). The sections
# marked *Going further* add the sinusoids at a realistic width, RoPE's long-term decay and
# its two layouts, learned relative biases (T5), ALiBi, NoPE, and the rules that stretch RoPE past its training length, with a training
# run; a first reading can skip them, and no core section needs them.

# %%
import attn_core as ac
import numpy as np
from attn_book import experiments
from attn_book.data import projection_example, quanta_example, toy_embeddings
from attn_book.exercises import ch06_positions as ch6
from attn_book.figures import Figures
from attn_book.prose import dec, percent, plain, sci, vector
from attn_book.tables import step_table
from attn_book.widgets import QueryPad

figures = Figures(chapter=6)

rng = np.random.default_rng(0)  # every random number of the chapter

# %% [markdown]
# ## The problem, measured
#
# Take Chapter 5's sentence, "나는 사과를 먹었다", with its word vectors $X$ (features *noun*,
# *verb*, *-는*, *-를*) and its three matrices, and the same words in another order,
# "사과를 나는 먹었다":

# %%
tokens, X, W_Q, W_K, W_V = projection_example()  # Chapter 5's
Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # [3, 4] @ [4, 3] -> [3, 3]
output = ac.scaled_dot_product_attention(Q, K, V)  # [3, 3]
order = [1, 0, 2]  # 사과를, 나는, 먹었다
X_shuffled = X[order]  # [3, 4]: the same rows, reordered
output_shuffled = ac.scaled_dot_product_attention(
    X_shuffled @ W_Q, X_shuffled @ W_K, X_shuffled @ W_V
)
np.testing.assert_allclose(output_shuffled, output[order])  # reordered
apple_first = output[1]  # 사과를, second word
apple_shuffled = output_shuffled[0]  # 사과를, first word
in_order = [vector(r) for r in output]
step_table(
    {"word, in order": list(tokens), "output, in order": in_order}
    | {"word, shuffled": [tokens[i] for i in order]}
    | {"output, shuffled": [vector(r) for r in output_shuffled]},
    index=["position 1", "position 2", "position 3"],
)

# %% [markdown]
# "사과를" gets {eval}`vector(apple_first)` in second place and {eval}`vector(apple_shuffled)`
# in first place: the very same vector. Nothing in $X$ says where a word stands, and nothing
# in attention looks at the order of the rows, so any information that lives in word order is
# invisible. Here nothing is lost: the particles -는 and -를 carry the roles, and both orders
# mean the same ([Chapter 5](05_projections.ipynb)). But English carries the roles in the
# order ("the dog bit" against "bit the dog"), and even in Korean "큰 개와 작은 고양이" and
# "작은 개와 큰 고양이" are the same four words, told apart only by their order. The fix is to
# put the position into the numbers.
#
# ## Sinusoidal position encodings (사인파 위치 인코딩)
#
# The Transformer adds to the vector of the word at position $p$ (counting from 0; the paper
# first multiplies the word vectors by $\sqrt{d}$) a position encoding of the same width $d$, made of sines and cosines of the
# position at $d/2$ frequencies ([Vaswani et al., 2017](references.md)):
#
# $$
# \begin{aligned}
# PE_{p,\,2i} &= \sin(p\,\omega_i), \qquad PE_{p,\,2i+1} = \cos(p\,\omega_i), \\
# \omega_i &= 10000^{-2i/d}.
# \end{aligned}
# $$ (eq-ch6-pos-sinusoidal)
#
# Our sentence has $d = 4$, so there are two frequencies, $\omega_0 = 10000^0$ and
# $\omega_1 = 10000^{-2/4}$: the first pair of columns turns one radian per word, the second
# a hundred times slower.

# %%
n_words, d_model = X.shape  # 3 words of width 4
omega = ac.rotary_frequencies(d_model)  # [d/2]: 10000^(-2i/d)
PE = ac.sinusoidal_positions(n_words, d_model)  # [3, 4]
columns = {f"column {c}": PE[:, c] for c in range(d_model)}
step_table(columns, index=["p = 0", "p = 1", "p = 2"])

# %% [markdown]
# The frequencies are {eval}`plain(omega)`. By hand: position 0 is $(\sin 0, \cos 0, \sin 0,
# \cos 0)$ = {eval}`vector(PE[0])` for every width. Position 1 is $(\sin\omega_0,
# \cos\omega_0, \sin\omega_1, \cos\omega_1)$ = {eval}`vector(PE[1])`; position 2 doubles each
# angle, {eval}`vector(PE[2])`. A model adds these rows to the word vectors before the first
# layer; the first word keeps its *noun* and *-는* features but now carries
# {eval}`vector(PE[0])` on top:

# %%
X_positions = X + PE  # [3, 4] + [3, 4]: word + where it is
X_positions.round(3)

# %% [markdown]
# In four dimensions this is a collision: the position lands on the very coordinates that name
# the word's features. "나는" becomes {eval}`vector(X_positions[0])`, its *verb* and *-를*
# features switched on, and "먹었다" keeps only {eval}`dec(X_positions[2, 1])` of its *verb*
# feature ($1 + \cos 2$). Chapter 5's readable matrices, run on the sum, lose their reading:

# %%
weights_words = ac.attention_weights(Q, K)  # [3, 3]: Chapter 5's, words only
Q_collided, K_collided = X_positions @ W_Q, X_positions @ W_K  # [3, 3] each
weights_collided = ac.attention_weights(Q_collided, K_collided)  # [3, 3]
step_table(
    {"사과를, words only": weights_words[1], "사과를, words + positions": weights_collided[1]},
    index=list(tokens),
)

# %% [markdown]
# "사과를" looked for its subject and its verb, {eval}`dec(weights_words[1])`; on the sum it
# gives {eval}`dec(weights_collided[1])`, nearly all of it to "나는", which now looks like
# everything at once. Real models do not meet this in the same way: with hundreds of
# dimensions, the word vectors and the positions can occupy nearly separate directions, and
# training is free to keep them apart; the paper also multiplies the word vectors by
# $\sqrt{d}$ before the sum ([Vaswani et al., 2017](references.md), §3.4), which sets the
# size of the word against the position's. The toy's four named features have no room to
# spare, which is one more reason for RoPE below: it leaves the word vectors alone.
#
# What does the encoding of one position have in common with another's? Their dot product
# adds, pair by pair, $\sin a \sin b + \cos a \cos b = \cos(a - b)$:
#
# $$
# PE_p \cdot PE_q = \sum_i \cos\big((p - q)\,\omega_i\big),
# $$ (eq-ch6-pos-sinusoidal-dot)
#
# a function of the offset $p - q$ alone: every pair of neighbours is as alike as every
# other. At $d = 4$ it is not a measure of closeness, though: it does not fall steadily with
# the distance, because the fastest pair comes round again every $2\pi/\omega_0$ positions,
# and over eight positions the slow pair hardly moves, so the fast pair's cosine dominates.
# Check it on eight positions: along each diagonal of the matrix of dot products, the
# numbers do not change.

# %%
PE_8 = ac.sinusoidal_positions(8, d_model)  # [8, 4]
similarity = PE_8 @ PE_8.T  # [8, 4] @ [4, 8] -> [8, 8]
neighbours = np.diag(similarity, k=1)  # PE_p · PE_(p+1), p = 0 … 6
two_apart = np.diag(similarity, k=2)  # PE_p · PE_(p+2)
cos_sum_1 = np.cos(1 * omega).sum()  # the equation with p - q = 1
six_apart = similarity[0, 6]  # PE_0 · PE_6
full_turn = 2 * np.pi / omega[0]  # positions per turn of the fastest pair
similarity.round(3)

# %% [markdown]
# Every neighbour pair scores {eval}`dec(neighbours[0])` (the diagonal next to the main one:
# {eval}`dec(neighbours)`), which is $\cos\omega_0 + \cos\omega_1$ = {eval}`dec(cos_sum_1)`; every pair
# two apart scores {eval}`dec(two_apart[0])`; a position with itself scores $d/2 =$
# {eval}`dec(similarity[0, 0], 0)`. But positions six apart score {eval}`dec(six_apart)`, more
# than neighbours: after about {eval}`dec(full_turn, 1)` positions the fastest pair is back
# where it started. At realistic widths the many slow pairs outvote the fast ones and the dot
# product falls with the distance, with ripples; and once the encodings are added to the words
# and projected, the score no longer depends on $p - q$ alone (both measured in
# [Going further: sinusoids at a realistic width](06_positions.ipynb#going-further-sinusoids-at-a-realistic-width-and-through-the-projections)).
# RoPE, below, keeps that dependence.
#
# Vaswani et al. gave their own reason for sinusoids: for any fixed offset $k$, $PE_{p+k}$ is
# a linear function of $PE_p$, the same for every $p$; each pair $(\sin p\omega_i, \cos
# p\omega_i)$ is turned by the angle $k\omega_i$, a rotation, which they hoped would let the
# model attend by relative position. RoPE, below, makes that rotation the mechanism itself.
#
# ## Learned position embeddings (학습된 위치 임베딩)
#
# Instead of a formula, a model can learn its positions: a table with one row per position,
# trained like the word vectors (GPT-2's has 1,024 rows). Here is one for at most four
# positions, with random numbers standing in for trained ones:

# %%
max_len = 4  # the longest training sequence
position_table = 0.1 * rng.normal(size=(max_len, d_model))  # learned
X_learned = X + position_table[np.arange(n_words)]  # rows 0, 1, 2
try:
    position_table[max_len]  # a fifth word
except IndexError as err:
    print("position", max_len, "->", err)

# %% [markdown]
# The lookup is as cheap as it gets and the model may learn any pattern it likes, but the
# table ends at {eval}`max_len` rows: a word at position {eval}`max_len` has no row to
# look up, so the model cannot even be run on a longer text, let alone generalise to it.
# The sinusoids have no such end (any $p$ has a sine), but nothing trained them past the
# longest training text either.
#
# ## Rotary embeddings in two dimensions: a rotation (회전 위치 임베딩)
#
# Rotary position embedding (RoPE; [Su et al., 2021](references.md)) does not
# touch the word vectors. It turns the query of the word at position $m$, and the key of the
# word at position $n$, after the projections, each by an angle proportional to its position.
# In two dimensions there is one angle step $\theta$ per position, and the rotation by an
# angle $\varphi$ is
#
# $$
# \begin{aligned}
# R(\varphi) &= \begin{pmatrix} \cos\varphi & -\sin\varphi \\ \sin\varphi & \cos\varphi
# \end{pmatrix}, \\
# \mathbf q_m &= R(m\theta)\,\mathbf q, \qquad
# \mathbf k_n = R(n\theta)\,\mathbf k .
# \end{aligned}
# $$ (eq-ch6-pos-rope-2d)
#
# Take the worked example of [Chapter 4](04_worked_example.ipynb): $\mathbf q = (1, 0)$ and the
# keys $(1, 0)$, $(0, 1)$, $(1, 1)$. Say the keys are the words at positions 0, 1, 2 and the
# query belongs to the word at position 1. With $d = 2$ there is one pair, and its $\theta$
# is $10000^{0} = 1$ radian.

# %%
q, keys, values = quanta_example()  # q = (1, 0); the three keys (1,0), (0,1), (1,1)
theta = ac.rotary_frequencies(2)[0]  # 1 radian per position
m = 1  # the query's position
key_positions = [0, 1, 2]  # n for each key
q_m = ac.rotary(q[None], [m])[0]  # R(mθ) q: [1, 2] -> [2]
K_n = ac.rotary(keys, key_positions)  # row j turned by n_j θ: [3, 2]
scores_rope = K_n @ q_m  # [3, 2] @ [2] -> [3]
weights_rope = ac.attention_weights(q_m, K_n)  # softmax(scores / √2)
scores_plain = keys @ q  # Chapter 4's scores, no positions
weights_plain = ac.attention_weights(q, keys)
cos_1, sin_1 = np.cos(theta), np.sin(theta)
step_table(
    {"key k": [vector(k) for k in keys]}
    | {"n": [plain(n) for n in key_positions]}
    | {"k turned by nθ": [vector(k) for k in K_n], "score": scores_rope}
    | {"weight": weights_rope},
    index=["k1", "k2", "k3"],
)

# %% [markdown]
# By hand: $\cos 1 =$ {eval}`dec(cos_1)` and $\sin 1 =$ {eval}`dec(sin_1)`. The query turns
# by one radian, to $(\cos 1, \sin 1)$ = {eval}`vector(q_m)`. Key 1 sits at position 0 and
# does not turn; key 2 turns by one radian, $(0, 1) \mapsto (-\sin 1, \cos 1)$ =
# {eval}`vector(K_n[1])`; key 3 by two radians, to {eval}`vector(K_n[2])`. The scores are
# {eval}`dec(scores_rope)` where Chapter 4's were {eval}`plain(scores_plain)`, and the weights
# {eval}`dec(weights_rope)` where they were {eval}`dec(weights_plain)`: position now counts.
#
# Why do the scores depend on the positions only through $n - m$? Rotations compose by adding
# angles, and the transpose of a rotation turns it back, $R(\alpha)^\top = R(-\alpha)$, so
#
# $$
# \begin{aligned}
# \mathbf q_m \cdot \mathbf k_n &= \big(R(m\theta)\mathbf q\big)^\top R(n\theta)\,\mathbf k \\
# &= \mathbf q^\top R(-m\theta)\,R(n\theta)\,\mathbf k \\
# &= \mathbf q^\top R\big((n - m)\theta\big)\,\mathbf k .
# \end{aligned}
# $$ (eq-ch6-pos-rope-relative)
#
# The positions enter only through the relative position (상대 위치) $n - m$; an exercise below
# writes the right-hand side out in coordinates. Key 2 and the query stand at the same place,
# $n - m = 0$, and $R(0)$ is the identity, so its score is the plain
# $\mathbf q \cdot \mathbf k_2 = 0$. Shift every
# word three places to the right and nothing changes:

# %%
shift = 3
q_later = ac.rotary(q[None], [m + shift])[0]
K_later = ac.rotary(keys, [n + shift for n in key_positions])
scores_later = K_later @ q_later  # [3]
np.testing.assert_allclose(scores_later, scores_rope, atol=1e-12)
scores_later.round(3)

# %% [markdown]
# The scores stay {eval}`dec(scores_later)`. Unlike the sinusoids added to the words, RoPE
# keeps the dependence on $n - m$ exact *through* the projections, because it is applied
# after them, to the query and the key themselves.
#
# ## Turn them yourself
#
# In the query pad of {eval}`figures.ref("fig-rope-pad")` each arrow is drawn turned by its position (the dashed arrow is the
# vector before its turn), and the table lists $n - m$ beside each weight. Move one position
# with its slider and that key swings round, and its weight changes. Press "every word one
# place on" (or back): every arrow turns by one more radian, and not one weight moves. Drag
# a vector, or Tab to it and use the arrow keys, to change it and keep its position. In the
# pad's table, cos ∠(q, k) is the cosine of the angle between the turned query and key, and
# the score is $\mathbf q_m \cdot \mathbf k_n / \sqrt 2$, scaled as in
# [Chapter 3](03_scaling.ipynb): the scores worked out by hand above are its q·k column.

# %%
pad = QueryPad(query_position=m, key_positions=key_positions)
figures.show(
    pad,
    "fig-rope-pad",
    "The worked example with RoPE, live: $\\mathbf q$ at position $m$, "
    "the keys at $n_1, n_2, n_3$, each turned by its position (one radian "
    "a step); the weights depend only on $n - m$.",
)

# %% [markdown]
# ## RoPE in $d$ dimensions: pairs that turn at different speeds
#
# A query of width $d$ is cut into $d/2$ pairs of coordinates; pair $i$ turns by $m\theta_i$
# with its own frequency, from one radian per position down to almost nothing:
#
# $$
# \begin{aligned}
# \theta_i &= 10000^{-2i/d}, \\
# \begin{pmatrix} q'_{2i} \\ q'_{2i+1} \end{pmatrix} &= R(m\theta_i)
# \begin{pmatrix} q_{2i} \\ q_{2i+1} \end{pmatrix}, \quad i = 0, \dots, d/2 - 1 .
# \end{aligned}
# $$ (eq-ch6-pos-rope)
#
# The fast pairs tell neighbours apart; the slow ones still change, a little, over
# thousands of words. The score is a sum over the pairs, each depending on $n - m$ alone, so
# the whole score does too. In a multi-head layer ([Chapter 7](07_heads_and_masks.ipynb)) each
# head's query and key are rotated separately, with $d = d_\text{head}$ in
# {eq}`eq-ch6-pos-rope`. At $d = 8$:

# %%
d = 8
thetas = ac.rotary_frequencies(d)  # [4]: 1, 0.1, 0.01, 0.001
# a query and a key, width 8, rounded to the three decimals printed below
q_8, k_8 = rng.normal(size=(2, 1, d)).round(3)
score_near = ac.rotary(q_8, [5])[0] @ ac.rotary(k_8, [3])[0]  # m=5, n=3
score_far = ac.rotary(q_8, [1005])[0] @ ac.rotary(k_8, [1003])[0]
np.testing.assert_allclose(score_far, score_near, atol=1e-12)
print("q:", q_8, "\nk:", k_8)  # to redo the score by hand
thetas

# %% [markdown]
# The frequencies are {eval}`plain(thetas)`, and the query at 5 and the key at 3 score
# {eval}`dec(score_near)`, exactly as at 1005 and 1003. What does each pair add? Split the
# score of the same query and key into its four pair terms, at offsets from 0 to 1,000:

# %%
offsets_pairs = [0, 1, 10, 100, 1000]  # n - m


def pair_terms(offset):
    """q_8 at position 0, k_8 at position offset: one score term per pair, [d/2]."""
    turned = q_8[0] * ac.rotary(k_8, [offset])[0]  # [d], coordinate by coordinate
    return turned.reshape(d // 2, 2).sum(axis=-1)  # pairs (0, 1), (2, 3), …


terms = np.array([pair_terms(o) for o in offsets_pairs])  # [5, 4]
step_table(
    {f"n − m = {o}": terms[j] for j, o in enumerate(offsets_pairs)},
    index=[f"pair {i}, θ = {plain(t)}" for i, t in enumerate(thetas)],
)

# %% [markdown]
# The slowest pair, pair 3, measures long distances: its term is {eval}`dec(terms[0, 3])` at
# offset 0, still {eval}`dec(terms[3, 3])` at 100, and {eval}`dec(terms[4, 3])` only at 1,000.
# The fastest pair turns a radian per word, so its term moves already between neighbours
# ({eval}`dec(terms[0, 0])`, then {eval}`dec(terms[1, 0])`) and swings back and forth after
# that ({eval}`dec(terms[:, 0])`): alone it tells near offsets apart but comes round again and
# again, so it cannot say how far a word is. The pairs in between cover the scales in between.
#
# ## Dog bites man, man bites dog, again
#
# Chapter 5 fed "dog bites man" and "man bites dog" to a seeded `SimpleSelfAttention` and
# "dog" came out the same. Run the same layer on the same word vectors, now with the
# sinusoidal encodings of their positions added:

# %%
words = ["dog", "bites", "man"]
dog_bites_man = toy_embeddings(words, d_model)  # [3, 4], seeded
man_bites_dog = dog_bites_man[[2, 1, 0]]  # the same words, reversed
layer = ac.SimpleSelfAttention(d_model, np.random.default_rng(0))
dog_first_plain = layer(dog_bites_man[None])[0][0, 0]  # first word
dog_last_plain = layer(man_bites_dog[None])[0][0, 2]  # last word
dog_first = layer((dog_bites_man + PE)[None])[0][0, 0]  # + positions
dog_last = layer((man_bites_dog + PE)[None])[0][0, 2]
np.testing.assert_allclose(dog_first_plain, dog_last_plain)  # Chapter 5
gap_positions = np.abs(dog_first - dog_last).max()
step_table(
    {"dog bites man": [vector(dog_first_plain), vector(dog_first)]}
    | {"man bites dog": [vector(dog_last_plain), vector(dog_last)]},
    index=["no positions", "with positions"],
)

# %% [markdown]
# Without positions "dog" gets {eval}`vector(dog_first_plain)` in both sentences, as in
# Chapter 5. With positions the biter and the bitten
# differ: {eval}`vector(dog_first)` against {eval}`vector(dog_last)`, a largest difference of
# {eval}`dec(gap_positions)`. The same holds with RoPE, which leaves the word vectors alone
# and turns the layer's queries and keys:

# %%
positions = np.arange(len(words))  # 0, 1, 2: wherever the words are


def rope_layer(x):
    """Chapter 5's layer with RoPE on its queries and keys: x [1, n, d] -> [1, n, d]."""
    q_x, k_x, v_x = layer.project(x)  # [1, n, d] each
    return ac.scaled_dot_product_attention(
        ac.rotary(q_x, positions), ac.rotary(k_x, positions), v_x
    )


dog_first_rope = rope_layer(dog_bites_man[None])[0, 0]  # "dog", first word
dog_last_rope = rope_layer(man_bites_dog[None])[0, 2]  # "dog", last word
gap_rope = np.abs(dog_first_rope - dog_last_rope).max()
gap_rope

# %% [markdown]
# "dog" gets {eval}`vector(dog_first_rope)` as the biter and {eval}`vector(dog_last_rope)` as
# the bitten, a largest difference of {eval}`dec(gap_rope)`.

# %% [markdown]
# ## Going further: sinusoids at a realistic width, and through the projections
#
# At $d = 4$ the fast pair dominated. At realistic widths the many slow pairs outvote the fast
# ones, and the dot product of two encodings falls with the distance, with ripples:

# %%
d_wide = 512  # the original Transformer's width
PE_wide = ac.sinusoidal_positions(200, d_wide)  # [200, 512]
offsets_wide = [0, 1, 5, 10, 50, 100, 199]
similarity_wide = PE_wide[offsets_wide] @ PE_wide[0]  # PE_k · PE_0: [7]
all_offsets = PE_wide @ PE_wide[0]  # PE_k · PE_0 for k = 0 … 199
rises = (np.diff(all_offsets) > 0).sum()  # steps where it goes up again
step_table({"PEₖ · PE₀": similarity_wide}, index=[f"k = {k}" for k in offsets_wide], digits=0)

# %% [markdown]
# At $d =$ {eval}`d_wide`, for the offsets {eval}`plain(offsets_wide)`, the dot product is
# {eval}`dec(similarity_wide, 0)`: it falls with the distance, though not at every step (it
# rises again at {eval}`plain(rises)` of the {eval}`offsets_wide[-1]` steps, the ripples of the fast
# pairs). The encodings hold relative positions, but only between
# themselves: once added to the words, the score $(\mathbf x_p + PE_p) W_Q \cdot
# (\mathbf x_q + PE_q) W_K$ splits into four terms (word–word, word–position,
# position–word, position–position), and even the last, $PE_p W_Q W_K^\top PE_q^\top$,
# depends on $p$ and $q$ separately for almost every $W_Q W_K^\top$ (the aside below says
# which ones escape): the clean dependence on $p - q$ is lost. RoPE keeps it.
#
# ```{admonition} Aside: when the position–position term depends on the offset alone
# :class: dropdown
#
# $PE_p W_Q W_K^\top PE_q^\top$ depends on $p - q$ alone exactly when $W_Q W_K^\top$ is
# block-diagonal over the frequency pairs with every $2 \times 2$ block a scaled rotation,
# $\begin{pmatrix} a & -b \\ b & a \end{pmatrix}$: such a block gives pair $i$ the term
# $a\cos((p - q)\omega_i) - b\sin((p - q)\omega_i)$. Any other entry leaves a term in
# $(p + q)\omega_i$, or in $p\omega_i \pm q\omega_j$ for two different pairs, and such a term
# changes when $p$ and $q$ move together. "Exactly" holds for the sinusoids' frequencies
# because they are distinct and none is more than 1 radian per position. On integer positions,
# frequencies that sum or differ by a multiple of $2\pi$ cannot be told apart (aliasing), and
# then other matrices would keep the dependence on $p - q$ too.
# ```
#
# ## Going further: does RoPE's score fade with distance?
#
# Su et al. also claim a *long-term decay*, a dependence between tokens that fades as their
# distance grows ([Su et al., 2021](references.md), §3.4.3). What they prove is a bound. Write
# pair $i$'s product as $h_i = (q_{2i} + \mathrm i\, q_{2i+1})(k_{2i} - \mathrm i\, k_{2i+1})$
# and $S_j = \sum_{i<j} e^{\mathrm i (m-n)\theta_i}$; then the score is at most
# $\max_i |h_{i+1} - h_i| \cdot \sum_{j=1}^{d/2} |S_j|$ (with $h_{d/2} = 0$), and only the
# second factor, which does not depend on $\mathbf q$ and $\mathbf k$, is shown to fall with
# the distance. At $d = 128$, that factor divided by $d/2$, beside the scores of
# random queries and keys:

# %%
d_long = 128
offsets_long = np.array([0, 10, 100, 1000])  # n - m
turns = np.exp(1j * offsets_long[:, None] * ac.rotary_frequencies(d_long))  # [4, 64]
bound_factor = np.abs(np.cumsum(turns, axis=1)).mean(axis=1)  # Σ_j |S_j| / (d/2): [4]
n_pairs = 4000
q_many, k_many = np.random.default_rng(6).normal(size=(2, n_pairs, d_long))  # its own stream


def rope_scores(q, k, offset):
    """q at position 0, k at position offset: one score per row."""
    return (q * ac.rotary(k, np.full(len(k), offset))).sum(axis=-1)


independent = np.array([np.abs(rope_scores(q_many, k_many, o)).mean() for o in offsets_long])
k_is_q = np.array([rope_scores(q_many, q_many, o).mean() for o in offsets_long])
step_table(
    {
        "Σⱼ|Sⱼ| / (d/2)": bound_factor,
        "mean |score|, independent q, k": independent,
        "mean score, k = q": k_is_q,
    },
    index=[f"n − m = {o}" for o in offsets_long],
    digits=1,
)

# %% [markdown]
# The factor falls, from {eval}`dec(bound_factor[0], 1)` to {eval}`dec(bound_factor[-1], 1)` at a
# distance of {eval}`plain(offsets_long[-1])`, but the score of a query and a key need not: over
# {eval}`n_pairs` pairs of independent random vectors the mean absolute score stays near
# {eval}`dec(independent[0], 0)` at each of these distances ({eval}`dec(independent, 1)`). The
# scores fall on average only when the key resembles the query: with $\mathbf k = \mathbf q$ the score is
# $\sum_i |h_i| \cos((m-n)\theta_i)$, the falling, rippling sum of cosines of the sinusoidal
# encodings above, and its mean at the distances {eval}`plain(offsets_long)` is
# {eval}`dec(k_is_q, 1)`.
#
# ## Going further: two layouts, and a porting bug
#
# Which coordinates form a pair is a convention, and there are two. The RoFormer paper pairs
# neighbours, (0, 1), (2, 3), …, the *interleaved* layout that `ac.rotary` uses; the Llama code of Hugging Face's transformers
# pairs coordinate $i$ with $i + d/2$, the *halves* layout (its `rotate_half`;
# [Hugging Face, n.d.](references.md)). The two are
# the same rotation with the coordinates listed in another order:

# %%
ac.interleaved_to_halves(np.arange(8))  # interleaved, listed as halves

# %% [markdown]
# `ac.rotary` takes the layout as an argument, `layout="interleaved"` (the default) or
# `layout="halves"`; `ac.interleaved_to_halves` and `ac.halves_to_interleaved` reorder the
# last axis from one listing to the other. Turning in one layout is turning in the other,
# listed differently:

# %%
x_list = np.arange(8.0)[None]  # one vector of width 8, interleaved listing
turned_halves = ac.rotary(ac.interleaved_to_halves(x_list), [5], layout="halves")
same_rotation = np.allclose(ac.halves_to_interleaved(turned_halves), ac.rotary(x_list, [5]))
print("halves, listed back as interleaved, equals interleaved:", same_rotation)

# %% [markdown]
# Weights trained in one layout give wrong scores when rotated in the other: a model ported
# between libraries without permuting the columns of $W_Q$ and $W_K$ runs without an error,
# but its scores are wrong at every offset except 0, and its outputs degrade. This is a real step of real ports: Meta's Llama code pairs neighbours,
# Hugging Face's pairs halves, and its conversion script, `convert_llama_weights_to_hf.py`
# ([Hugging Face, n.d.](references.md)),
# permutes the output coordinates of $W_Q$ and $W_K$ (the rows of PyTorch's (out, in)
# weights, the columns of this book's) head by head, from the one listing to the other. One
# exercise below is that bug.
#
# Sinusoidal encodings have layouts too: some code (tensor2tensor's, for one) lists all the sines first, then all the cosines, a
# *concatenated* layout, and spaces its frequencies as $10000^{-i/(d/2-1)}$ rather than
# $10000^{-2i/d}$, slightly different frequencies. This book interleaves, as
# {eq}`eq-ch6-pos-sinusoidal` does.
#
# ## Going further: learned relative biases, a number per distance (상대 위치 편향)
#
# Between adding to the words and adding to the scores sits a family that learns a
# parameter per *relative* position. Shaw et al. add to each key a learned vector
# $\mathbf a_{j-i}$ for the clipped offset $j - i$ (offsets beyond $+k$ share the vector of
# $+k$, those beyond $-k$ the vector of $-k$), so the score of query $i$ and key $j$ becomes
# $\mathbf q_i \cdot (\mathbf k_j + \mathbf a_{j-i})/\sqrt{d_k}$, and add a second set of
# learned vectors to the values in the same way, so that the output is
# $\sum_j a_{ij}(\mathbf v_j + \mathbf a^V_{j-i})$ ([Shaw et al., 2018](references.md)). T5
# keeps only a scalar: each head learns one number per *bucket* of distance, exact buckets for
# the nearest offsets and logarithmically wider ones further away, and adds it to the score,
# $s_{ij} + b_h(\text{bucket}(j - i))$ ([Raffel et al., 2020](references.md)). There are 32
# buckets, whose logarithmic widths are set by a `max_distance` of 128. The decoder, causal, uses
# all 32 for keys behind the query; the encoder, which attends both ways, splits them 16 per
# direction (8 exact offsets and 8 logarithmic buckets on each side). With T5's rounding down,
# the last bucket of a direction already starts at a distance of 91 in the encoder and of 113
# in the decoder, and every distance from there on, 128 and beyond included, shares it. Each stack learns one
# such table and shares it among all its layers. ALiBi, next, keeps T5's "add a number to the score"
# and replaces the learned table by a fixed line.
#
# ## Going further: ALiBi, a penalty on distance added to the scores (선형 편향)
#
# ALiBi, attention with linear biases ([Press et al., 2022](references.md)), changes neither
# the words nor the queries. It adds to the score of query $i$ and key $j \le i$ a penalty
# proportional to their distance, with a fixed slope $\lambda_h$ per head:
#
# $$
# s_{ij} = \frac{\mathbf q_i \cdot \mathbf k_j}{\sqrt{d_k}} - \lambda_h\,(i - j), \qquad
# \lambda_h = 2^{-8h/H}, \quad h = 1, \dots, H ,
# $$ (eq-ch6-pos-alibi)
#
# for $H$ a power of two. For other $H$ the paper's code takes the $P$ slopes of the largest
# power of two $P < H$, then every other slope of $2P$ heads for the remaining $H - P$, as
# `ac.alibi_slopes` does.
#
# That is an additive float mask, the kind [Chapter 7](07_heads_and_masks.ipynb) builds:
# a matrix added to the scores before the softmax, where the causal mask adds $-\infty$ to
# hide a key and ALiBi adds a finite amount to dim it. With $H = 8$ heads the slopes are:

# %%
slopes = ac.alibi_slopes(8)  # [8]: 1/2, 1/4, ..., 1/256
slopes

# %% [markdown]
# Now a short row by hand: the last word of a five-word sentence, whose content scores are all
# equal (say 0), so that only the bias decides. Without a bias the weights are uniform. With
# head 1's slope $\lambda_1 =$ {eval}`plain(slopes[0])`, the bias of each key is $-\lambda_1$
# times its distance from the newest word:

# %%
bias = ac.alibi_bias(8, 1, 5)  # [H, L, S]: one query, the newest word
bias_steep = bias[0, 0]  # head 1: slope 1/2
bias_gentle = bias[7, 0]  # head 8: slope 1/256
scores_flat = np.zeros(5)  # equal content scores
weights_flat = ac.softmax(scores_flat)
exps_steep = np.exp(scores_flat + bias_steep)  # by hand: e^s
total_steep = exps_steep.sum()
weights_steep = ac.softmax(scores_flat + bias_steep)  # exps / total
weights_gentle = ac.softmax(scores_flat + bias_gentle)
far_over_near = weights_steep[0] / weights_steep[-1]  # e^(-λ · 4): equal content scores
far_20_over_near = np.exp(-20 * slopes[0])  # head 1, a word 20 places back
step_table(
    {"bias, head 1": bias_steep, "weight, head 1": weights_steep}
    | {"weight, head 8": weights_gentle, "no bias": weights_flat},
    index=[f"distance {k}" for k in (4, 3, 2, 1, 0)],
)

# %% [markdown]
# By hand: the biases are {eval}`plain(bias_steep)`; their exponentials are
# {eval}`dec(exps_steep)`, which sum to {eval}`dec(total_steep)`, and dividing by the sum gives
# {eval}`dec(weights_steep)`. The word four places back gets {eval}`dec(far_over_near)` of what
# the newest word gets, $e^{-4 \lambda_1}$. Whatever the content scores, the bias multiplies
# the ratio of those two weights by $e^{-4 \lambda_1}$, and the ratio of any two weights by
# $e^{-\lambda_1}$ per word of distance between them; the ratio *is* $e^{-4 \lambda_1}$ here
# only because the content scores are equal. Head 8, with the smallest slope,
# {eval}`plain(slopes[7])`, barely discounts: {eval}`dec(weights_gentle)`, close to the uniform
# {eval}`dec(weights_flat)`. So the heads span short and long ranges, and none of them needs a
# table or a rotation; the paper's title says what that buys, "train short, test long". A
# word of caution about that claim: ALiBi's perplexity stays flat on texts longer than the
# training ones, but a flat perplexity does not show that distant words are *used*. Head 1
# gives a word 20 places back $e^{-20\lambda_1}$ = {eval}`sci(far_20_over_near)` of the
# newest word's weight, for equal content scores: the steep heads work as a sliding window, and a model can keep its
# perplexity while it ignores most of a long text. In a decoder the bias and the causal mask
# are one additive matrix:

# %%
slope_one_head = ac.alibi_slopes(1)[0]  # a model with one head: 2^-8
causal = ac.causal_mask(4, 4)  # [4, 4], True = may attend
causal_bias = np.where(causal, ac.alibi_bias(1, 4, 4)[0], -np.inf)
causal_bias

# %% [markdown]
# On and below the diagonal, the distance penalty of a single head, slope
# {eval}`plain(slope_one_head)`; above it, the $-\infty$ of the causal mask. In PyTorch this
# matrix (one per head, shape $(H, L, S)$) is passed as a float `attn_mask` to
# `torch.nn.functional.scaled_dot_product_attention`, which adds it to the scores after the
# $1/\sqrt{d_k}$ scaling, exactly as {eq}`eq-ch6-pos-alibi` does.

# %% [markdown]
# ## Going further: what models use
#
# Stated, not built here:
#
# - **Learned absolute** positions: GPT-2, a table of 1,024 rows
#   ([Radford et al., 2019](references.md)); the original Transformer used the sinusoids
#   and found learned positions about as good ([Vaswani et al., 2017](references.md)).
# - **RoPE**: the Llama, Qwen and Gemma families, and many other open models
#   ([Su et al., 2021](references.md)), each with its own base (below).
# - **Relative biases**: T5, a learned scalar per bucket of distance
#   ([Raffel et al., 2020](references.md)).
# - **ALiBi**: BLOOM and MPT ([Press et al., 2022](references.md)).
# - **No positions at all** (NoPE, 위치 인코딩 없음): a decoder's causal mask already tells the
#   words apart, since word $i$ sees exactly $i + 1$ words. Causal language models without
#   any position encoding were found competitive with those that have one, and to learn an
#   implicit notion of position from the mask ([Haviv et al., 2022](references.md)); in
#   small-scale experiments on synthetic, reasoning and arithmetic tasks they generalised to
#   longer inputs better on average than absolute, RoPE and ALiBi encodings and T5's relative
#   bias, the closest of them
#   ([Kazemnejad et al., 2023](references.md)). NoPE now ships at scale, as layers
#   interleaved with RoPE layers: Llama 4 leaves some of its attention layers without positions
#   ([Meta AI, 2025](references.md)), SmolLM3 every fourth layer
#   ([Hugging Face, 2025](references.md)).
#
# ## Going further: RoPE's base, and reading past the training length
#
# The 10,000 of {eq}`eq-ch6-pos-rope` is a parameter, the *base* (`rope_theta` in a model's
# configuration; since version 5 of Hugging Face's `transformers`, a key of its
# `rope_parameters`), and `ac.rotary` takes it as `base`. A larger base slows every pair but the
# first, so that the slowest pairs still have angles to spare at long distances. Current models
# choose bases of 10,000 and more, for example 150,000 in gpt-oss (the `rope_theta` of its configuration in
# Hugging Face's `transformers`); 500,000 in Llama 3 ([Grattafiori et al., 2024](references.md));
# 1,000,000 in Gemma 3's global layers, whose local (sliding-window) layers keep 10,000
# ([Gemma Team, 2025](references.md)), and in Qwen3, which pre-trains with 10,000 and raises it
# to 1,000,000 for its final, long-context pre-training stage ([Qwen Team, 2025a](references.md)).
#
# Past its training length, RoPE's slow pairs reach angles $m\theta_i$ the model never saw,
# and quality falls off quickly. This section covers four rules that stretch a trained model's
# context, each mainly a change of
# the angles (YaRN also rescales the softmax temperature): position interpolation, NTK-aware
# scaling, YaRN and Llama 3.1's rule. The rest of this section is for readers who run a model
# on longer inputs than it was trained on; a first reading can skip to the Summary. Take a toy
# head of width 8 trained on 16 positions and run on 64, four times as long:

# %%
d_rope, L_train, L_new = 8, 16, 64  # trained on 16 positions, run on 64
stretch = L_new / L_train  # 4
thetas_10k = ac.rotary_frequencies(d_rope)  # [4]: the frequencies for base 10,000
# the largest angle each pair saw in training, and at position 63 as it is
last_new = L_new - 1  # the last position of the longer input: 63
angle_trained = (L_train - 1) * thetas_10k  # [4]
angle_plain = last_new * thetas_10k
# position interpolation: position m becomes m / 4, a fraction
positions_pi = np.arange(L_new) / stretch  # 0, 0.25, …, 15.75
angle_pi = positions_pi[-1] * thetas_10k
last_trained = L_train - 1  # the last position seen in training: 15
overshoot_pi = angle_pi[3] / angle_trained[3]  # 15.75 / 15: past the last trained angle
# NTK-aware scaling: a larger base, the same whole positions
base_ntk = 10_000 * stretch ** (d_rope / (d_rope - 2))
thetas_ntk = ac.rotary_frequencies(d_rope, base=base_ntk)
angle_ntk = (L_new - 1) * thetas_ntk
step_table(
    {"trained, up to 15": angle_trained, "position 63": angle_plain}
    | {"interpolated": angle_pi, "NTK-aware base": angle_ntk},
    index=[f"pair {i}" for i in range(d_rope // 2)],
)

# %% [markdown]
# The table gives each pair's angle in radians. Pair 0 turned through
# {eval}`dec(angle_trained[0], 1)` radians in training, more than a full turn, so every angle
# it meets later is one it has seen. Pair 3 only reached {eval}`dec(angle_trained[3])`; at
# position 63 it is at {eval}`dec(angle_plain[3])`, out of its range. *Position interpolation*
# (위치 보간) squeezes the new positions into the trained range, position $m$ becomes
# $m\,L_\text{train}/L_\text{new}$, a fraction, and fine-tunes briefly
# ([Chen et al., 2023](references.md)): every pair is back in range, or almost. The squeezed
# positions end at {eval}`plain(positions_pi[-1])`, inside the trained length of
# {eval}`L_train` positions but past the last trained position, {eval}`last_trained`; so pair 3
# reaches {eval}`dec(angle_pi[3])` next to the {eval}`dec(angle_trained[3])` of training,
# {eval}`dec(overshoot_pi, 2)` times as far, an overshoot that shrinks as the trained length
# grows. Neighbours on pair 0 are now only
# {eval}`dec(positions_pi[1])` radian apart instead of 1, a resolution the model never
# learned. `ac.rotary` takes such positions as they are:

# %%
x_pi = rng.normal(size=(L_new, d_rope))  # a query per position
turned_pi = ac.rotary(x_pi, positions_pi)  # fractional positions
# the relative property holds for fractions too: m = 2.25 and n = 0.5
score_pi = turned_pi[9] @ turned_pi[2]
score_shifted = ac.rotary(x_pi[[9]], [12.25])[0] @ ac.rotary(x_pi[[2]], [10.5])[0]
np.testing.assert_allclose(score_pi, score_shifted)

# %% [markdown]
# *NTK-aware scaling* (NTK 인식 스케일링), proposed in a 2023 community post
# ([bloc97, 2023](references.md)) rather
# than a paper and described in the YaRN paper ([Peng et al., 2023](references.md)), keeps the
# whole positions and raises the base instead (the post's selling point: it extends a model
# without fine-tuning, where interpolation needs some), here to
# $10000 \cdot 4^{d/(d-2)}$ = {eval}`dec(base_ntk, 0)`: pair 0 keeps its frequency, 1 radian
# a word, and with it its resolution, while the slowest pair is slowed exactly 4 times, to
# {eval}`dec(angle_ntk[3])` at position 63, as interpolation would. The pairs in between are
# slowed less: pair 1 still reaches {eval}`dec(angle_ntk[1])`, past its trained
# {eval}`dec(angle_trained[1])`, the gap that YaRN closes. *YaRN* interpolates by frequency:
# it leaves the pairs whose wavelength $2\pi/\theta_i$ is much shorter than the training
# length alone, fully interpolates those whose wavelength is longer, ramps between
# the two, and scales the softmax temperature ([Peng et al., 2023](references.md)). Llama
# 3.1's released code ([Meta AI, 2024](references.md)) applies a rule of the same kind to its
# base of 500,000 (the aside at the end of this section gives its numbers).
#
# Angles out of their range are a prediction; here is a measurement. A head of width 8 learns
# one positional job: every token has the same query and the same key, so that only RoPE
# tells the tokens apart, and each token should put its weight on the one before it. It is
# trained on 16 positions, by the gradient descent of [Chapter 8](08_learning.ipynb)
# (`experiments.train_rope_offset_head`), then read on 64: as it is, with interpolated
# positions, with interpolated positions after some fine-tuning on 64 tokens, and with the
# NTK-aware base. This head is the worst case for interpolation: it tells the word before
# from the others by its fast pairs (the fastest turns one radian a word), whose angles
# interpolation changes.

# %%
rng_head = np.random.default_rng(0)
head = experiments.train_rope_offset_head(d_rope, np.arange(L_train), 2000, 0.1, rng_head)
finetune_steps = 1000  # at the interpolated positions, on all 64 tokens
head_pi = experiments.train_rope_offset_head(
    d_rope, positions_pi, finetune_steps, 0.1, None, start=(head.query, head.key)
)
readings = {  # (query, key), positions, base
    "as trained": (head, np.arange(L_new), 10_000),
    "interpolated": (head, positions_pi, 10_000),
    "interpolated, fine-tuned": (head_pi, positions_pi, 10_000),
    "NTK-aware base": (head, np.arange(L_new), base_ntk),
}
queries = np.arange(1, L_new)  # query m, whose right key is m - 1
seen = queries < L_train  # the queries at trained positions
# the mean weight a query puts on the token before it: at trained positions, beyond, all
prev_seen, prev_beyond, prev_all = {}, {}, {}
missed_beyond = {}  # the share of queries beyond position 15 whose top key is not m - 1
for label, (h, pos, base) in readings.items():
    w_read = experiments.rope_offset_weights(h.query, h.key, pos, base=base)  # [64, 64]
    on_previous = w_read[queries, queries - 1]  # [63]
    prev_seen[label], prev_beyond[label] = on_previous[seen].mean(), on_previous[~seen].mean()
    prev_all[label] = on_previous.mean()
    missed_beyond[label] = (w_read[queries].argmax(axis=-1) != queries - 1)[~seen].mean()
step_table(
    {
        "weight on m − 1, m = 1 to 15": [prev_seen[r] for r in readings],
        "weight on m − 1, m = 16 to 63": [prev_beyond[r] for r in readings],
        "top key not m − 1, m = 16 to 63": [missed_beyond[r] for r in readings],
    },
    index=list(readings),
    digits=2,
)

# %% [markdown]
# At the positions it was trained on, the head puts {eval}`dec(prev_seen["as trained"], 2)` of
# its weight on the token before, on average. Past them, as it is, only
# {eval}`dec(prev_beyond["as trained"], 2)`: the scores of offsets it never saw, 16 and more,
# compete with the score of offset 1, and in {eval}`percent(missed_beyond["as trained"], 0)` of
# those rows one of them wins. Interpolation moves the trained positions too: position 1
# becomes {eval}`plain(positions_pi[1])`, so on pair 0 the token before now sits
# {eval}`plain(positions_pi[1])` radian away instead of 1 radian, a difference the head never
# learned to see. Without fine-tuning, this head is therefore worse everywhere, even at positions 1 to
# 15: {eval}`dec(prev_seen["interpolated"], 2)` there, {eval}`dec(prev_all["interpolated"], 2)`
# on average.
# {eval}`finetune_steps` steps of fine-tuning bring it back to
# {eval}`dec(prev_all["interpolated, fine-tuned"], 2)`, its top key wrong in
# {eval}`percent(missed_beyond["interpolated, fine-tuned"], 0)` of the rows past 15, but slowly,
# because the head must learn that finer resolution. The NTK-aware base, with no fine-tuning, keeps
# {eval}`dec(prev_beyond["NTK-aware base"], 2)` past the trained positions. This
# head is the case that favours it: finding the previous token takes the fast pairs, which
# NTK-aware scaling slows least (the fastest not at all); a head that reads long distances from the slow
# pairs would meet the in-between pairs' overshoot of the table above, which is what YaRN and
# Llama 3.1's rule treat.
#
# ```{admonition} Aside: Llama 3.1's rule, and the rules' names in a model's configuration
# :class: dropdown
#
# Llama 3.1's rule works on its base of 500,000: the pairs whose wavelength is below 2,048
# positions keep their frequency, those above 8,192 have it divided by 8 (their wavelength
# stretched 8 times), with a smooth ramp between ([Meta AI, 2024](references.md)).
#
# A model's configuration names the rule by its `rope_type`, in `rope_scaling` (configurations
# written for Hugging Face's `transformers` before version 5) or in `rope_parameters` (version
# 5 on, beside `rope_theta` and the rule's `factor`): `"linear"` is position interpolation,
# `"dynamic"` raises the base NTK-style as the input grows past the training length, `"yarn"`
# is YaRN, `"llama3"` Llama 3.1's rule, and `"longrope"` (Phi-3) a factor per pair found by
# search. Some models rotate only part of each head and leave the rest without positions:
# GPT-NeoX a quarter of it (`rotary_pct`, elsewhere `partial_rotary_factor`).
# ```
#
# ## Summary
#
# - Attention without positions is blind to word order: a shuffled sentence gives the same
#   outputs, shuffled.
# - Sinusoidal encodings {eq}`eq-ch6-pos-sinusoidal` add $\sin(p\omega_i), \cos(p\omega_i)$
#   to the word vectors; two encodings' dot product depends only on $p - q$
#   {eq}`eq-ch6-pos-sinusoidal-dot`; in four dimensions they collide with the word's own
#   features, which real models avoid with width.
# - A learned table of positions ends at its last row: no position past the longest
#   training sequence.
# - RoPE rotates queries and keys by $m\theta_i$ and $n\theta_i$ after the projections, so
#   that $\mathbf q_m \cdot \mathbf k_n$ depends on $n - m$ alone {eq}`eq-ch6-pos-rope-relative`;
#   pairs turn at frequencies $10000^{-2i/d}$ {eq}`eq-ch6-pos-rope`.
# - With positions added to the words, or with RoPE, "dog" comes out differently in "dog bites
#   man" and "man bites dog".
#
# *Going further:*
#
# - At realistic widths the encodings' dot product falls with the distance, with ripples;
#   added to the words and projected, the score splits into four terms and loses its
#   dependence on $p - q$ alone.
# - RoPE's two layouts (pairs of neighbours, or $i$ with $i + d/2$) are the same rotation
#   listed in another order; a port that ignores the difference gets wrong scores, silently.
# - Learned relative biases (Shaw et al., T5) add a learned number per distance to the scores.
# - ALiBi adds $-\lambda_h(i - j)$ to the scores {eq}`eq-ch6-pos-alibi`, an additive mask
#   that multiplies a far word's weight, relative to a near one's, by $e^{-\lambda_h}$ per
#   word of distance, with a geometric slope per head; a flat perplexity on long texts does
#   not show that distant words are used.
# - NoPE layers use no positions at all and read the order from the causal mask.
# - RoPE's base is a parameter (`rope_theta`: 10,000 in the paper; in current models 10,000
#   and more, e.g. gpt-oss 150,000, Llama 3 500,000, Qwen3's long-context stage
#   1,000,000). Position interpolation (fractional positions) and NTK-aware scaling (a
#   larger base) bring the slow pairs back into, or close to, their trained range past the
#   training length; YaRN and Llama 3.1's rule treat each pair by its wavelength.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict.
# The hints and solutions are folded away until you ask for them.
#
# ```{exercise} A sinusoidal encoding, by hand
# :label: ex-ch6-sin-by-hand
#
# Compute the position encoding of the word at position $p$, at width $d$ (both printed
# below), with {eq}`eq-ch6-pos-sinusoidal`: $d$ numbers, three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The two frequencies are the ones of the sentence above; every angle is $p\,\omega_i$, in
# radians.
# ```

# %%
p_ex, d_ex = ch6.sin_by_hand.inputs
print(f"p = {p_ex}, d = {d_ex}")
answer = ...  # [PE(p, 0), PE(p, 1), PE(p, 2), PE(p, 3)]
ch6.sin_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch6-sin-by-hand
# :class: dropdown
#
# Columns 0 and 1 are the sine and the cosine of $p\,\omega_0$ radians; columns 2 and 3
# those of $p\,\omega_1$, a hundred times smaller:
#
# ```python
# w0, w1 = ac.rotary_frequencies(d_ex)  # 10000^(-2i/d): 1 and 1/100
# answer = [np.sin(p_ex * w0), np.cos(p_ex * w0), np.sin(p_ex * w1), np.cos(p_ex * w1)]
# ch6.sin_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} A key turned by its position
# :label: ex-ch6-rope-rotate
#
# In the plane ($d = 2$, $\theta = 1$ radian), turn the key printed below by its position
# $n$ with {eq}`eq-ch6-pos-rope-2d`: two numbers, three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $R(\varphi)(x, y) = (x\cos\varphi - y\sin\varphi,\; x\sin\varphi + y\cos\varphi)$, with
# $\varphi = n\theta$ in radians.
# ```

# %%
k_ex, n_ex = ch6.rope_rotate.inputs
n_ex_degrees = np.degrees(n_ex * theta)  # the angle nθ in degrees
print(f"k = {tuple(k_ex.tolist())}, n = {n_ex}")
answer = ...  # [x, y] of the turned key
ch6.rope_rotate.check(answer)

# %% [markdown]
# ````{solution} ex-ch6-rope-rotate
# :class: dropdown
#
# The angle is $n\theta$ = {eval}`plain(n_ex)` radians, about {eval}`dec(n_ex_degrees, 0)`°,
# almost half a turn, so the key ends up pointing left and a little down:
#
# ```python
# c, s = np.cos(n_ex * theta), np.sin(n_ex * theta)
# answer = [k_ex[0] * c - k_ex[1] * s, k_ex[0] * s + k_ex[1] * c]
# ch6.rope_rotate.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Prove it: the score depends on $n - m$ alone
# :label: ex-ch6-rope-relative
#
# Finish the derivation of {eq}`eq-ch6-pos-rope-relative` for $d = 2$ and $\theta = 1$:
# write `relative_score(q, k, offset)`, the score $\mathbf q_m \cdot \mathbf k_n$ as a
# function of the query, the key and the offset $n - m$ only, with no $m$ or $n$ in it. The
# check compares it with `ac.rotary` at many pairs of positions; if some $m$ mattered, no
# such function could pass. `q` and `k` have shape `(..., 2)` (one pair, or a batch of them).
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Multiply out $\mathbf q^\top R(\varphi)\,\mathbf k$ with $\varphi = (n - m)\theta$: one term
# with $\cos\varphi$, one with $\sin\varphi$. Use `q[..., 0]` and `q[..., 1]` for the two
# coordinates.
# ```


# %%
def relative_score(q, k, offset):
    raise NotImplementedError  # q, k [..., 2], offset = n - m -> [...]


ch6.rope_relative.check(relative_score)

# %% [markdown]
# ````{solution} ex-ch6-rope-relative
# :class: dropdown
#
# $\mathbf q^\top R(\varphi)\mathbf k = q_1(k_1\cos\varphi - k_2\sin\varphi) +
# q_2(k_1\sin\varphi + k_2\cos\varphi)$: the dot product times $\cos\varphi$, plus
# $q_2k_1 - q_1k_2$ times $\sin\varphi$. Only $\varphi = (n - m)\theta$ appears, which
# proves the claim:
#
# ```python
# def relative_score(q, k, offset):
#     phi = offset * theta  # (n - m) θ
#     dot = q[..., 0] * k[..., 0] + q[..., 1] * k[..., 1]
#     cross = q[..., 1] * k[..., 0] - q[..., 0] * k[..., 1]
#     return dot * np.cos(phi) + cross * np.sin(phi)
#
#
# ch6.rope_relative.check(relative_score)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict, then run: one word before, one word after
# :label: ex-ch6-rope-before-after
#
# In the plane, with RoPE, a query and a key stand one word apart. Is the score the
# `"same"` whether the key is one word *after* the query ($n - m = 1$) or one word *before*
# it ($n - m = -1$), for every $\mathbf q$ and $\mathbf k$, or can it be `"different"`?
# Answer first; the solution runs it. Then a harder question for pencil and paper: for which
# $\mathbf q$ and $\mathbf k$ are the two scores the same?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The two scores are $\mathbf q^\top R(\theta)\,\mathbf k$ and $\mathbf q^\top R(-\theta)\,\mathbf k$,
# and $R(-\theta) = R(\theta)^\top$.
# ```

# %%
answer = ...  # "same" or "different"
ch6.rope_before_after.check(answer)

# %% [markdown]
# ````{solution} ex-ch6-rope-before-after
# :class: dropdown
#
# Written out, as the previous exercise's `relative_score` does,
# $\mathbf q^\top R(\varphi)\,\mathbf k = (\mathbf q \cdot \mathbf k)\cos\varphi +
# (q_2 k_1 - q_1 k_2)\sin\varphi$. The sine term changes sign with $n - m$, so RoPE tells "before" from "after"
# (the sinusoids' dot product {eq}`eq-ch6-pos-sinusoidal-dot`, a sum of cosines, does not).
# The two scores differ by $2(q_2 k_1 - q_1 k_2)\sin\theta$, so they are the same exactly
# when $q_1 k_2 = q_2 k_1$: when $\mathbf q$ and $\mathbf k$ are parallel (or one is zero),
# since then the turn either way changes the angle between them by the same amount. With
# the worked example's $\mathbf q$ and its second key, which are orthogonal:
#
# ```python
# after = ac.rotary(q[None], [0])[0] @ ac.rotary(keys[1:2], [1])[0]  # n - m = 1
# before = ac.rotary(q[None], [1])[0] @ ac.rotary(keys[1:2], [0])[0]  # n - m = -1
# print(after.round(3), before.round(3))
# ch6.rope_before_after.check("different")
# ```
# ````

# %% [markdown]
# ```{exercise} ALiBi on a short row
# :label: ex-ch6-alibi-weights
#
# The newest of four words has the scaled content scores printed below against the four
# keys (oldest first, itself last). With ALiBi in head 2 of a model with $H = 8$ heads,
# {eq}`eq-ch6-pos-alibi`, what are its four weights?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# First the slope $\lambda_2$, then the distance of each key from the newest word, then the
# softmax of the biased scores.
# ```

# %%
scores_ex, n_heads_ex, head_ex = ch6.alibi_weights.inputs
print(f"scores = {scores_ex.tolist()}, H = {n_heads_ex}, head {head_ex}")
answer = ...  # four weights
ch6.alibi_weights.check(answer)

# %% [markdown]
# ````{solution} ex-ch6-alibi-weights
# :class: dropdown
#
# Head $h$ of $H = 8$ has the slope $\lambda_h = 2^{-8h/H}$; the keys are $S - 1, \dots, 1, 0$
# words back from the newest word:
#
# ```python
# slope = ac.alibi_slopes(n_heads_ex)[head_ex - 1]  # head 2: index 1
# biased = scores_ex - slope * np.array([3, 2, 1, 0])  # a penalty per word of distance
# answer = np.exp(biased) / np.exp(biased).sum()
# ch6.alibi_weights.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: a ported model
# :label: ex-ch6-rope-bug-layout
#
# A model was trained with the RoPE code of Hugging Face's Llama, and its $W_Q$ and $W_K$
# were copied as they are into the function below. It runs, its scores have the right
# shape, and on the diagonal, each word with itself ($n - m = 0$), they are even right; every
# other score is off, and the model's outputs degrade, without an error.
# Copy it as `fixed_ported_scores`, fix it, and run the check.
# ```

# %%
ch6.rope_layout.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Which pairs of coordinates does `ac.rotary` turn by default, and which did the training code
# turn?
# ```


# %%
def fixed_ported_scores(x, w_q, w_k, positions):
    raise NotImplementedError  # copy the function above here and fix it


ch6.rope_layout.check(fixed_ported_scores)

# %% [markdown]
# ````{solution} ex-ch6-rope-bug-layout
# :class: dropdown
#
# `ac.rotary` pairs coordinates (0, 1), (2, 3), … (the interleaved layout), but the weights
# were trained pairing $i$ with $i + d/2$ (the halves layout). Rotate in the layout of the
# training, for the queries and the keys: two lines, the same change (or convert the weights'
# columns once with `ac.halves_to_interleaved` and keep the interleaved rotation):
#
# ```python
# def fixed_ported_scores(x, w_q, w_k, positions):
#     q = ac.rotary(x @ w_q, positions, layout="halves")  # [..., n, d]
#     k = ac.rotary(x @ w_k, positions, layout="halves")  # the fix: both
#     k_t = np.swapaxes(k, -1, -2)  # [..., d, n]
#     return q @ k_t / np.sqrt(q.shape[-1])  # [..., n, n]
#
#
# ch6.rope_layout.check(fixed_ported_scores)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the function: position interpolation
# :label: ex-ch6-rope-interpolation
#
# A configuration says `"rope_type": "linear"` with a `factor`: position interpolation, as in
# the section on RoPE's base and reading past the training length. Write
# `interpolated_rotary(x, positions, factor)` that turns the rows of `x` $(\dots, n, d)$ at
# `positions` (length $n$) the way that model does, with the default base. Use `ac.rotary`.
# The check runs it on the section's stretch, on every leading shape, on shifted, spaced,
# negative, decreasing and fractional positions, and on float32.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# With a factor of 4, where must position 63 land for a head trained on positions 0 to 15?
# ```


# %%
def interpolated_rotary(x, positions, factor):
    raise NotImplementedError  # [..., n, d], turned


ch6.rope_interpolation.check(interpolated_rotary)

# %% [markdown]
# ````{solution} ex-ch6-rope-interpolation
# :class: dropdown
#
# Position interpolation divides every position by the factor and keeps the base: with the
# section's factor of {eval}`plain(stretch)`, position {eval}`last_new` is turned as
# {eval}`plain(positions_pi[-1])`: inside the trained length of {eval}`L_train` positions, but just
# past the last trained position, {eval}`last_trained` (the small overshoot the section
# measured). Multiplying by the factor would
# push the positions further out; raising the base instead is another rule (NTK-aware
# scaling), which slows each pair by a different amount.
#
# ```python
# def interpolated_rotary(x, positions, factor):
#     squeezed = np.asarray(positions) / factor  # position m is turned as m / factor
#     return ac.rotary(x, squeezed)
#
#
# ch6.rope_interpolation.check(interpolated_rotary)
# ```
# ````
