# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Learning to attend (어텐션 학습)
#
# Every attention pattern in this book so far was set by hand. [Chapter 5](05_projections.ipynb)
# designed $W_Q$, $W_K$ and $W_V$ from case markers and said that training is what moves real
# matrices towards ones like ours. The Korean write-up of the Quanta Magazine column says that
# every word's query, key and value are made with learned weight matrices (학습된 가중치 행렬), and
# [Chapter 3](03_scaling.ipynb) took from the same write-up the claim that dividing by
# $\sqrt{d_k}$ keeps the gradient from vanishing. Both are claims about learning. This chapter shows them: it derives
# the backward pass (역전파) of attention by hand, then trains a layer in plain NumPy and
# watches its weights find the pattern.
#
# **The core of this chapter** is the backward pass of attention by hand, checked by finite
# differences, then used to train a layer in NumPy that learns a known pattern, and what the
# $1/\sqrt{d_k}$ does to that learning. It runs from
# [What the backward pass is for](08_learning.ipynb#what-the-backward-pass-is-for) through
# [One step of gradient descent](08_learning.ipynb#one-step-of-gradient-descent-written-out) to
# [√d_k, by training](08_learning.ipynb#d-k-by-training). The sections marked *Going further*
# sweep Adam's learning rate, repeat the comparison from five starts, and ask whether one
# learning rate suits every $d_k$ (μP); a first reading can skip them, and no core section
# needs them.
#
# After the core of this chapter you will be able to:
#
# - derive, for one query of the worked example, the gradient (기울기) of a loss with respect
#   to the query, every key and every value, and check each number against finite
#   differences;
# - write the backward pass of a whole attention layer as five matrix lines, and say where
#   the softmax Jacobian of [Chapter 2](02_softmax.ipynb) sits in them;
# - train $W_Q$, $W_K$, $W_V$ from random numbers by gradient descent (경사 하강법) and read
#   what they learned against a hand-made design;
# - measure, not assert, what the $1/\sqrt{d_k}$ does to training, and show that removing it
#   is the same model with a larger start and a larger step on $W_Q$ and $W_K$.
#
# After the *Going further* sections you will also be able to say what Adam's learning rate
# can and cannot change for the unscaled layer, how much one random start decides, and why
# the best learning rate moves with $d_k$ under $1/\sqrt{d_k}$ and stays under μP's scale.
#
# New terms: loss, backward pass, chain rule, gradient descent, learning rate, Adam (each with
# its Korean name where it is introduced).

# %%
import math

import attn_core as ac
import numpy as np
from attn_book import experiments, plots
from attn_book.data import designed_projections, quanta_example, who_did_what
from attn_book.exercises import ch08_learning as ch8
from attn_book.figures import Figures
from attn_book.prose import dec, plain, sci, vector
from attn_book.tables import step_table
from attn_book.widgets import AttentionHeatmap
from attn_core import training as tr

figures = Figures(chapter=8)

# %% [markdown]
# ## What the backward pass is for
#
# A model learns by changing its numbers to make a *loss* (손실) smaller: one number that says
# how wrong its output is. The gradient of the loss with respect to a parameter says which way,
# and how steeply, the loss changes when that parameter moves. The *chain rule* (연쇄 법칙)
# carries the gradient backwards through the computation, one step at a time: if
# $L$ depends on $\mathbf o$ and $\mathbf o$ on $\mathbf q$, then
# $\partial L / \partial q_m = \sum_c (\partial L / \partial o_c)(\partial o_c / \partial q_m)$.
#
# We start where the loss has already done its part: it hands us $\mathbf g = \partial L/\partial
# \mathbf o$, one number per coordinate of the output. Our job is to turn it into the gradients
# with respect to $\mathbf q$, each $\mathbf k_j$ and each $\mathbf v_j$.
#
# ## The worked example, backwards
#
# The example of [Chapter 4](04_worked_example.ipynb), forwards first:

# %%
example = quanta_example()
q = example.query  # [E]
K = example.keys  # [S, E]: one key per row
V = example.values  # [S, Ev]: one value per row
d_k = q.shape[-1]
scores = K @ q / math.sqrt(d_k)  # [S, E] @ [E] -> [S]
weights = ac.softmax(scores)  # [S]
output = weights @ V  # [S] @ [S, Ev] -> [Ev]
print("weights", weights.round(3), " output", output.round(3))

# %% [markdown]
# The weights are {eval}`dec(weights)` and the output {eval}`vector(output)`, as in Chapter 4.
# Now take the loss $L = o_1 - o_2$: it grows with the output's first coordinate and shrinks
# with its second, so it wants $o_1$ down and $o_2$ up.

# %%
g = np.array([1.0, -1.0])  # dL/do, given by the loss: [Ev]

# %% [markdown]
# With $\mathbf g =$ {eval}`vector(g)`, walk the forward pass backwards, one equation per
# step:
#
# $$
# \mathbf o = \sum_j w_j \mathbf v_j, \qquad w_j = \frac{e^{s_j}}{\sum_l e^{s_l}}, \qquad
# s_j = \frac{\mathbf q \cdot \mathbf k_j}{\sqrt{d_k}} .
# $$ (eq-ch8-forward)
#
# **The values.** $\mathbf o$ holds $\mathbf v_j$ with the factor $w_j$, so
# $\partial L / \partial \mathbf v_j = w_j\,\mathbf g$. **The weights.** $\mathbf o$ holds $w_j$
# with the factor $\mathbf v_j$, so $\partial L / \partial w_j = \mathbf v_j \cdot \mathbf g$;
# call it $dA_j$. **The scores.** Each weight depends on every score, through the softmax
# Jacobian $\partial w_i / \partial s_j = w_i(\delta_{ij} - w_j)$ of Chapter 2, so
#
# $$
# \frac{\partial L}{\partial s_j} = \sum_i dA_i\, w_i(\delta_{ij} - w_j)
#   = w_j \Big(dA_j - \sum_i w_i\, dA_i\Big) .
# $$ (eq-ch8-ds)
#
# A score's gradient is positive when its key's $dA_j$ is above the weights' average of $dA$
# (raising that score would raise the loss, so gradient descent lowers it), and negative when
# it is below. **The query and the keys.** $s_j$ holds $\mathbf q$ with the factor
# $\mathbf k_j / \sqrt{d_k}$ and $\mathbf k_j$ with the factor $\mathbf q / \sqrt{d_k}$:
#
# $$
# \frac{\partial L}{\partial \mathbf q} = \frac{1}{\sqrt{d_k}} \sum_j \frac{\partial L}{\partial s_j}
#   \mathbf k_j, \qquad
# \frac{\partial L}{\partial \mathbf k_j} = \frac{1}{\sqrt{d_k}} \frac{\partial L}{\partial s_j}
#   \mathbf q .
# $$ (eq-ch8-dq)
#
# In numbers:

# %%
dV = np.outer(weights, g)  # dL/dv_j = w_j g: [S] x [Ev] -> [S, Ev]
dA = V @ g  # dL/dw_j = v_j . g: [S, Ev] @ [Ev] -> [S]
dA_mean = weights @ dA  # the weights' average of dA
dS = weights * (dA - dA_mean)  # dL/ds_j, equation (eq-ch8-ds): [S]
dS_sum = dS.sum()  # zero, up to rounding
dq = dS @ K / math.sqrt(d_k)  # [S] @ [S, E] -> [E]
# row j: dL/dk_j = dS_j q / sqrt(d_k): [S, E]
dK = np.outer(dS, q) / math.sqrt(d_k)
step_table(
    {"dAⱼ = vⱼ·g": dA, "dSⱼ": dS}
    | {"dL/dkⱼ": [vector(r + 0.0) for r in dK]}  # + 0.0: no "−0"
    | {"dL/dvⱼ": [vector(r) for r in dV]},
    index=["word 1", "word 2", "word 3"],
)

# %% [markdown]
# Read it by hand. $dA$ is {eval}`dec(dA)`: the values' first coordinate minus their second.
# Its weighted average is {eval}`dec(dA_mean)`. Word 1 is above it: $dS_1 =$
# {eval}`dec(weights[0])` × ({eval}`dec(dA[0])` − {eval}`dec(dA_mean)`) = {eval}`dec(dS[0])`,
# positive, so its score should fall (its value (2, 0) is what pushes $o_1$ up); word 2 is
# below it and gets {eval}`dec(dS[1])`, so its score should rise. The three entries of
# $dS$ sum to zero ({eval}`dec(dS_sum)` here): adding the same number to
# every score changes no weight, so the gradient cannot point that way. The query's gradient
# is {eval}`vector(dq)`; gradient descent moves against the gradient, so the query turns away
# from $\mathbf k_1 = (1, 0)$ and towards $\mathbf k_2 = (0, 1)$, whose value $(0, 2)$ lowers
# $o_1$ and raises $o_2$.
#
# `ac.attention_backward` computes the same thing for any shapes and masks; and finite
# differences, computed from the forward pass alone, check both, as Chapter 2 checked the
# softmax's Jacobian:

# %%
dq_ac, dK_ac, dV_ac = ac.attention_backward(g, q, K, V)
pairs = [(dq, dq_ac), (dK, dK_ac), (dV, dV_ac)]
by_hand_err = max(np.abs(a - b).max() for a, b in pairs)
h = 1e-6
sdpa = ac.scaled_dot_product_attention
# the loss L = g . o, with q moved along each of its coordinates
dq_numeric = np.array(
    [(g @ sdpa(q + h * e, K, V) - g @ sdpa(q - h * e, K, V)) / (2 * h) for e in np.eye(d_k)]
)
# and with one coordinate of one key moved at a time
dK_numeric = np.array(
    [
        (g @ sdpa(q, K + h * e, V) - g @ sdpa(q, K - h * e, V)) / (2 * h)
        for e in np.eye(K.size).reshape(-1, *K.shape)
    ]
).reshape(K.shape)
fd_err = max(np.abs(dq - dq_numeric).max(), np.abs(dK - dK_numeric).max())
# the last digits of both differences are rounding noise, which depends on the machine;
# print bounds instead
tol_exact, tol_fd = 1e-12, 1e-8  # float64 arithmetic; central differences with h = 1e-6
print(by_hand_err < tol_exact, f"by hand vs attn_core below {tol_exact:.0e}", sep="  ")
print(fd_err < tol_fd, f"by hand vs finite differences below {tol_fd:.0e}", sep="  ")

# %% [markdown]
# The hand computation and `attn_core` differ by less than {eval}`sci(tol_exact)`, and both
# agree with finite differences to within {eval}`sci(tol_fd)`.
#
# ## All the queries at once
#
# With $L$ queries the same five lines become matrix products. For $O = AV$,
# $A = \mathrm{softmax}(QK^\top/\sqrt{d_k})$ row by row, and $dO = \partial L / \partial O$:
#
# $$
# \begin{aligned}
# dV &= A^\top dO, \qquad dA = dO\,V^\top, \\
# dS &= A \odot \big(dA - \mathrm{rowsum}(dA \odot A)\big), \\
# dQ &= \frac{dS\,K}{\sqrt{d_k}}, \qquad dK = \frac{dS^\top Q}{\sqrt{d_k}} .
# \end{aligned}
# $$ (eq-ch8-batched)
#
# Each line is a step of the single-query derivation with a row per query: $dV$ sums each
# value's $w_{ij}\,\mathbf g_i$ over the queries $i$ (hence $A^\top$), and $dK$ collects, in row
# $j$, what every query sent to key $j$ (hence $dS^\top$). A mask changes nothing in these
# lines: a masked weight is 0, so its $dS_{ij}$ is 0 too, and a key that no query may see gets
# $dK_j = dV_j = 0$. Checked on a random causal case, four queries and six keys, with
# `is_causal=True` aligned top-left as in [Chapter 7](07_heads_and_masks.ipynb) (query $i$ sees
# keys $0$ to $i$):

# %%
rng = np.random.default_rng(8)
Q4 = rng.normal(size=(4, 3))  # [L, E]
K6 = rng.normal(size=(6, 3))  # [S, E]
V6 = rng.normal(size=(6, 2))  # [S, Ev]
dO = rng.normal(size=(4, 2))  # [L, Ev]
dQ4, dK6, dV6 = ac.attention_backward(dO, Q4, K6, V6, is_causal=True)


def causal_loss(Q):  # L = sum(dO * O): its gradient in O is dO
    return np.sum(dO * sdpa(Q, K6, V6, is_causal=True))


dQ4_numeric = np.array(
    [
        (causal_loss(Q4 + h * e) - causal_loss(Q4 - h * e)) / (2 * h)
        for e in np.eye(Q4.size).reshape(-1, *Q4.shape)
    ]
).reshape(Q4.shape)
batched_err = np.abs(dQ4 - dQ4_numeric).max()
print(f"dQ vs finite differences below {tol_fd:.0e}:", batched_err < tol_fd)
print("dK of keys 4 and 5:", dK6[4:].tolist())

# %% [markdown]
# They agree to within {eval}`sci(tol_fd)`, and keys 4 and 5, which no query may see under the
# causal mask (the four queries see keys 0 to 3 at most), get no gradient at all. The unit tests run
# the same check on masks, batches, broadcast heads and fully masked rows, and against
# PyTorch's autograd.
#
# The row term of $dS$ does not need the $L \times S$ matrices either:
# $\mathrm{rowsum}(dA \odot A)_i = \sum_j A_{ij}\,(\mathbf{dO}_i \cdot \mathbf v_j) =
# \mathbf{dO}_i \cdot \mathbf o_i$, one dot product per query of two vectors the forward and the
# loss already have:

# %%
A4 = ac.attention_weights(Q4, K6, is_causal=True)  # [L, S]
O4 = A4 @ V6  # [L, Ev]
dA4 = dO @ V6.T  # [L, Ev] @ [Ev, S] -> [L, S]
# rowsum(dA * A) over S keys = rowsum(dO * O) over Ev coordinates: [L]
np.testing.assert_allclose(np.sum(dA4 * A4, axis=-1), np.sum(dO * O4, axis=-1))

# %% [markdown]
# FlashAttention's backward pass computes it this way, as its $D_i$
# ([Dao et al., 2022](references.md)); [Chapter 9](09_cost.ipynb) shows why a pass that never
# holds an $L \times S$ matrix matters.
#
# ## A task whose answer we know
#
# To watch a layer learn, we need a task whose right attention pattern we know in advance.
# Chapter 5's "who did what" is one: in a sentence *A는 B를 V*, the subject asks what it did
# (it should look at the verb), the object asks who did what to it (the subject and the verb,
# half each), and the verb asks what it was done to (the object). We make every such sentence
# from a handful of nouns and verbs, in both Korean word orders, *A는 B를 V* and *B를 A는 V*. Each
# token's vector is Chapter 5's four features (noun, verb, -는, -를) followed by a one-hot of its
# word, so the model can tell 나 from 고양이 but is told nothing about roles except the markers.
# We hold out the sentence of Chapter 5, 나는 사과를 먹었다, in both orders, to test on.

# %%
held_out = [("나는", "사과를", "먹었다"), ("사과를", "나는", "먹었다")]
data = who_did_what(exclude=held_out)  # the training sentences
everything = who_did_what()
test = everything.tokens.index(held_out[0])
X, target = data.x, data.target  # [B, 3, D], [B, 3, W]
n_sentences, n_tokens, d_model = X.shape
n_words = len(data.words)
print(f"training set of {n_sentences} sentences, e.g.:")
for sentence in [
    ("고양이는", "사과를", "봤다"),
    ("친구를", "고양이는", "불렀다"),
]:
    i = data.tokens.index(sentence)
    print("  ", " ".join(sentence), "-> pattern", data.pattern[i].tolist())
print("words:", " ".join(data.words))

# %% [markdown]
# There are {eval}`n_sentences` training sentences of {eval}`n_tokens` tokens, each token a
# vector of $d_\text{model} =$ {eval}`d_model` numbers. The layer's output for token $i$ is
# $\mathbf o_i = \sum_j A_{ij}\, \mathbf x_j W_V$, a vector over the
# {eval}`n_words` words; its target $\mathbf t_i$ is the words it should collect: for
# the object, half the subject's one-hot plus half the verb's. Any pattern other than the right
# one mixes in the wrong words, so the loss can only reach zero through the right attention.
#
# **The loss.** We use half the squared error (제곱 오차) per token,
# $L = \frac{1}{2N}\sum_i \lVert \mathbf o_i - \mathbf t_i \rVert^2$, whose gradient is one line,
# $\partial L / \partial \mathbf o_i = (\mathbf o_i - \mathbf t_i)/N$ (`tr.squared_error`). The
# target is a mixture of words rather than one word, so the cross-entropy (교차 엔트로피) that
# language models use would need a softmax over the words on top of the output; the squared
# error keeps the chain of the backward pass to the part this chapter is about.
#
# This is a toy, not how a language model trains. There, every position $t$ of a text
# predicts the token at $t + 1$ through a softmax over the whole vocabulary, the loss is the
# cross-entropy of the true next token averaged over the positions, every row is computed at
# once under the causal mask of [Chapter 7](07_heads_and_masks.ipynb), and the input is the
# true text, not the model's own guesses (teacher forcing, 교사 강요);
# [Chapter 10](10_generation.ipynb) shows that pass. Attention's backward pass is the one
# derived here in both cases: only the $dO$ that reaches it differs, and the causal mask
# zeroes the masked weights' gradients as any mask does.
#
# ## One step of gradient descent, written out
#
# Gradient descent (경사 하강법) moves every parameter a small step against its gradient,
# $\theta \leftarrow \theta - \eta\, \partial L / \partial \theta$, with the learning rate
# (학습률) $\eta$. Every step here uses all the training sentences at once (full batch); the code
# and the figures call the rule by its usual name, SGD, stochastic gradient descent (확률적 경사
# 하강법), though no random sample is drawn here.
# The projections start as small random numbers, so every score starts near 0
# and every weight near $1/3$. One step, all of it visible:

# %%
d_qk = 3  # the width of queries and keys, as in Chapter 5
rng = np.random.default_rng(0)
start = tr.init_projections(rng, d_model, d_qk, n_words, std=0.1)
lr = 1.0  # the learning rate
Q = X @ start["W_Q"]  # [B, 3, D] @ [D, d_k] -> [B, 3, d_k]
K = X @ start["W_K"]  # [B, 3, d_k]
V = X @ start["W_V"]  # [B, 3, D] @ [D, W] -> [B, 3, W]
A = ac.attention_weights(Q, K)  # [B, 3, 3]
out = A @ V  # [B, 3, 3] @ [B, 3, W] -> [B, 3, W]
loss, dO = tr.squared_error(out, target)  # dO = (out - target) / N
# equation (eq-ch8-batched):
dQ, dK, dV = ac.attention_backward(dO, Q, K, V)
# Q = X W_Q, so dL/dW_Q = X^T dQ, summed over every token:
X_rows = X.reshape(-1, d_model)  # [B*3, D]
grads = {  # [D, B*3] @ [B*3, width] -> [D, width]
    "W_Q": X_rows.T @ dQ.reshape(-1, d_qk),
    "W_K": X_rows.T @ dK.reshape(-1, d_qk),
    "W_V": X_rows.T @ dV.reshape(-1, n_words),
}
# theta - lr * grad, for each matrix:
after_one = tr.sgd_step(start, grads, lr)
out_after_one, _ = tr.self_attention(X, after_one)
loss_after_one, _ = tr.squared_error(out_after_one, target)
print(f"loss {loss:.4f} -> {loss_after_one:.4f} after one step")

# %% [markdown]
# One step takes the loss from {eval}`dec(loss, 4)` to {eval}`dec(loss_after_one, 4)`.
# `experiments.train_self_attention` repeats this step, with `tr.self_attention_backward` for
# the same gradients (tests hold them to finite differences and one step of PyTorch's autograd
# with `torch.optim.SGD`), and keeps the parameters at the steps we ask for, so the figure
# below can show them without training again:

# %%
n_steps = 300
recorded = list(range(0, 101, 5)) + list(range(120, n_steps + 1, 20))
run = experiments.train_self_attention(X, target, start, n_steps, lr, record=recorded)
final_loss = run.losses[-1]
print(f"loss at step 0: {run.losses[0]:.4f}")
print(f"loss at step {n_steps}: {final_loss:.5f}")

# %% [markdown]
# In {eval}`n_steps` steps the loss falls from {eval}`dec(run.losses[0], 4)` to
# {eval}`dec(final_loss, 5)`. Did the layer learn the pattern, or only the training
# sentences? Look at the sentence it never saw:

# %%
x_test = everything.x[test]  # [3, D]: 나는 사과를 먹었다
# the queries and keys of the test sentence at each recorded step
states = [(step, x_test @ p["W_Q"], x_test @ p["W_K"]) for step, p in run.snapshots]
learning = AttentionHeatmap(
    query_tokens=list(held_out[0]),
    training_queries=[s[1] for s in states],
    training_keys=[s[2] for s in states],
    training_steps=[s[0] for s in states],
    training_losses=run.losses,
    step=len(states) - 1,
    selected=1,
)
figures.show(
    learning,
    "fig-ch8-learning",
    "The attention of the held-out sentence “나는 사과를 먹었다” during training, from the"
    " stored $W_Q$, $W_K$ of each recorded step; drag the training-step slider (or press ←/→"
    " on the heatmap) back to step 0 to see the uniform start, and watch the loss curve's dot.",
)

# %%
_, weights_start = tr.self_attention(x_test, run.snapshots[0][1])
_, weights_learned = tr.self_attention(x_test, run.params)
start_max = weights_start.max()
print(weights_start.round(3))
print(weights_learned.round(3))

# %% [markdown]
# At step 0 every weight is close to a third (the largest is {eval}`dec(start_max)`).
# At step {eval}`n_steps` the subject 나는 puts {eval}`dec(weights_learned[0, 2])` on the verb,
# the object 사과를 puts {eval}`dec(weights_learned[1, 0])` on the subject and
# {eval}`dec(weights_learned[1, 2])` on the verb, and the verb puts
# {eval}`dec(weights_learned[2, 1])` on the object ({eval}`figures.ref("fig-ch8-learning")`):
# Chapter 5's pattern, on a sentence outside the training set. The model never saw this
# sentence, but with no positions every pair of its words occurs in some training sentence:
# what carries over is the pattern learned from the markers *and* the words' identities (both
# are features), applied to a new combination of known words. It is a test of interpolation
# between known words, not of generalisation to new ones.
#
# ## Learned against designed
#
# Chapter 5 wrote its $W_Q$ and $W_K$ by hand, over the four named features. Put them beside
# what training found, on the same sentence (their word-identity rows are zero):

# %%
W_Q5, W_K5 = designed_projections()  # [4, 3] each: Chapter 5's cells
x_roles = x_test[:, :4]  # the four named features of each token
weights_designed = ac.attention_weights(x_roles @ W_Q5, x_roles @ W_K5)
pattern = everything.pattern[test]  # the target pattern

# %% tags=["hide-input"]
tokens = list(held_out[0])
panels = [
    {"matrix": weights_designed, "title": "designed (ch. 5)"},
    {"matrix": weights_learned, "title": "learned"},
    {"matrix": pattern, "title": "target"},
]
figures.show(
    plots.plot_token_heatmaps(
        [p | {"rows": tokens, "cols": tokens} for p in panels],
        xlabel="key",
        ylabel="query",
    ),
    "fig-ch8-designed-learned",
    "The weights of “나는 사과를 먹었다” from Chapter 5's hand-made $W_Q$, $W_K$ "
    "(left), from the ones trained for {n_steps} steps (middle), and the "
    "pattern the training targets asked for (right).",
    n_steps=n_steps,
)

# %% [markdown]
# Both put the weight where the grammar says; the learned matrices are sharper. Chapter 5's
# object row keeps {eval}`dec(weights_designed[1, 1])` on itself, because its scores differ by
# only $2/\sqrt 3$; the targets asked for none, so training drove the self-weight down to
# {eval}`dec(weights_learned[1, 1])` by making the score gaps larger.
#
# The matrices themselves are another matter. Attention only ever uses $W_Q$ and $W_K$ through
# the bilinear form $M = W_Q W_K^\top$ ($d_\text{model} \times d_\text{model}$): the score of query token $i$ and key token
# $j$ is $\mathbf x_i M \mathbf x_j^\top / \sqrt{d_k}$. Interpretability work calls $M$ the head's
# QK matrix, and $\mathbf x M \mathbf x^\top$ over the token embeddings its QK circuit
# ([Elhage et al., 2021](references.md)), in the work that first described the
# induction heads of [Chapter 7](07_heads_and_masks.ipynb). Compare the block of $M$ over the four
# named features:

# %%
# [4, 4]: rows the query's features, columns the key's
M_designed = W_Q5 @ W_K5.T
M_all = run.params["W_Q"] @ run.params["W_K"].T  # [D, D]
M_learned = M_all[:4, :4]  # the four named features
M_learned_max = M_learned.max()
roles = ["noun", "verb", "-는", "-를"]
step_table(
    {f"key {r}": M_designed[:, j] for j, r in enumerate(roles)},
    index=roles,
    digits=0,
)

# %%
step_table(
    {f"key {r}": M_learned[:, j] for j, r in enumerate(roles)},
    index=roles,
    digits=2,
)

# %% [markdown]
# Entry by entry they look nothing alike: the designed block has four 2s and zeros elsewhere;
# the learned one spreads over every entry, and its largest, {eval}`dec(M_learned_max, 2)`,
# pairs a *verb* query with a *-를* key, where the design put a 2 as well. Three reasons, none of
# them a failure:
#
# - **Shifts change nothing.** Softmax ignores a constant added to a row of scores, so any
#   part of $M$ that gives every key of a sentence the same score is invisible to the loss;
#   training never had a reason to make it zero, and it stayed wherever the random start and
#   the steps left it.
# - **The features overlap.** Every noun has -는 or -를, and every word's one-hot tells noun
#   from verb as well; many different $M$ give the same scores on these sentences. Training
#   found one that uses the word identities too (the rest of $M$, not shown), which the design
#   did not need.
# - **The values are learned too.** $W_V$ learned to copy each word's one-hot into the output
#   (the design of Chapter 5 handed over "who", "what" and "did" instead), because that is what
#   these targets ask for.
#
# What can be compared is what the loss sees: the scores of one sentence, minus each row's mean
# (the part softmax ignores):

# %%
# the scores x_i M x_j / sqrt(d_k) of the test sentence: [3, 3]
scores_designed = x_roles @ M_designed @ x_roles.T / math.sqrt(d_qk)
scores_learned = x_test @ M_all @ x_test.T / math.sqrt(d_qk)
# minus each row's mean: the part softmax sees
row_mean = {"keepdims": True, "axis": -1}
centred_designed = scores_designed - scores_designed.mean(**row_mean)
centred_learned = scores_learned - scores_learned.mean(**row_mean)
# how far below its row's mean 사과를 scores itself
self_gap = {"designed": -centred_designed[1, 1], "learned": -centred_learned[1, 1]}
columns = {}
for j, t in enumerate(tokens):
    columns[f"{t}, designed"] = centred_designed[:, j]
for j, t in enumerate(tokens):
    columns[f"{t}, learned"] = centred_learned[:, j]
step_table(columns, index=tokens, digits=2)

# %% [markdown]
# Now the two agree where the pattern matters: in both, the key each query should find scores
# highest in its row, well above the others, and the keys it should ignore score lower. The learned gaps are larger: the object's score for itself sits
# {eval}`dec(self_gap["learned"], 2)` below its row's mean against
# {eval}`dec(self_gap["designed"], 2)` designed. Training found the same top key in every
# row as the design, asked louder and spread over whichever features happened to carry it; how
# it ranks the keys to ignore may differ from the design, since the loss only needs them low.
#
# ## √d_k, by training
#
# [Chapter 3](03_scaling.ipynb) showed that the scores $\mathbf q\cdot\mathbf k$ of random
# vectors spread as $\sqrt{d_k}$, and that softmax saturates (포화) on widely spread scores.
# Here is what that does to learning: the same task at a larger $d_k$, from one random start,
# trained twice with the same learning rate, once with the $1/\sqrt{d_k}$ and once without
# (`scale=1.0`):

# %%
d_k_big, big_steps, big_lr = 64, 100, 1.0
init_std = 0.5  # of every entry of the three matrices
rng = np.random.default_rng(1)
big_start = tr.init_projections(rng, d_model, d_k_big, n_words, std=init_std)
# a token's query component sums its ones' entries: variance (ones) * std^2
component_var = X.sum(axis=-1) * init_std**2  # [B, 3]
var_range = component_var.min(), component_var.max()
saturated_at = 0.99  # a row is saturated when one weight exceeds this
task = (X, target, big_start, big_steps)  # the same data, start, steps
runs = {
    "SGD, scaled": experiments.train_self_attention(*task, big_lr),
    "SGD, unscaled": experiments.train_self_attention(*task, big_lr, scale=1.0),
}

# %% [markdown]
# Here $d_k =$ {eval}`d_k_big` and every entry starts with a standard deviation of
# {eval}`plain(init_std)`, so each component of a query or key has a variance between
# {eval}`plain(var_range[0])` and {eval}`plain(var_range[1])`: close to the unit variance that
# the usual initialisations (초기화) aim for. Before any step, how saturated are the weights, and
# how large are the gradients? A row counts as saturated when one weight exceeds
# {eval}`plain(saturated_at)`. The last row of the table below is the norm of the gradient
# reaching $W_Q$ and $W_K$ together. The gradient a single query receives, $\lVert dQ_i\rVert$,
# tells the rows apart:

# %%
Q_big, K_big, V_big = (X @ big_start[n] for n in ("W_Q", "W_K", "W_V"))
init = {}
for label, scale in [("scaled", None), ("unscaled", 1.0)]:
    A_big = ac.attention_weights(Q_big, K_big, scale=scale)  # [B, 3, 3]
    _, dO_big = tr.squared_error(A_big @ V_big, target)
    dQ_big, _, _ = ac.attention_backward(dO_big, Q_big, K_big, V_big, scale=scale)
    saturated = A_big.max(axis=-1) > saturated_at  # [B, 3]
    row_grad = np.linalg.norm(dQ_big, axis=-1)  # [B, 3]: |dQ_i|
    stuck = row_grad[saturated]  # the saturated rows' |dQ_i|
    factor = 1 / math.sqrt(d_k_big) if scale is None else scale
    scores_big = Q_big @ np.swapaxes(K_big, -1, -2) * factor
    init[label] = {
        "std of the scores": scores_big.std(),
        "saturated rows": saturated.mean(),
        "entropy (nats)": ac.entropy(A_big).mean(),
        "median |dQ_i|, saturated rows": np.median(stuck) if stuck.size else "none",
        "median |dQ_i|, other rows": np.median(row_grad[~saturated]),
        "|grad W_Q, W_K|": runs[f"SGD, {label}"].grad_norms[0],
    }
uniform_entropy = math.log(3)  # log S: uniform weights over 3 keys
shown = {
    "median |dQ_i|, saturated rows": "median |dQᵢ|, saturated rows",
    "median |dQ_i|, other rows": "median |dQᵢ|, other rows",
    "|grad W_Q, W_K|": "|grad W<sub>Q</sub>, W<sub>K</sub>|",
}
step_table(
    {k: [f"{x:.3g}" if isinstance(x, float) else x for x in v.values()] for k, v in init.items()},
    index=[shown.get(k, k) for k in init["scaled"]],  # indices drawn as indices, not "_"
)

# %% [markdown]
# With the scale, no row is saturated and the mean entropy is
# {eval}`dec(init["scaled"]["entropy (nats)"])` nats, close to the uniform $\log 3 =$
# {eval}`dec(uniform_entropy)`. Without it, {eval}`dec(init["unscaled"]["saturated rows"], 2)` of
# the rows are saturated: the unscaled scores' standard deviation is
# {eval}`dec(init["unscaled"]["std of the scores"], 2)` against
# {eval}`dec(init["scaled"]["std of the scores"], 2)` scaled ($\sqrt{d_k}$ times as much),
# and softmax turns most rows into one-hots. Their queries get a
# median gradient of {eval}`sci(init["unscaled"]["median |dQ_i|, saturated rows"], 1)`, against
# {eval}`sci(init["unscaled"]["median |dQ_i|, other rows"], 1)` for the rows that are not
# saturated:
# that is the vanishing gradient, and it is per row. Notice that the total gradient reaching
# $W_Q$ and $W_K$ is *larger* without the scale ({eval}`dec(init["unscaled"]["|grad W_Q, W_K|"], 2)`
# against {eval}`dec(init["scaled"]["|grad W_Q, W_K|"], 2)`): the unscaled scores are not divided
# by $\sqrt{d_k}$, so neither are their gradients, and the few rows that still learn get a large push. A
# gradient norm alone would hide the problem; the saturated rows show it.
#
# The same comparison with Adam ([Kingma & Ba, 2015](references.md)), which divides
# every gradient entry by a running estimate of its own size, so that each parameter moves by
# at most about the learning rate whatever the size of its gradient, and by about that much
# when its gradient keeps its sign (`tr.adam_step`; an optimiser,
# 옵티마이저, is any such update rule):

# %%
adam_lr = 0.03
runs["Adam, scaled"] = experiments.train_self_attention(*task, adam_lr, "adam")
runs["Adam, unscaled"] = experiments.train_self_attention(*task, adam_lr, "adam", scale=1.0)
figures.show(
    plots.plot_training_runs(runs, uniform_entropy=uniform_entropy),
    "fig-ch8-scaling",
    "The same task at $d_k = {d_k_big}$ from the same start, with and "
    "without the $1/\\sqrt{{d_k}}$ (dashed: without), by SGD and by Adam. "
    "Left: the loss; right: the mean entropy of a row of weights.",
    d_k_big=d_k_big,
)

# %%
final = {label: r.losses[-1] for label, r in runs.items()}
sgd, sgd_u, adam, adam_u = runs.values()  # in the order they ran; _u: unscaled
print(
    f"SGD, scaled     loss {sgd.losses[0]:.3f} -> {sgd.losses[-1]:.4f}"
    f", entropy {sgd.entropies[-1]:.3f}"
)
print(
    f"SGD, unscaled   loss {sgd_u.losses[0]:.3f} -> {sgd_u.losses[-1]:.4f}"
    f", entropy {sgd_u.entropies[-1]:.3f}"
)
print(
    f"Adam, scaled    loss {adam.losses[0]:.3f} -> {adam.losses[-1]:.4f}"
    f", entropy {adam.entropies[-1]:.3f}"
)
print(
    f"Adam, unscaled  loss {adam_u.losses[0]:.3f} -> {adam_u.losses[-1]:.4f}"
    f", entropy {adam_u.entropies[-1]:.3f}"
)

# %% [markdown]
# Scaled, SGD brings the loss to {eval}`dec(final["SGD, scaled"], 4)` in {eval}`big_steps`
# steps; unscaled, it stalls at {eval}`dec(final["SGD, unscaled"], 4)`
# ({eval}`figures.ref("fig-ch8-scaling")`). The unscaled rows' entropy starts near 0 and stays
# there: a row that starts saturated on the wrong key has almost no gradient to leave it.
# Adam, which rescales the gradients, does not rescue it: {eval}`dec(final["Adam, scaled"], 4)`
# scaled against {eval}`dec(final["Adam, unscaled"], 4)` unscaled (other Adam learning rates
# and other starts are in a
# [Going-further section](08_learning.ipynb#going-further-other-learning-rates-other-starts)).
#
# Does a learning rate other than {eval}`plain(big_lr)` help the unscaled run, over the same
# {eval}`big_steps` steps?
# Two smaller ones and a larger one:

# %%
lr_sweep = {}
for lr_try in (0.1, 0.3, 2.0):  # big_lr = 1.0 is above
    swept = experiments.train_self_attention(*task, lr_try, scale=1.0)
    lr_sweep[lr_try] = swept.losses[-1]
for lr_try, end in lr_sweep.items():
    print(f"unscaled SGD, learning rate {lr_try}: loss {end:.4g}")

# %% [markdown]
# With the smaller learning rates the unscaled run ends at {eval}`dec(lr_sweep[0.1], 4)` and
# {eval}`dec(lr_sweep[0.3], 4)`: no better. With the larger one it diverges: its loss grows to
# {eval}`sci(lr_sweep[2.0], 1)`. To be fair to the unscaled model: "no scale" starts as the
# scaled model with a larger initialisation. Multiply $W_Q$ and $W_K$ by $d_k^{-1/4}$ and its
# first scores equal the scaled model's exactly. Trained from there, without the scale:

# %%
shrink = d_k_big**-0.25  # W_Q and W_K both: the scores shrink by 1/sqrt(d_k)
small_start = {n: w * shrink if n in ("W_Q", "W_K") else w for n, w in big_start.items()}
Q_small, K_small = X @ small_start["W_Q"], X @ small_start["W_K"]
np.testing.assert_allclose(  # unscaled scores from the smaller start = the scaled ones
    Q_small @ np.swapaxes(K_small, -1, -2),
    Q_big @ np.swapaxes(K_big, -1, -2) / math.sqrt(d_k_big),
)
small_task = (X, target, small_start, big_steps)
small_lr = 0.3
small_sweep = {}
for lr_try in (big_lr, small_lr):
    small_run = experiments.train_self_attention(*small_task, lr_try, scale=1.0)
    small_sweep[lr_try] = small_run.losses[-1]
# in effect, the factor on the scaled model's W_Q, W_K learning rate
qk_lr_factor = math.sqrt(d_k_big)
for lr_try, end in small_sweep.items():
    print(f"unscaled SGD from the smaller start, learning rate {lr_try}: loss {end:.4g}")

# %% [markdown]
# It trains: at learning rate {eval}`plain(big_lr)` it ends at
# {eval}`dec(small_sweep[big_lr], 4)`, below even the scaled run's
# {eval}`dec(final["SGD, scaled"], 4)`; at learning rate {eval}`plain(small_lr)` it ends at
# {eval}`dec(small_sweep[small_lr], 4)`. It is not the same training, though. The chain rule
# makes the gradient of the smaller $W_Q$ $d_k^{1/4}$ times larger, and a step of that smaller
# matrix moves the scores as much as a $d_k^{1/4}$ times larger step of the scaled model's
# $W_Q$ would: in effect SGD runs the scaled model with a learning rate
# $\sqrt{d_k} =$ {eval}`plain(qk_lr_factor)` times larger on $W_Q$ and $W_K$ (on $W_V$, the
# same learning rate). Undo that factor and it should be the same training. Here it is,
# without the scale, from the smaller start, with the learning rate of $W_Q$ and $W_K$
# divided by {eval}`plain(qk_lr_factor)`, every step written out:

# %%
step_lr = {"W_Q": big_lr / qk_lr_factor, "W_K": big_lr / qk_lr_factor, "W_V": big_lr}
same_params = small_start  # unscaled scores, W_Q and W_K d_k^(-1/4) smaller
same_losses = []
for _ in range(big_steps):
    out_same, _ = tr.self_attention(X, same_params, scale=1.0)  # no 1/sqrt(d_k)
    loss_same, dO_same = tr.squared_error(out_same, target)
    same_losses.append(loss_same)
    grads_same = tr.self_attention_backward(dO_same, X, same_params, scale=1.0)
    same_params = {n: p - step_lr[n] * grads_same[n] for n, p in same_params.items()}
scaled_run = runs["SGD, scaled"]  # with 1/sqrt(d_k), learning rate big_lr on all three
loss_gap = np.max(np.abs(np.array(same_losses) / scaled_run.losses[:-1] - 1))
W_Q_gap = np.abs(same_params["W_Q"] / shrink - scaled_run.params["W_Q"]).max()
# the last digits are rounding noise, which depends on the machine: print a bound
tol_same = 1e-12  # float64 arithmetic
print(f"losses, relative gap below {tol_same:.0e}:", loss_gap < tol_same)
print(f"W_Q (undoing the shrink), gap below {tol_same:.0e}:", W_Q_gap < tol_same)

# %% [markdown]
# Step by step the losses equal the scaled run's, and the final $W_Q$, divided back by
# $d_k^{-1/4}$, equals the scaled run's, to within {eval}`sci(tol_same)`: rounding error.
# Removing the scale is the same model as keeping it, with a larger start and a learning
# rate on $W_Q$ and $W_K$ that is {eval}`plain(qk_lr_factor)` times larger. (Adam, whose steps do not grow with the
# gradient, would need another factor.)
#
# So, at one $d_k$, the scale sets the start (and the step of $W_Q$ and $W_K$, which a
# separate learning rate for $W_Q$ and $W_K$ absorbs): with $1/\sqrt{d_k}$, the usual
# initialisation (unit variance per component, whatever $d_k$) starts every row unsaturated,
# and nobody has to retune the start when $d_k$ changes. That is a statement about
# initialisation only; whether one learning rate suits every $d_k$ is the question of a
# [Going-further section](08_learning.ipynb#going-further-learning-rates-across-widths).

# %% [markdown]
# ## Going further: other learning rates, other starts
#
# Adam, at the learning rate {eval}`plain(adam_lr)` of {eval}`figures.ref("fig-ch8-scaling")`,
# did not rescue the unscaled layer. Is its learning rate to blame? The same two runs at five Adam learning rates, with the share of saturated rows
# after 10 steps and at the end:


# %%
def saturated_share(params, scale):
    """The share of rows whose largest weight exceeds saturated_at."""
    Q_s, K_s = X @ params["W_Q"], X @ params["W_K"]  # [B, 3, d_k]
    A_s = ac.attention_weights(Q_s, K_s, scale=scale)  # [B, 3, 3]
    return (A_s.max(axis=-1) > saturated_at).mean()


adam_lrs = (0.003, 0.01, 0.03, 0.1, 0.3)
adam_sweep = {"scaled": {}, "unscaled": {}}  # learning rate -> (loss, share at 10, at the end)
for lr_adam in adam_lrs:
    for label, scale in [("scaled", None), ("unscaled", 1.0)]:
        run_adam = experiments.train_self_attention(
            *task, lr_adam, "adam", scale=scale, record=(10,)
        )
        at_10 = saturated_share(run_adam.snapshots[0][1], scale)
        adam_sweep[label][lr_adam] = (
            run_adam.losses[-1],
            at_10,
            saturated_share(run_adam.params, scale),
        )
step_table(
    {
        f"{label}: {what}": [f"{adam_sweep[label][lr][i]:.{digits}f}" for lr in adam_lrs]
        for label in adam_sweep
        for i, what, digits in [
            (0, "loss", 4),
            (1, "saturated, step 10", 2),
            (2, "saturated, end", 2),
        ]
    },
    index=[plain(lr) for lr in adam_lrs],
    index_label="Adam's learning rate",
)

# %%
best_adam = {label: min(adam_sweep[label].values())[0] for label in adam_sweep}
# the smallest learning rate at which every unscaled row is saturated by step 10
all_saturated_lr = min(lr for lr in adam_lrs if adam_sweep["unscaled"][lr][1] == 1)
scaled_top = adam_sweep["scaled"][adam_lrs[-1]]  # the largest learning rate, scaled
unscaled_end_least = min(share for _, _, share in adam_sweep["unscaled"].values())
sqrt_d_k_big = math.isqrt(d_k_big)  # the factor between an unscaled and a scaled score
best_scaled_lr = min(adam_lrs, key=lambda lr: adam_sweep["scaled"][lr][0])

# %% [markdown]
# None of these five learning rates rescues the unscaled layer in {eval}`big_steps` steps,
# from this one start: its best loss is {eval}`dec(best_adam["unscaled"], 4)`, against
# {eval}`dec(best_adam["scaled"], 4)` for the best scaled run (still above SGD's
# {eval}`dec(final["SGD, scaled"], 4)`). The saturated share says why, and it is not that Adam leaves the
# saturated rows behind. Unscaled, every run ends with *more* rows saturated than the
# {eval}`dec(init["unscaled"]["saturated rows"], 2)` of the start (at least
# {eval}`dec(unscaled_end_least, 2)`), and from a learning rate of
# {eval}`plain(all_saturated_lr)` on, every row is saturated by step 10. Adam moves every entry of
# $W_Q$ and $W_K$ by about the learning rate whatever the size of its gradient (while the
# gradient keeps its sign), and the same step changes
# an unscaled score $\sqrt{d_k}$ = {eval}`plain(sqrt_d_k_big)` times as much as a scaled
# one: a step that is gentle for the scaled layer saturates the unscaled rows within a few
# steps, before they have found their keys, and a row saturated on the wrong key stays there.
# Saturation at the end is not the failure in itself: the task asks for sharp rows, and the
# best scaled run (learning rate {eval}`plain(best_scaled_lr)`) ends with
# {eval}`dec(adam_sweep["scaled"][best_scaled_lr][2], 2)` of its rows saturated.
# Saturating early, before the rows have found their keys, is; the share at step 10 only
# hints at it (the best scaled run already has
# {eval}`dec(adam_sweep["scaled"][best_scaled_lr][1], 2)` there). Its extreme, every row
# saturated by step 10, is what the scaled layer meets at the largest rate,
# {eval}`plain(adam_lrs[-1])`: a saturated share of {eval}`dec(scaled_top[1], 2)` at step 10 and
# a loss of {eval}`dec(scaled_top[0], 4)`, the unscaled runs' plateau.
#
# All of this is one random start, which may be a lucky or an unlucky one. The SGD
# comparison again, from five starts (seeds 0 to 4; the figure's is seed 1):

# %% tags=["nbval-ignore-output"]
# an unscaled run amplifies rounding: its last digits change with the BLAS build
seeds = range(5)
seed_finals = {"scaled": [], "unscaled": []}  # the final loss of each run, start by start
for seed in seeds:
    seed_rng = np.random.default_rng(seed)
    seed_start = tr.init_projections(seed_rng, d_model, d_k_big, n_words, std=init_std)
    seed_task = (X, target, seed_start, big_steps)
    for label, scale in [("scaled", None), ("unscaled", 1.0)]:
        seed_run = experiments.train_self_attention(*seed_task, big_lr, scale=scale)
        seed_finals[label].append(seed_run.losses[-1])
seed_finals = {label: np.array(ends) for label, ends in seed_finals.items()}
seed_ratio = seed_finals["unscaled"] / seed_finals["scaled"]  # seed by seed
by_start = seed_finals | {"unscaled / scaled": seed_ratio}  # the table's three columns
ranges = {label: (column.min(), column.max()) for label, column in by_start.items()}
seed_labels = [f"seed {s}" for s in seeds]
step_table(by_start, index=seed_labels, digits=4)

# %% [markdown]
# Scaled, the final loss ranges from {eval}`dec(ranges["scaled"][0], 4)` to
# {eval}`dec(ranges["scaled"][1], 4)` over the five starts; unscaled, from
# {eval}`dec(ranges["unscaled"][0], 4)` to {eval}`dec(ranges["unscaled"][1], 4)`.
# The ranges overlap: the best unscaled start ends below the worst scaled one. Start by
# start, the unscaled run ends {eval}`dec(ranges["unscaled / scaled"][0], 1)` to
# {eval}`dec(ranges["unscaled / scaled"][1], 1)` times higher. Five seeds show the spread, not a
# precise mean (and an unscaled run's second digit can change with the machine's BLAS build: the
# run amplifies differences in rounding).

# %% [markdown]
# ## Going further: learning rates across widths
#
# At one $d_k$, the scale sets the start. Does one learning rate suit every $d_k$? Training
# aligns each query with the keys it should find, and the scores of aligned vectors grow like
# $d_k$, not $\sqrt{d_k}$ ([Chapter 3](03_scaling.ipynb)). Adam moves every entry of $W_Q$ and
# $W_K$ by about the learning rate while its gradient keeps its sign; where those moves line up, the change they make in a score grows
# like $d_k$ before the scale, like $\sqrt{d_k}$ after $1/\sqrt{d_k}$: the same learning rate
# is a larger step at a larger $d_k$. The maximal-update parametrisation (μP) of
# [Yang et al. (2021)](references.md) divides the scores by $d_k$ for that reason, and sets
# each matrix's initialisation and learning rate by its width (with Adam, the learning rate
# of a hidden matrix, one whose two dimensions both grow with the width, shrinks as
# 1/width). The paper's result, measured on Transformers and other networks, is that a
# learning rate (and other settings) tuned on a narrow model under μP carries over to a wide
# one, and that under the usual parametrisation it does not.
#
# On our toy only $d_k$ grows; $d_\text{model}$ and the words stay. $W_Q$ and $W_K$ have one
# growing dimension, like a network's input layer, and for such a matrix μP keeps the
# initialisation and Adam's learning rate as they are (the `mup` package's `MuAdam` divides
# the learning rate only of matrices with two growing dimensions): here μP changes the scale
# and nothing else. We write it $c/d_k$, with $c$ chosen so that it equals $1/\sqrt{d_k}$ at
# the narrower width (the package writes $8/d$, equal to $1/\sqrt d$ at $d = 64$, for the same
# reason): there the two are one model. (The package also recommends a zero start for $W_Q$;
# we keep the random start, the same under both.) Adam at a grid of learning rates, each
# about $\sqrt 2$ times the last, at two widths, from several starts, for the
# {eval}`big_steps` steps of the section "√d_k, by training":

# %%
mup_widths = (16, 64)  # d_k: the narrow width, and the wide one of this section
mup_lrs = (0.05, 0.07, 0.1, 0.14, 0.2, 0.28)  # Adam's; each about sqrt(2) times the last
mup_seeds = range(4)
n_mup_seeds, n_mup_lrs = len(mup_seeds), len(mup_lrs)  # the prose quotes both
base_width, wide_width = mup_widths


def mup_scale(d):
    """muP's c/d_k for the scores, c = sqrt(base_width): equal to 1/sqrt(d_k) at the base."""
    return math.sqrt(base_width) / d


mup_runs = {  # column -> (d_k, the scores' factor); at the base width the two are one model
    "narrow": (base_width, 1 / math.sqrt(base_width)),
    "wide": (wide_width, 1 / math.sqrt(wide_width)),
    "wide, μP": (wide_width, mup_scale(wide_width)),
}
mup_loss = {}  # column -> the final losses [learning rate, start]
for column, (d, scale_d) in mup_runs.items():
    mup_starts = [
        tr.init_projections(np.random.default_rng(s), d_model, d, n_words, std=init_std)
        for s in mup_seeds
    ]
    mup_loss[column] = np.array(
        [  # all four starts at once, each its own run; the loss after the last step
            experiments.train_self_attention_starts(
                X, target, mup_starts, big_steps, lr_m, "adam", scale=scale_d
            )[-1]
            for lr_m in mup_lrs
        ]
    )
mup_best = {  # the best learning rate of each start
    column: [mup_lrs[i] for i in losses.argmin(axis=0)] for column, losses in mup_loss.items()
}
mup_headers = {
    "narrow": "d<sub>k</sub> = 16",
    "wide": "d<sub>k</sub> = 64, 1/√d<sub>k</sub>",
    "wide, μP": "d<sub>k</sub> = 64, μP",
}
step_table(
    {mup_headers[c]: np.median(losses, axis=1) for c, losses in mup_loss.items()},
    index=[plain(lr_m) for lr_m in mup_lrs],
    index_label="Adam's learning rate",
    footer=("best, start by start", {mup_headers[c]: plain(b) for c, b in mup_best.items()}),
    digits=4,
)

# %%
mup_range = {column: (min(best), max(best)) for column, best in mup_best.items()}
mup_ratio = {  # the median of the best learning rates, against the narrow width's
    column: np.median(best) / np.median(mup_best["narrow"]) for column, best in mup_best.items()
}
mup_best_loss = {  # each start's best final loss, the median over the starts
    column: np.median(losses.min(axis=0)) for column, losses in mup_loss.items()
}
predicted_ratio = math.sqrt(base_width / wide_width)  # the argument's: sqrt(16 / 64)
base_top = mup_range["narrow"][1]  # the largest of the best learning rates, narrow
wide_at_base_top = np.median(mup_loss["wide"][mup_lrs.index(base_top)])

# %% [markdown]
# Each cell is the median of the final loss over the {eval}`n_mup_seeds` starts (seeds
# {eval}`mup_seeds[0]` to {eval}`mup_seeds[-1]`); the last row is the best learning rate of
# each start. At $d_k =$ {eval}`base_width` the best learning rate is
# {eval}`plain(mup_range["narrow"][0])` to {eval}`plain(mup_range["narrow"][1])`. At
# $d_k =$ {eval}`wide_width` with $1/\sqrt{d_k}$ it falls to
# {eval}`plain(mup_range["wide"][0])` to {eval}`plain(mup_range["wide"][1])` (the median
# {eval}`dec(mup_ratio["wide"], 2)` times the narrow width's, where the argument above
# predicts the square root of the narrow width over the wide one,
# {eval}`plain(predicted_ratio)`). At
# {eval}`plain(base_top)`, one of the best at the narrow width, the wider layer ends at a
# median loss of {eval}`dec(wide_at_base_top, 4)`: the plateau of the saturated runs above.
# With μP's $c/d_k$ the best learning rate stays at {eval}`plain(mup_range["wide, μP"][0])`
# to {eval}`plain(mup_range["wide, μP"][1])`. Under $1/\sqrt{d_k}$ the wider layer is also
# worse at its own best learning rate: the best run of each start ends at a median loss of
# {eval}`sci(mup_best_loss["wide"], 1)`, against {eval}`sci(mup_best_loss["narrow"], 1)` at
# the narrow width; under μP at {eval}`sci(mup_best_loss["wide, μP"], 1)`.
#
# That is what this toy shows, and no more: one layer, two widths, {eval}`n_mup_seeds`
# starts, one number of steps, a grid of {eval}`n_mup_lrs` learning rates. The optimum
# moved with $1/\sqrt{d_k}$ and stayed with μP, as the argument says it should. That μP's
# settings carry over across real models, at widths in the thousands, is the paper's
# result, not this book's. Models trained in 2026 also bound the scores as they grow in
# training: a normalisation of each query and key (QK-norm) or a cap on each score (logit
# soft-capping), both computed in [Chapter 11](11_modern_attention.ipynb).

# %% [markdown]
# ## Summary
#
# - The backward pass of attention is five lines (equation {eq}`eq-ch8-batched`): $dV = A^\top
#   dO$, $dA = dO\,V^\top$, the softmax Jacobian's row step
#   $dS = A \odot (dA - \mathrm{rowsum}(dA \odot A))$, then $dQ = dS\,K/\sqrt{d_k}$ and
#   $dK = dS^\top Q/\sqrt{d_k}$. `ac.attention_backward` computes it with the forward's masks,
#   scale and broadcasting; finite differences and PyTorch agree with it.
# - A masked weight passes no gradient, and a key no query sees gets none; the row term of $dS$
#   is $\mathrm{rowsum}(dO \odot O)$, without the $L \times S$ matrices.
# - Trained from random numbers by {eval}`n_steps` steps of gradient descent, one layer found
#   Chapter 5's "who did what" pattern on a sentence it never saw, sharper than the hand-made
#   one; its $W_Q W_K^\top$ differs entry by entry from the design because softmax ignores row
#   shifts and the features overlap, but the scores it produces ask the same questions.
# - At $d_k =$ {eval}`d_k_big` without $1/\sqrt{d_k}$, most rows start saturated and their
#   gradients vanish; within {eval}`big_steps` steps the loss stalls at the SGD learning
#   rates we tried up to 1 (and diverges at 2), and Adam at {eval}`plain(adam_lr)` does not
#   rescue it. The total gradient norm is not what vanishes; the saturated rows' gradients are.
#   From a start $d_k^{-1/4}$ smaller, whose scores equal the scaled model's, it trains, and
#   with the learning rate of $W_Q$ and $W_K$ divided by $\sqrt{d_k}$ it is the scaled run, to
#   rounding error: the scale sets the start (and the step of $W_Q$, $W_K$).
# - *Going further:* unscaled, the loss also stalls with Adam at every learning rate from
#   {eval}`plain(adam_lrs[0])` to {eval}`plain(adam_lrs[-1])` (one seed), whose steps of
#   about the learning rate saturate the rows that were not; over five seeds, SGD unscaled ends
#   {eval}`dec(ranges["unscaled / scaled"][0], 1)` to
#   {eval}`dec(ranges["unscaled / scaled"][1], 1)` times higher than scaled.
# - *Going further:* the scale does not make one learning rate right for every $d_k$: on this
#   toy Adam's best learning rate fell from
#   {eval}`plain(mup_range["narrow"][0])`–{eval}`plain(mup_range["narrow"][1])` at
#   $d_k =$ {eval}`base_width` to
#   {eval}`plain(mup_range["wide"][0])`–{eval}`plain(mup_range["wide"][1])` at
#   $d_k =$ {eval}`wide_width`, and with μP's scale $c/d_k$ it stayed at
#   {eval}`plain(mup_range["wide, μP"][0])`–{eval}`plain(mup_range["wide, μP"][1])`
#   ({eval}`n_mup_seeds` starts; that μP's settings carry over on real models is the
#   result of [Yang et al. (2021)](references.md)).
#
# ## Exercises
#
# ```{exercise} dV by hand
# :label: ex-ch8-dv-by-hand
#
# For the worked example with a new $\mathbf g = \partial L/\partial \mathbf o$ (printed
# below), compute $\partial L/\partial \mathbf v_j$ for the three values, as a 3 × 2 list.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# $\mathbf o = \sum_j w_j \mathbf v_j$: how does $\mathbf o$ change when $\mathbf v_j$ moves?
# The weights are {eval}`dec(weights)`.
# ```

# %%
g_ex = ch8.dv_by_hand.inputs[0]
print("dL/do =", vector(g_ex))
answer = ...  # [[., .], [., .], [., .]]
ch8.dv_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch8-dv-by-hand
# :class: dropdown
#
# $\partial L/\partial \mathbf v_j = w_j\,\mathbf g$: each row is the weight times
# {eval}`vector(g_ex)`.
#
# ```python
# answer = [[0, 0.401], [0, 0.198], [0, 0.401]]
# ch8.dv_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} One row of the softmax step
# :label: ex-ch8-ds-row
#
# A row of weights $a$ and its $dA$ are printed below. Compute the row of $dS$ (equation
# {eq}`eq-ch8-ds`), three numbers.
# ```

# %%
a_ex, dA_ex = ch8.ds_row_by_hand.inputs
print("a =", vector(a_ex), "  dA =", vector(dA_ex))
answer = ...  # three numbers
ch8.ds_row_by_hand.check(answer)

# %% [markdown]
# ````{solution} ex-ch8-ds-row
# :class: dropdown
#
# The weighted mean is $a \cdot dA = 0.5 - 0.6 + 0.6 = 0.5$; then $dS_j = a_j(dA_j - 0.5)$:
# $0.5 \times 0.5$, $0.3 \times (-2.5)$ and $0.2 \times 2.5$. They sum to zero.
#
# ```python
# answer = [0.25, -0.75, 0.5]
# ch8.ds_row_by_hand.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: the queries' gradient
# :label: ex-ch8-bug-query-gradient
#
# This function was meant to return $dQ$ of equation {eq}`eq-ch8-batched`. It passes a check
# of its shapes but not of its numbers. Copy it as `fixed_query_gradient`, fix the one line,
# and run the check.
# ```

# %%
ch8.query_gradient.show()


# %%
def fixed_query_gradient(d_out, Q, K, V):
    raise NotImplementedError  # copy the function above here and fix it


ch8.query_gradient.check(fixed_query_gradient)

# %% [markdown]
# ````{solution} ex-ch8-bug-query-gradient
# :class: dropdown
#
# `dS = A * dA` drops the second term of the softmax step. Raising one score takes weight from
# every other key, which is what $-\mathrm{rowsum}(dA \odot A)$ accounts for.
#
# ```python
# def fixed_query_gradient(d_out, Q, K, V):
#     d_k = Q.shape[-1]
#     A = ac.attention_weights(Q, K)  # [..., L, S]
#     dA = d_out @ np.swapaxes(V, -1, -2)  # [..., L, S]
#     dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))  # the fix
#     return dS @ K / math.sqrt(d_k)  # [..., L, d_k]
#
#
# ch8.query_gradient.check(fixed_query_gradient)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: the keys' gradient
# :label: ex-ch8-bug-key-gradient
#
# This one returns $dK$ for self-attention, where queries and keys are equally many; its
# result even has the right shape. Copy it as `fixed_key_gradient` and fix it.
# ```

# %%
ch8.key_gradient.show()


# %%
def fixed_key_gradient(d_out, Q, K, V):
    raise NotImplementedError  # copy the function above here and fix it


ch8.key_gradient.check(fixed_key_gradient)

# %% [markdown]
# ````{solution} ex-ch8-bug-key-gradient
# :class: dropdown
#
# Row $j$ of $dK$ gathers $dS_{ij}\,\mathbf q_i$ over the queries $i$: column $j$ of $dS$, so
# $dS^\top Q$. `dS @ Q` has the same shape only because $L = S$; with $L \ne S$ it would fail.
#
# ```python
# def fixed_key_gradient(d_out, Q, K, V):
#     d_k = Q.shape[-1]
#     A = ac.attention_weights(Q, K)
#     dA = d_out @ np.swapaxes(V, -1, -2)
#     dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
#     return np.swapaxes(dS, -1, -2) @ Q / math.sqrt(d_k)  # the fix: dS transposed
#
#
# ch8.key_gradient.check(fixed_key_gradient)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict: which gradient vanishes?
# :label: ex-ch8-which-vanishes
#
# Two layers start from random queries and keys whose components have variance 1, one with
# $d_k = 4$, one with $d_k = 256$, both *without* the $1/\sqrt{d_k}$. Which gradients shrink
# towards zero at the start, and in which layer? Choose one of the options printed below.
# ```

# %%
ch8.which_vanishes.print_options()
answer = ...  # one of the options, as a string
ch8.which_vanishes.check(answer)

# %%
# see it happen: 100 random sentences of 3 tokens, unscaled, values of 2 features as in the
# worked example
for d_try in (4, 256):
    r = np.random.default_rng(0)
    Q_try, K_try = (r.normal(size=(100, 3, d_try)) for _ in range(2))  # variance 1
    V_try, dO_try = (r.normal(size=(100, 3, 2)) for _ in range(2))
    grads = ac.attention_backward(dO_try, Q_try, K_try, V_try, scale=1.0)
    medians = [np.median(np.linalg.norm(gr, axis=-1)) for gr in grads]  # one per row
    print(f"d_k = {d_try:3}: median |dQ_i| {medians[0]:.2g}, |dK_j| {medians[1]:.2g},", end="")
    print(f" |dV_j| {medians[2]:.2g}")

# %% [markdown]
# ````{solution} ex-ch8-which-vanishes
# :class: dropdown
#
# At $d_k = 256$ the unscaled scores spread with a standard deviation near 16, the rows
# saturate and $dS$, the softmax's share, is nearly zero in the saturated rows; $dQ$ and $dK$ are
# made from $dS$, so both shrink, though not alike. A query's gradient comes from its own row
# alone, and in a saturated row it vanishes. A key's gradient collects from every query's row,
# and one row that is not saturated is enough to give it some: the cell above prints a median
# $\lVert dK_j\rVert$ far smaller than at $d_k = 4$ but not close to zero. $dV =
# A^\top dO$ does not pass through the softmax and keeps its size.
#
# ```python
# ch8.which_vanishes.check("dQ and dK, at d_k = 256")
# ```
# ````

# %% [markdown]
# ```{exercise} The missing entry
# :label: ex-ch8-missing-entry
#
# Two entries of a row of $dS$ are printed below; the third was lost. Give it without knowing
# the weights or $dA$, and say why you can.
# ```

# %%
print("two entries of a row of dS:", vector(ch8.missing_entry.inputs[0]))
answer = ...  # one number
ch8.missing_entry.check(answer)

# %% [markdown]
# ````{solution} ex-ch8-missing-entry
# :class: dropdown
#
# A row of $dS$ always sums to zero: $\sum_j a_j(dA_j - m) = m - m \sum_j a_j =
# 0$, where $m = \sum_i a_i\,dA_i$ (the weighted mean of $dA$) and the weights $a_j$ sum to 1. (The same fact, seen from the
# forward pass: adding a constant to every score of a row changes no weight.) So the third entry
# is minus the sum of the other two.
#
# ```python
# answer = -0.104
# ch8.missing_entry.check(answer)
# ```
# ````
