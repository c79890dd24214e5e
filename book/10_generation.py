# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Generating text one token at a time (한 토큰씩 생성하기)
#
# Every chapter so far computed attention over a whole sentence at once. A chat model uses it
# to write: given a prompt, it produces one token, appends it to the text, and produces the
# next one from everything written so far, again and again. This is autoregressive generation
# (자기회귀 생성), and each of its steps runs attention once more, for the one new token. This
# chapter follows that loop by hand on the sentence of [Chapter 5](05_projections.ipynb), and
# finds that generation's cost, memory and bugs are not those of
# [Chapter 9](09_cost.ipynb). What a server holds is not the $n \times n$ weights but the keys
# and values of every past token, and the way today's models lay out their heads exists to
# shrink exactly that.
#
# After this chapter you will be able to do the following; the last two are the *Going further*
# sections' and a first reading can leave them:
#
# - run prefill (프리필), one causal pass over the prompt, and then decoding (디코딩) steps,
#   one new query against the cached keys and values, by hand, and show that together they
#   give exactly the rows of the causal pass over the whole text;
# - run a decoding step with rotary positions, the cached keys turned at their own positions,
#   and spot the off-by-one and left-padding position bugs;
# - say what the KV cache (KV 캐시) stores, $2 \cdot h_{kv} \cdot d_\text{head} \cdot n$
#   numbers per layer, and work out its memory for a real model;
# - count what one generated token costs, $O(n \cdot d)$, against prefill's
#   $O(n^2 \cdot d)$, and explain from its FLOPs per byte, with the weights' bytes beside the
#   cache's, why decoding waits for memory rather than for arithmetic;
# - turn a decoding step's output into the next token, greedily or by temperature sampling over
#   a toy vocabulary, and feed that token's key and value to the next step;
# - spot the trap of `is_causal=True` with one new query, and write the mask that is right;
# - compute multi-query and grouped-query attention by hand, and say how much they shrink the
#   cache;
# - *(going further)* measure a decoding step's time and bytes per second on your own machine;
# - *(going further)* name what serving systems do beyond this: paged memory, sliding windows,
#   quantised caches, continuous batching, prefix caching, split-KV decoding and disaggregated
#   prefill.
#
# **The core of this chapter** is one decoding step: the new token's query against the cached
# keys and values, which with the prefill gives exactly the causal pass. The core sections build
# it and what follows from it: [prefill](10_generation.ipynb#prefill-the-prompt-in-one-causal-pass) and
# [decoding](10_generation.ipynb#decoding-one-new-query-against-the-cache) by hand,
# [picking the next word](10_generation.ipynb#picking-the-next-word-greedy-and-temperature-sampling),
# [the cache with RoPE](10_generation.ipynb#the-cache-with-rotary-positions-rope),
# [what the cache holds](10_generation.ipynb#what-the-cache-holds-and-how-much-kv),
# [what a token costs](10_generation.ipynb#what-a-generated-token-costs),
# [the `is_causal` trap](10_generation.ipynb#the-convention-trap-is-causal-true-with-one-new-query) and
# [MQA and GQA](10_generation.ipynb#sharing-keys-and-values-across-heads-mqa-and-gqa). The sections marked
# *Going further* time a decoding step on your machine and survey what serving systems do; a
# first reading can skip them, and no core section needs them.

# %%
import functools
import math
import operator
import time

import attn_core as ac
import numpy as np
from attn_book.data import (
    FEATURES,
    GENERATED_KO,
    SENTENCE_KO,
    feature_vectors,
    sentence_projections,
)
from attn_book.exercises import ch10_generation as ch10
from attn_book.figures import Figures
from attn_book.i18n import word
from attn_book.plots import plot_decode_time, plot_token_heatmaps
from attn_book.prose import dec, grouped, percent, plain, sci, vector
from attn_book.tables import step_table
from attn_book.timing import (
    last_level_cache,
    loglog_fit,
    machine,
    one_blas_thread,
    processor_clock,
    start_beyond_cache,
    steepest_step,
    timed,
)
from attn_book.widgets import MemoryCalculator

figures = Figures(chapter=10)
chapter_start = time.perf_counter()

# %% [markdown]
# ## The prompt and what the model writes
#
# The prompt is the sentence of Chapters 4 and 5, "나는 사과를 먹었다" (I ate an apple). The model goes on
# with "그리고 배를 샀다" (and bought a pear). Which word comes next is chosen by the model's
# last layer, a softmax over its whole vocabulary, which this book builds only as a toy (below,
# after the decoding steps): we take the three words as given and follow what attention does
# while they are written.
# [Chapter 5](05_projections.ipynb) gave every word four features and chose $W_Q$, $W_K$ and
# $W_V$ so that the weights can be read; the new words use the same ones. 그리고 ("and") has
# none of the four, 배를 (a pear, with the object marker) is a noun with -를 like 사과를, and
# 샀다 ("bought") is a verb like 먹었다.

# %%
prompt = list(SENTENCE_KO)  # 나는, 사과를, 먹었다
generated = list(GENERATED_KO)  # 그리고, 배를, 샀다
tokens = prompt + generated
X = feature_vectors(tokens)  # [n, d_model] = [6, 4]
W_Q, W_K, W_V = sentence_projections()  # [4, 3] each, chapter 5's
n_prompt, n_total, d_k = len(prompt), len(tokens), W_K.shape[1]
features = FEATURES  # noun, verb, -는, -를
step_table({f: X[:, i] for i, f in enumerate(features)}, index=tokens, digits=0)

# %% [markdown]
# ## What training computes: the causal pass over all six words
#
# If the whole text is known, as it is in training, one causal pass computes every row at
# once, with the causal mask (인과 마스크) of [Chapter 7](07_heads_and_masks.ipynb): word $t$
# sees the words $0$ to $t$ and nothing later.

# %%
Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # [6, 4] @ [4, 3] -> [6, 3] each
causal_weights = ac.attention_weights(Q, K, is_causal=True)  # [6, 6]
full = causal_weights @ V  # [6, 6] @ [6, 3] -> [6, 3]

# %% tags=["hide-input"]
figures.show(
    plot_token_heatmaps(
        [
            {
                "matrix": causal_weights,
                "hidden": ~ac.causal_mask(n_total),
                "rows": tokens,
                "cols": tokens,
                "title": "causal weights, all six words",
            }
        ],
        xlabel="key (the words seen)",
        ylabel="query",
    ),
    "fig-causal",
    "The causal pass over the prompt and the three words written after it: "
    "row $t$ attends to words $0$ to $t$ only (grey: masked).",
)

# %% [markdown]
# Row $t$ of {eval}`figures.ref("fig-causal")` uses the query of word $t$ and the keys and
# values of words $0$ to $t$:
#
# $$
# \mathbf o_t = \sum_{j \le t} \mathrm{softmax}_j\!\left(
#   \frac{\mathbf q_t \cdot \mathbf k_j}{\sqrt{d_k}}\right) \mathbf v_j .
# $$ (eq-ch10-row)
#
# While generating, word $t + 1$ does not exist before step $t$ is done, so the rows cannot be
# computed at once. But {eq}`eq-ch10-row` says something useful the other way round: when word
# $t$ arrives, the keys and values of the words before it are already computed, and nothing
# that comes later will change them. So keep them. That is the KV cache.
#
# ## Prefill: the prompt in one causal pass (프리필)
#
# Generation starts with the whole prompt, which is known: one causal pass over its
# {eval}`n_prompt` words computes their queries, keys and values, keeps the keys and values
# in the cache, and gives the prompt's rows. `ac.KVCache` appends keys $(\dots, t, d_k)$ and
# values $(\dots, t, d_v)$ along the positions' axis. In Hugging Face's transformers the same
# object is a `Cache`, which the model takes and returns as `past_key_values`: `DynamicCache`,
# the default, grows as tokens arrive, as `ac.KVCache` does, and `StaticCache` allocates its
# maximum length at once, so that every step has the same shapes, which lets `torch.compile`
# compile the step once instead of again as the shapes change
# ([Hugging Face, 2026](references.md)).

# %%
cache = ac.KVCache(max_length=n_total)
Q_prompt = X[:n_prompt] @ W_Q  # [3, 4] @ [4, 3] -> [3, 3]
K_prompt = X[:n_prompt] @ W_K  # [3, 3]
V_prompt = X[:n_prompt] @ W_V  # [3, 3]
cache.append(K_prompt, V_prompt)  # 3 positions held
out_prompt = cache.attend(Q_prompt)  # causal over the prompt: [3, 3]
np.testing.assert_allclose(out_prompt, full[:n_prompt])
cache

# %% [markdown]
# The prefill's rows are the first {eval}`n_prompt` rows of the full pass. In a real model
# the last of them, the output of "먹었다", goes up through the layers to the vocabulary
# softmax, which picks the first new word, 그리고.
#
# ## Decoding: one new query against the cache (디코딩)
#
# Now the loop. Each step takes the one new word, makes its query, key and value, appends
# the key and the value to the cache, and lets the new query attend to every position the
# cache holds, its own included. No causal mask is needed: every cached word is in the new
# word's past. (A batch padded on the left still needs its padding mask at every step, and a
# sliding-window layer its window; this one text with full attention needs neither.)
#
# One step, written once, runs for each of the three words in turn; each step's numbers
# are kept in `steps`, one dictionary per word, for the table and the text below:

# %%
steps = []  # one dictionary per generated word
for t in range(n_prompt, n_total):
    x_t = X[t]  # the new word: [d_model]
    q_t, k_t, v_t = x_t @ W_Q, x_t @ W_K, x_t @ W_V  # [4] @ [4, 3] -> [3]
    cache.append(k_t[None], v_t[None])  # [1, 3] each: one position more
    scores_t = cache.keys @ q_t  # [t + 1, 3] @ [3] -> [t + 1]
    exps_t = np.exp(scores_t / math.sqrt(d_k))  # e^(s / √3)
    weights_t = exps_t / exps_t.sum()  # [t + 1]
    out_t = weights_t @ cache.values  # [t + 1] @ [t + 1, 3] -> [3]
    np.testing.assert_allclose(cache.attend(q_t), out_t)
    step = dict(q=q_t, keys=cache.keys, values=cache.values, scores=scores_t, exps=exps_t)
    steps.append(step | dict(total=exps_t.sum(), weights=weights_t, out=out_t))

# %% tags=["hide-input"]
blank = [""] * n_total  # a word not yet written has no score at that step
step_table(
    {"key kⱼ": [vector(k) for k in K], "value vⱼ": [vector(v) for v in V]}
    | {
        f"{label}, step {i + 1}": [*step[name], *blank][:n_total]
        for i, step in enumerate(steps)
        for label, name in [("score", "scores"), ("weight", "weights")]
    },
    index=tokens,
)

# %% [markdown]
# **Step 1: 그리고.** It has none of the four features, so its query, key and value are
# all zero. A zero query scores 0 against every key, and the softmax of equal scores is
# uniform: the weights are {eval}`dec(steps[0]["weights"])`, a quarter each, and the output
# is the average of the four values, {eval}`vector(steps[0]["out"])`: a quarter of "who", of
# "what" and of "did" (the zero value of 그리고 itself is the fourth quarter). The plain
# softmax cannot look nowhere: its weights always sum to 1, so a query with nothing to ask
# for still spreads them over the keys. [Chapter 11](11_modern_attention.ipynb) returns to this
# with attention sinks, which give a row somewhere harmless to put its weight.
#
# **Step 2: 배를.** A noun with -를, so it asks, as 사과를 did in Chapter 5, for an action and
# an actor. By hand: the query {eval}`vector(steps[1]["q"])` scores
# {eval}`plain(steps[1]["scores"])` against the five keys, since only "나는" (the actor) and
# "먹었다" (the action) offer what it asks for. Divided by $\sqrt 3$ and exponentiated, the two
# scores of 2 give {eval}`dec(steps[1]["exps"][0])` each and the three zeros give 1; the sum
# is {eval}`dec(steps[1]["total"])`. So 배를 puts {eval}`dec(steps[1]["weights"][0])` on 나는
# and on 먹었다 and {eval}`dec(steps[1]["weights"][1])` on each of the others, and its output
# is {eval}`vector(steps[1]["out"])`: mostly who and did, with a little of the "what" of both
# objects. 그리고, whose zero value offers nothing, still takes
# {eval}`dec(steps[1]["weights"][3])` of the weight: the case of the attention sinks above.
#
# **Step 3: 샀다.** A verb asks what was acted on, the patient. Its query is
# {eval}`vector(steps[2]["q"])`, and the two objects offer it: 사과를 and 배를 score
# {eval}`plain(steps[2]["scores"][1])`, the other four 0. The sum is
# 2 × {eval}`dec(steps[2]["exps"][1])` + 4 = {eval}`dec(steps[2]["total"])`, so 샀다 puts
# {eval}`dec(steps[2]["weights"][1])` on each object and {eval}`dec(steps[2]["weights"][0])`
# on each other word, and its output is {eval}`vector(steps[2]["out"])`, mostly "what". It
# cannot tell that the pear is its own object and the apple belongs to 먹었다: nothing in
# these vectors says where a word is. That is the question of
# [Chapter 6](06_positions.ipynb).
#
# **The proof.** The prefill and the three decoding steps gave six rows. They are the rows
# of the causal pass over the whole text, to the last digits:

# %%
decoded = np.stack([step["out"] for step in steps])  # [3, 3]: one row a step
np.testing.assert_allclose(out_prompt, full[:n_prompt], rtol=1e-12)
np.testing.assert_allclose(decoded, full[n_prompt:], rtol=1e-12)
gap = np.abs(np.concatenate([out_prompt, decoded]) - full).max()
bool(gap < 1e-12)

# %% [markdown]
# They must be: row $t$ of {eq}`eq-ch10-row` needs $\mathbf q_t$ and the keys and values of
# words $0..t$, and the cache holds exactly those. In a model with many layers each layer
# keeps its own cache; a layer's keys and values are made from the layer below's outputs,
# which the causal mask also keeps from ever changing, so every layer's cache stays right.
# (The tests of `attn_core` check the same equality on random shapes, at every step, for
# batches and heads.) Without the cache, step $t$ would recompute the keys and values of all
# $t$ words, in every layer, only to get the same numbers again.
#
# ## Picking the next word: greedy and temperature sampling
#
# So far the next word was given. A model picks it: its last layer maps the output of the
# newest position to one score, a logit (로짓), for each word of its vocabulary, and a softmax
# turns the logits into probabilities. Here the vocabulary is the chapter's six words and the
# unembedding $W_U$ (the "LM head"; not attention's output projection $W_O$ of
# [Chapter 7](07_heads_and_masks.ipynb)) is a fixed random $3 \times 6$ matrix, untrained, so
# its choice means nothing; what matters is the loop. The toy applies $W_U$ straight to the
# attention output; in a real model the vector it reads has also passed $W_O$, the MLP, every
# later layer and a final norm. Greedy decoding (그리디 디코딩) takes the
# largest logit. Temperature sampling (온도 샘플링) divides the logits by a temperature $T$
# before the softmax and draws a word from the result: $T < 1$ sharpens the distribution
# toward the greedy word, $T > 1$ flattens it. After step 1 (그리고):

# %%
vocabulary = tokens  # a toy vocabulary: the chapter's six words
W_U = np.random.default_rng(0).standard_normal((d_k, len(vocabulary)))  # [3, 6], untrained
logits = steps[0]["out"] @ W_U  # 그리고's output: [3] @ [3, 6] -> [6], one score per word
greedy_word = vocabulary[int(np.argmax(logits))]  # the largest logit
greedy_logit = logits.max()
temperatures = [0.5, 1.0, 2.0]
probs = {T: ac.softmax(logits / T) for T in temperatures}  # [6] each, summing to 1
greedy_p = {T: p.max() for T, p in probs.items()}  # the greedy word's probability
sample_rng = np.random.default_rng(1)  # a fixed random state: the same draw on every run
sampled_word = vocabulary[sample_rng.choice(len(vocabulary), p=probs[1.0])]
step_table({"logit": logits} | {f"p, T = {T}": p for T, p in probs.items()}, index=vocabulary)

# %% [markdown]
# Greedy decoding picks {eval}`greedy_word`, whose logit {eval}`dec(greedy_logit)` is the
# largest; at $T = 1$ it has probability {eval}`dec(greedy_p[1.0])`, at $T = 0.5$
# {eval}`dec(greedy_p[0.5])` and at $T = 2$ {eval}`dec(greedy_p[2.0])`. One draw at
# $T = 1$, from the fixed random state, gives {eval}`sampled_word`. Whichever word is picked,
# the loop goes on the same way: the next step makes that word's query, key and value, appends
# the key and the value to the cache, and attends. Closing the loop with the greedy word:

# %%
x_picked = feature_vectors([greedy_word])[0]  # the picked word's four features
q_picked, k_picked, v_picked = x_picked @ W_Q, x_picked @ W_K, x_picked @ W_V  # [3] each
loop_cache = ac.KVCache()
loop_cache.append(K[: n_prompt + 1], V[: n_prompt + 1])  # the cache after step 1: 4 words
loop_cache.append(k_picked[None], v_picked[None])  # the next step appends the picked word
out_picked = loop_cache.attend(q_picked)  # [3]: the next step's output
n_cached = len(loop_cache)  # 5: the prompt, 그리고 and the picked word
print(n_cached, "positions cached; the next step's output:", vector(out_picked))

# %% [markdown]
# The cache now holds {eval}`n_cached` positions, the last of them the key
# {eval}`vector(k_picked)` and value {eval}`vector(v_picked)` of {eval}`greedy_word`, and the
# step's output is {eval}`vector(out_picked)`, the same as step 2's, since
# {eval}`greedy_word` and 배를 have the same four features: the toy cannot tell the two nouns
# apart, as step 3 found. Its logits would pick the word after that, and so
# on until an end-of-text token or a length limit. This chapter's story, in which 배를 follows
# 그리고, is what a trained $W_U$ (and a trained model beneath it) would have to choose.
#
# ## The cache with rotary positions (RoPE)
#
# Our toy has no position encoding; a model with rotary embeddings (RoPE,
# [Chapter 6](06_positions.ipynb)) needs one more precaution. The new token's query and key are
# rotated by its own position $t$ in the sequence, not by 0, although it is the only token
# the step computes; and the cache stores the keys *after* their rotation, so a cached key is
# rotated once, when it is made, at its own position, and never again (the values are not
# rotated). Then each score $\mathbf q_t \cdot \mathbf k_j$ is the rotated pair's, which
# depends on the positions only through the offset $t - j$, exactly as in the full causal
# pass. One step by hand: RoPE turns pairs of numbers, so each 3-number query and key gets a
# fourth, zero component (the scale stays $1/\sqrt 3$). The cache holds the first four words,
# turned at positions 0 to 3; the new word, 배를, is turned at position 4:

# %%
Q_pairs, K_pairs = np.pad(Q, ((0, 0), (0, 1))), np.pad(K, ((0, 0), (0, 1)))  # [6, 4] each
scale = 1 / math.sqrt(d_k)  # the chapter's 1/√3, not 1/√4
positions = np.arange(n_total)  # 0 … 5
Q_rot, K_rot = ac.rotary(Q_pairs, positions), ac.rotary(K_pairs, positions)  # [6, 4] each
rope_full = ac.scaled_dot_product_attention(Q_rot, K_rot, V, is_causal=True, scale=scale)

t_new = 4  # 배를
rope_cache = ac.KVCache(max_length=n_total)
rope_cache.append(K_rot[:t_new], V[:t_new])  # stored turned, each at its own position 0 … 3
q_new = ac.rotary(Q_pairs[t_new][None], [t_new])[0]  # turned at 4: [4]
k_new = ac.rotary(K_pairs[t_new][None], [t_new])  # [1, 4]
rope_cache.append(k_new, V[t_new][None])
scores_rope = rope_cache.keys @ q_new  # [5, 4] @ [4] -> [5]
out_rope = rope_cache.attend(q_new, scale=scale)  # [3]
np.testing.assert_allclose(out_rope, rope_full[t_new], rtol=1e-12)
step_table(
    {"score, no positions": steps[1]["scores"], "score, RoPE": scores_rope}, index=tokens[:5]
)

# %% [markdown]
# With positions, 배를's scores against 나는 (four places back) and 먹었다 (two back), 2 each
# without them, become {eval}`dec(scores_rope[0])` and {eval}`dec(scores_rope[2])`: the first
# pair of numbers turns by one radian a position, and Chapter 5's matrices were designed
# without positions, so the toy does not get better, only position-aware. What matters here
# is the check: the cached step's output, {eval}`vector(out_rope)`, is the full causal pass's
# row {eval}`t_new`.
#
# Two position bugs are classic here. **Off by one:** turning the new word by the cache's
# length *after* the append, {eval}`t_new` + 1, instead of by its own position.
# **Left padding:** a batch of prompts of different lengths is padded on the left, so that
# every text's newest word sits in the last column. If this prompt shares a batch with a text
# two words longer, its first real word sits in column 2. The prefill counts each text's
# positions from its own first real word (the padding mask tells where it is), but a decoding
# loop that takes the new word's position from its column turns 배를 by 6, not 4:

# %%
n_pad = 2  # pad slots on this text's left: the batch's other text is two words longer
wrong_position = {"off by one": t_new + 1, "column, not position": n_pad + t_new}
# the pads themselves are masked out of every row, so they change nothing else
wrong_gap = {}
for bug, pos in wrong_position.items():
    q_wrong = ac.rotary(Q_pairs[t_new][None], [pos])[0]
    wrong_cache = ac.KVCache(max_length=n_total)
    wrong_cache.append(K_rot[:t_new], V[:t_new])  # the prompt's keys, turned right
    wrong_cache.append(ac.rotary(K_pairs[t_new][None], [pos]), V[t_new][None])
    wrong_gap[bug] = np.abs(wrong_cache.attend(q_wrong, scale=scale) - rope_full[t_new]).max()
(pos_one, pos_column), (gap_one, gap_column) = wrong_position.values(), wrong_gap.values()
print(f"off by one            position {pos_one}: output off by {gap_one:.3f}")
print(f"column, not position  position {pos_column}: output off by {gap_column:.3f}")

# %% [markdown]
# The off-by-one output is off by {eval}`dec(wrong_gap["off by one"])` in its largest
# component, the column-counted one by {eval}`dec(wrong_gap["column, not position"])`; no
# error is raised, and the text simply gets worse. What matters is that every query and key
# of a text is counted the same way: had the prefill and the first step also turned 나는 …
# 그리고 by their columns, 2 to 5, every offset $t - j$ would be right again, since RoPE sees
# only offsets ([Chapter 6](06_positions.ipynb)). Counting from each text's first real word, in
# the prefill and at every step, is the convention that keeps them consistent, and the one
# Hugging Face's `generate` follows (`position_ids` are the attention mask's running sum minus
# one, with a dummy value in the pads).
#
# ## What the cache holds, and how much (KV 캐시)
#
# Per layer, for each of the $n$ positions held, each of the $h_{kv}$ key-value heads keeps
# one key and one value of $d_\text{head}$ numbers. With $b$ bytes per number and a batch of
# $B$ sequences, each with its own cache:
#
# $$
# \underbrace{2 \cdot h_{kv} \cdot d_\text{head} \cdot n}_{\text{numbers per layer}},
# \qquad
# \text{bytes} = 2 \cdot B \cdot \text{layers} \cdot h_{kv} \cdot d_\text{head} \cdot n
#   \cdot b .
# $$ (eq-ch10-kv-bytes)
#
# The factor 2 is the keys and the values. Our toy model has one layer and one head of
# $d_k =$ {eval}`d_k`, its numbers in float64 (8 bytes):

# %%
toy_bytes = ac.kv_cache_bytes(1, 1, d_k, n_total, 8)  # 1 layer, 1 head
held_bytes = cache.nbytes  # what the cache really holds
toy_bytes, held_bytes

# %% [markdown]
# Both say {eval}`plain(toy_bytes)` bytes: 2 × {eval}`n_total` positions × {eval}`d_k`
# numbers × 8 bytes. A real model is another matter. Take a shape like Llama 3.1 8B's
# ([Grattafiori et al., 2024](references.md)): 32 layers, 32 query heads of
# $d_\text{head} = 128$, 8 key-value heads (the next sections say why fewer), 2 bytes a number
# (the model is stored in bfloat16; float16 takes the same bytes), at its
# longest context of 128k (131,072) tokens (Llama 3.1 extended the first release's 8k).

# %%
GiB = 2**30
layers, heads, kv_heads, d_head = 32, 32, 8, 128  # Llama 3.1 8B's shape
n_long = 131072  # 128k tokens
kv_gib = ac.kv_cache_bytes(layers, kv_heads, d_head, n_long, 2) / GiB
per_token_kib = ac.kv_cache_bytes(layers, kv_heads, d_head, 1, 2) / 2**10
weights_cost = ac.attention_cost(1, heads, n_long, n_long, d_head, "float16")
weights_gib = weights_cost.score_bytes / GiB  # one layer's n × n weights
n_params = 8.03e9  # the model's parameters
params_gib = n_params * 2 / GiB  # in bfloat16, 2 bytes each
kv_gib, per_token_kib, weights_gib, params_gib

# %% [markdown]
# Every token adds {eval}`plain(per_token_kib)` KiB, and a sequence of 128k tokens holds
# {eval}`plain(kv_gib)` GiB of keys and values. [Chapter 9](09_cost.ipynb) found that the
# weights of a single layer at this length would take {eval}`grouped(weights_gib)` GiB, and
# that nobody holds them: a fast kernel computes them block by block and throws each block
# away. The KV cache is different. Every server holds it, for every sequence it serves, for as
# long as the sequence is being written: it grows with $n$, not $n^2$, and it is the price of
# not recomputing. At 128k tokens one sequence's cache is about as large as the model itself, whose
# 8.03 billion parameters take {eval}`dec(params_gib, 1)` GiB in bfloat16.
#
# The calculator below is [Chapter 9](09_cost.ipynb)'s, with a second bar: the KV cache of
# all layers. Slide the tokens, the layers and the KV heads, or serve a batch, and watch the
# green bar cross the laptop's and the GPU's memory. It computes in your browser, even on the
# static site; the sliders move with the arrow keys too.

# %%
calculator = MemoryCalculator(
    n=n_long,
    heads=heads,
    dtype="float16",
    kv_cache=True,
    layers=layers,
    kv_heads=kv_heads,
    d_head=d_head,
)
figures.show(
    calculator,
    "fig-kv-memory",
    "Top bar: one layer's attention weights, batch × heads × n² × bytes, "
    "which no one holds. Bottom bar: the KV cache of every layer, "
    "2 × batch × layers × KV heads × $d_\\text{head}$ × n × bytes, which every "
    "server holds. Log axis; dashed: a laptop's and a GPU's memory; "
    "ticks: the KV cache at 32k and 128k tokens.",
)

# %% [markdown]
# ## What a generated token costs
#
# A decoding step is one query against $n$ cached keys: $L = 1$, $S = n$ in Chapter 9's
# cost model. Its two products cost $2 \cdot 1 \cdot n \cdot d_\text{head}$ FLOPs each per
# head, $O(n \cdot d)$, where a prefill of $n$ tokens costs $O(n^2 \cdot d)$ (counted causal
# below: query $i$ meets keys $0..i$, about half the $n \times n$ square). The step must
# also read every cached key and value once. One layer of the model above:

# %%
contexts = [1024, 8192, 131072]
prefill = [ac.attention_cost(1, heads, n, n, d_head, causal=True) for n in contexts]
decode = [ac.attention_cost(1, heads, 1, n, d_head) for n in contexts]
cache_read = [
    ac.kv_cache_bytes(1, kv_heads, d_head, n, 2) for n in contexts
]  # one layer's cache, float16
group_size = heads // kv_heads  # query heads per key-value head
flops_per_byte = [c.matmul_flops / b for c, b in zip(decode, cache_read, strict=True)]
fp32_bytes = ac.kv_cache_bytes(1, heads, d_head, contexts[0], 4)  # no sharing
fp32_flops_per_byte = decode[0].matmul_flops / fp32_bytes  # float32, h_kv = h
ridge_h100 = 989 / 3.35  # H100 SXM (Chapter 9): dense bf16 TFLOP/s ÷ HBM3 TB/s
step_table(
    {
        "n": [f"{n:,}" for n in contexts],
        "causal prefill, GFLOP": [c.matmul_flops / 1e9 for c in prefill],
        "one decode step, MFLOP": [c.matmul_flops / 1e6 for c in decode],
        "cache read, MiB": [b / 2**20 for b in cache_read],
        "FLOPs per byte read": flops_per_byte,  # the same for every n
    },
    digits=1,
)

# %% [markdown]
# Whatever $n$ is, a decoding step does the same few FLOPs for each byte it reads: each
# cached number is used in one multiply-add for each query head that reads it, and here
# {eval}`group_size` query heads share each key-value head, so with 2 bytes a number
# that is {eval}`plain(flops_per_byte[0])` FLOPs per byte (for a kernel that reads each
# key-value head once for its whole group; copying the heads out first, as the `expand_kv`
# exercise below does, reads {eval}`group_size` times the bytes). A GPU does far more arithmetic
# than that in the time it takes to fetch a byte from its memory: an H100's ridge point
# (Chapter 9) is about {eval}`dec(ridge_h100, 0)` FLOPs per byte. There a decoding step
# spends its time waiting for memory (메모리 대역폭, memory bandwidth), not computing: it is
# memory-bound, as Chapter 9's roofline model puts its softmax passes. One core of a CPU is
# not so far ahead of its memory;
# [Going further: measure it on your machine](10_generation.ipynb#going-further-measure-it-on-your-machine)
# measures its ridge, to set beside these FLOPs per byte. Prefill is the opposite:
# every key it reads meets all $n$ queries, and with a fused kernel such as FlashAttention,
# which never writes the $n \times n$ scores out (Chapter 9), prefill is compute-bound.
#
# The cache is not all a step reads. Every layer's weight matrices, $W_Q$ to the MLP's, and
# the final unembedding are read once per step too: all the parameters but the input
# embedding table, of which a step looks up one row. At a batch of one sequence they are most
# of the bytes until the context is long. The whole model's step, all {eval}`layers` layers,
# at batch 1:

# %%
vocab_size, d_model = 128256, 4096  # Llama 3.1 8B's vocabulary and width
read_params = n_params - vocab_size * d_model  # all but the input embedding table
params_bytes = read_params * 2  # bfloat16, read once per step
model_cache_read = [ac.kv_cache_bytes(layers, kv_heads, d_head, n, 2) for n in contexts]
cache_share = [c / (c + params_bytes) for c in model_cache_read]  # of all bytes read
per_token_bytes = ac.kv_cache_bytes(layers, kv_heads, d_head, 1, 2)  # all layers
break_even = params_bytes / per_token_bytes  # tokens whose cache weighs as much as the model
weight_flops_per_byte = 2 * read_params / params_bytes  # one multiply-add per weight, 2 bytes
weights_read_gib = params_bytes / GiB
break_even_round = round(break_even, -3)
step_table(
    {
        "n": [f"{n:,}" for n in contexts],
        "weights read, GiB": [weights_read_gib] * len(contexts),
        "cache read, GiB": [b / GiB for b in model_cache_read],
        "cache's share of the bytes": [percent(c) for c in cache_share],
    },
    digits=2,
)

# %% [markdown]
# At batch 1 a short context's step is memory-bound because of the weights, and a long
# context's because of the cache. The weights' {eval}`dec(weights_read_gib, 1)` GiB are read
# at every step, each used in one multiply-add by the one new token: about
# {eval}`dec(weight_flops_per_byte, 1)` FLOP per byte, below the cache's. At
# {eval}`grouped(contexts[0])` tokens the cache is {eval}`percent(cache_share[0])` of the
# bytes read; the two weigh the same near {eval}`grouped(break_even_round)` tokens, a
# little short of the table's last row.
#
# Batching sequences helps the weights, which all sequences share and which are then read
# once for the whole batch, not attention: each sequence reads its own cache. So the larger
# the batch and the longer the contexts, the more of a step's bytes are caches.
# Queries that share one cache arise in chunked prefill, when several drafted tokens are
# verified at once (speculative decoding), and across the $g$ query heads of a GQA group (below), which is why GQA
# raises a decoding step's FLOPs per byte. MQA and GQA below, and much of what serving
# systems do, read fewer bytes per token.

# %% [markdown]
# ## The convention trap: `is_causal=True` with one new query
#
# [Chapter 7](07_heads_and_masks.ipynb) showed the trap on one new query: `is_causal=True`
# aligns the triangle at the top left, so a query after cached keys sees only the first.
# Here it is on this chapter's decoding step, then what the libraries do about it. Give the
# last step's query, the one of 샀다, the cached keys with `is_causal=True`:

# %%
last = steps[-1]  # 샀다's step: its query against the six cached keys
weights_trap = ac.attention_weights(last["q"], last["keys"], is_causal=True)  # [6]
out_trap = ac.scaled_dot_product_attention(
    last["q"], last["keys"], last["values"], is_causal=True
)  # [3]
print("weights:", dec(weights_trap), "  output:", vector(out_trap))

# %% [markdown]
# The weights are {eval}`plain(weights_trap)`: the new word attends to 나는 alone, and its
# output is the value of 나는, {eval}`vector(out_trap)`, instead of {eval}`vector(last["out"])`. No
# error, no warning, just a wrong number: as in Chapter 7, the top-left triangle, right when
# the queries and the keys are the same positions ($L = S$: training, prefill), treats the
# decoding query, the *last* position, as position 0.
#
# Two ways do it right. For one new query, pass no mask at all: every cached key is in its
# past. For $L > 1$ new queries at once (a prompt fed in chunks, or several tokens checked
# together), use Chapter 7's bottom-right triangle (query $i$ is position $S - L + i$ and
# sees keys $0$ to $S - L + i$), which `ac.causal_mask_lower_right(L, S)` builds and
# `ac.KVCache.attend` uses. Here are both masks for the last two words fed together, a
# chunk of two queries against all the keys:

# %%
L_chunk = 2  # 배를 and 샀다, fed together
Q_chunk = Q[n_total - L_chunk :]  # [2, 3]
top_left = ac.attention_weights(Q_chunk, K, is_causal=True)  # [2, 6]
lower_right = ac.causal_mask_lower_right(L_chunk, n_total)  # [2, 6] bool
bottom_right = ac.attention_weights(Q_chunk, K, lower_right)  # [2, 6]
np.testing.assert_allclose(bottom_right, causal_weights[n_total - L_chunk :])

# %% tags=["hide-input"]
chunk_rows = tokens[n_total - L_chunk :]
figures.show(
    plot_token_heatmaps(
        [
            {
                "matrix": top_left,
                "hidden": ~ac.causal_mask(L_chunk, n_total),
                "rows": chunk_rows,
                "cols": tokens,
                "title": "is_causal=True: top-left",
            },
            {
                "matrix": bottom_right,
                "hidden": ~lower_right,
                "rows": chunk_rows,
                "cols": tokens,
                "title": "causal_mask_lower_right",
            },
        ],
        xlabel="key",
        ylabel="new query",
    ),
    "fig-alignment",
    "Two new queries (배를, 샀다) against six cached keys. Left: "
    "`is_causal=True` aligns the triangle top-left, as if the queries were "
    "words 0 and 1. Right: aligned bottom-right, each query sees its past "
    "and itself; these are the last two rows of {causal_figure}.",
    causal_figure=figures.ref("fig-causal"),
)

# %% [markdown]
# The libraries disagree, which is why the trap catches people who move between them
# ({eval}`figures.ref("fig-alignment")`). `F` is `torch.nn.functional`:
#
# | API | causal, when $L \ne S$ | one new query against 6 keys |
# |---|---|---|
# | `ac.attention_weights(..., is_causal=True)`, `ac.causal_mask(L, S)` | top-left | key 0 only: {eval}`plain(weights_trap)` |
# | `F.scaled_dot_product_attention(..., is_causal=True)` | top-left | key 0 only (as PyTorch documents it: the same as `causal_upper_left(L, S)`; checked below where installed) |
# | `torch.nn.attention.bias.causal_lower_right(L, S)` as `attn_mask` | bottom-right | all six |
# | `ac.causal_mask_lower_right(L, S)`, `ac.KVCache.attend` | bottom-right | all six: {eval}`dec(last["weights"])` |
# | flash-attn's `flash_attn_func(..., causal=True)`, from version 2.1 | bottom-right | all six |
#
# The flash-attn library changed its convention from top-left to bottom-right in version 2.1
# ([Dao, 2023a](references.md)), so code that was right with one release is wrong with the
# other. Name the alignment you mean, and test a decoding step against the full causal pass,
# as this chapter did.
#
# ## Sharing keys and values across heads: MQA and GQA
#
# [Chapter 7](07_heads_and_masks.ipynb) gave every head its own queries, keys and values. The
# cache holds every head's keys and values, and {eq}`eq-ch10-kv-bytes` grows with their
# number $h_{kv}$. Multi-query attention (MQA, 멀티쿼리 어텐션) keeps the many query heads
# but gives them a single key-value head to share ([Shazeer, 2019](references.md));
# grouped-query attention (GQA, 그룹 쿼리 어텐션) is the middle way, $h_{kv}$ key-value heads,
# each shared by a group of $g = h / h_{kv}$ query heads
# ([Ainslie et al., 2023](references.md)). The queries still differ from head to head, so
# the heads still ask different questions, of the same keys and values.
#
# By hand, one decoding step with 4 query heads and 2 key-value heads of $d_\text{head} = 2$,
# over 3 cached positions. Key-value head 0 holds the keys and values of the worked example of
# [Chapter 4](04_worked_example.ipynb):

# %%
K_kv = np.array(
    [
        [[1, 0], [0, 1], [1, 1]],  # KV head 0: Chapter 4's keys
        [[0, 2], [2, 0], [0, 0]],  # KV head 1
    ],
    dtype=float,
)  # [h_kv, S, d_head] = [2, 3, 2]
V_kv = np.array(
    [
        [[2, 0], [0, 2], [1, 1]],  # KV head 0: Chapter 4's values
        [[1, 0], [0, 1], [1, 1]],  # KV head 1
    ],
    dtype=float,
)  # [2, 3, 2]
Q_heads = np.array([[[1, 0]], [[0, 1]], [[1, 0]], [[0, 1]]], dtype=float)
group = Q_heads.shape[0] // K_kv.shape[0]  # [h, L, d_head] = [4, 1, 2]; g = 2
reads = [h // group for h in range(Q_heads.shape[0])]  # head h reads KV head h // g
by_hand = np.stack(
    [ac.scaled_dot_product_attention(Q_heads[h], K_kv[j], V_kv[j]) for h, j in enumerate(reads)]
)  # [4, 1, 2]: one output per query head
gqa = ac.scaled_dot_product_attention(Q_heads, K_kv, V_kv, enable_gqa=True)
np.testing.assert_allclose(gqa, by_hand)
gqa_scores = np.stack(
    [Q_heads[h] @ K_kv[j].T for h, j in enumerate(reads)]
)  # [4, 1, 3]: each head's scores against the keys it reads
gqa_weights = ac.attention_weights(Q_heads, K_kv, enable_gqa=True)
step_table(
    {
        "reads KV head": reads,
        "query": [vector(q) for q in Q_heads[:, 0]],
        "scores": [plain(s) for s in gqa_scores[:, 0]],
        "weights": [dec(w) for w in gqa_weights[:, 0]],
        "output": [vector(o) for o in gqa[:, 0]],
    },
    index=[f"query head {h}" for h in range(Q_heads.shape[0])],
    digits=0,
)

# %% [markdown]
# Query heads 0 and 1 share key-value head 0. Head 0's query is Chapter 4's
# {eval}`vector(Q_heads[0, 0])`, so its weights are Chapter 4's {eval}`dec(gqa_weights[0, 0])`
# and its output {eval}`vector(gqa[0, 0])`; head 1 asks with {eval}`vector(Q_heads[1, 0])`,
# scores {eval}`plain(gqa_scores[1, 0])` against the same keys, and gets
# {eval}`vector(gqa[1, 0])`. Heads 2 and 3 share key-value head 1, whose keys they score
# {eval}`plain(gqa_scores[2, 0])` and {eval}`plain(gqa_scores[3, 0])`: each puts most of its
# weight on another key.
# `enable_gqa=True` lets `ac.scaled_dot_product_attention` take the keys and values with
# fewer heads (axis $-3$) than the queries, as PyTorch's `F.scaled_dot_product_attention`
# does. It repeats each key-value head $g$ times consecutively: heads 0, 0, 1, 1, as
# `torch.repeat_interleave` orders them, not 0, 1, 0, 1 as `np.tile` would:

# %%
repeated_keys, _ = ac.repeat_kv_heads(Q_heads, K_kv)  # [4, 3, 2]
repeated_keys[:, 0]  # each head's first key: KV heads 0, 0, 1, 1

# %% [markdown]
# Multi-query attention is the same call with one key-value head, which all four query heads
# read:

# %%
mqa = ac.scaled_dot_product_attention(Q_heads, K_kv[:1], V_kv[:1], enable_gqa=True)  # [4, 1, 2]
# numbers cached per position and layer, 2 · h_kv · d_head (1 "byte" a number)
numbers_mha = ac.kv_cache_bytes(1, 4, 2, 1, 1)  # h_kv = 4: a KV head per query head
numbers_gqa = ac.kv_cache_bytes(1, 2, 2, 1, 1)  # h_kv = 2
numbers_mqa = ac.kv_cache_bytes(1, 1, 2, 1, 1)  # h_kv = 1
print("MQA outputs:", [vector(o) for o in mqa[:, 0]])
numbers_mha, numbers_gqa, numbers_mqa

# %% [markdown]
# Under MQA, heads 2 and 3 read key-value head 0 too and give {eval}`vector(mqa[2, 0])` and
# {eval}`vector(mqa[3, 0])`, the outputs of heads 0 and 1. The cache shrinks by the group
# size: per position and layer, ordinary multi-head attention (MHA) keeps
# {eval}`numbers_mha` numbers (a key and a value for each of 4 heads), GQA with 2 key-value
# heads {eval}`numbers_gqa`, MQA {eval}`numbers_mqa`. For the Llama 3.1 8B shape, with
# 8 key-value heads for its 32 query heads:

# %%
kv_mha_gib = ac.kv_cache_bytes(layers, heads, d_head, n_long, 2) / GiB
kv_mqa_gib = ac.kv_cache_bytes(layers, 1, d_head, n_long, 2) / GiB
kv_mha_gib, kv_gib, kv_mqa_gib  # 32, 8 and 1 key-value heads, 128k tokens

# %% [markdown]
# At 128k tokens: {eval}`plain(kv_mha_gib)` GiB with a key-value head per query head,
# {eval}`plain(kv_gib)` GiB with GQA's 8, and {eval}`plain(kv_mqa_gib)` GiB with MQA's one. A
# decoding step reads that many fewer bytes for the same FLOPs, which is also why it runs
# faster (the table above counted {eval}`plain(flops_per_byte[0])` FLOPs per byte with
# $g =$ {eval}`group_size`). The price is quality: sharing keys and values leaves the heads
# fewer ways to differ. Ainslie et al. found that GQA comes close to the quality of
# multi-head attention at nearly MQA's speed, and that a model trained with multi-head
# attention can be converted to it with 5% of its pre-training compute; Llama 3.1 8B and
# Mistral 7B ([Jiang et al., 2023](references.md)) both use 8 key-value heads for 32 query
# heads.
#
# Where PyTorch is installed, the cell below checks this chapter's two claims about it: its
# `enable_gqa=True` gives the same outputs, and its `is_causal=True` gives one new query the
# weights of key 0 alone (this chapter needs PyTorch nowhere else; without it the cell says
# so and skips).

# %% tags=["nbval-ignore-output"]
try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("PyTorch is not installed here: the comparison is skipped.")
else:
    t = torch.from_numpy
    torch_gqa = F.scaled_dot_product_attention(t(Q_heads), t(K_kv), t(V_kv), enable_gqa=True)
    gqa_gap = np.abs(torch_gqa.numpy() - gqa).max()
    one_hot = t(np.eye(n_total))  # values that make the output the weights
    torch_trap = F.scaled_dot_product_attention(
        t(last["q"][None]), t(last["keys"].copy()), one_hot, is_causal=True
    )  # the keys are a read-only view of the cache: torch wants a copy
    print(f"enable_gqa=True: PyTorch and attn_core differ by {gqa_gap:.1e}")
    print("is_causal=True, 1 query, 6 keys:", torch_trap.numpy().round(3))

# %% [markdown]
# ## Going further: measure it on your machine
#
# [What a generated token costs](10_generation.ipynb#what-a-generated-token-costs) counted a decoding step's
# FLOPs and bytes; this section times them on the machine that runs the notebook, to see
# whether the time grows with $n$ as the count says and where the step lies against this
# processor's own ridge. The cell below times the two products of one decoding step (the floor
# any implementation pays; the softmax in between is cheap at $L = 1$) against a cache of one
# layer of 8 heads of 64, float32, for $n = 1024$ to $65536$. Then the same products for 64
# queries at once against the largest cache, as a chunk of prompt in prefill would, and a
# product of two $1024 \times 1024$ matrices. Each time is the fastest of several runs, in
# processor time, with the matrix library on one thread (the box below says how). Its output
# is your machine's.
#
# ```{admonition} How the timing works
# :class: dropdown
#
# The products are written into buffers made once, so that only the products are timed. As
# in [Chapter 9](09_cost.ipynb), each time is the fastest of several runs after one untimed
# run (other programs can only slow a run down), with the median and the slowest kept beside
# it, counted in this process's processor time (where that clock's steps are coarse, as on
# Windows, in the wall clock's), and the matrix library runs on one thread where it can be
# pinned. The printed lines name the clock, its step and the calls per timing. The whole sweep over $n$ runs several times, to show how
# much one run differs from the next.
#
# These numbers are measured, not computed from a fixed random seed: only running the cells
# reproduces them, and the lines the timing cell printed say whether the matrix library was
# held to one thread and name the processor, its vector extensions, the library's kernel and
# threads, and the load average, how many programs wanted the processor at the time.
# ```

# %%
chunk = 64  # queries at once, as in a chunk of prefill


def two_products(q, keys_t, w, values):
    """q [h, L, d] @ keys_t [h, d, n] and w [h, L, n] @ values [h, n, d], into buffers."""
    scores, out = q @ keys_t, w @ values  # the buffers, made once
    return lambda: (np.matmul(q, keys_t, out=scores), np.matmul(w, values, out=out))


# %% tags=["nbval-ignore-output"]
timing_rng = np.random.default_rng(0)
# processor time where its steps are fine (Linux, macOS), else the wall clock (Windows)
cpu_time, cpu_tick, clock_name = processor_clock()
n_sweeps = 3  # the whole sweep, run again: how much a speed moves from run to run
decode_repeats = 9  # timings of each length in each sweep
h_t, d_t = 8, 64  # heads, d_head
timed_n = [1024 * 2**i for i in range(7)]  # 1024 ... 65536
# one cache made for the longest length, read up to n: each head's n rows lie together
K_all, V_all = timing_rng.random((2, h_t, timed_n[-1], d_t), dtype=np.float32)
sweep_times = []  # per sweep: the Timing of each n
with one_blas_thread() as blas_threads:  # None: the library's threads were left as they were
    for _sweep in range(n_sweeps):
        sweep_times.append([])
        for n in timed_n:
            K_t, V_t = K_all[:, :n], V_all[:, :n]  # the first n positions, as in a cache
            q_t = timing_rng.random((h_t, 1, d_t), dtype=np.float32)  # one query
            w_t = timing_rng.random((h_t, 1, n), dtype=np.float32)  # its weights
            decode_step = two_products(q_t, np.swapaxes(K_t, -1, -2), w_t, V_t)
            sweep_times[-1].append(
                timed(decode_step, repeats=decode_repeats, clock=cpu_time, tick=cpu_tick)
            )
    q_c = timing_rng.random((h_t, chunk, d_t), dtype=np.float32)
    w_c = timing_rng.random((h_t, chunk, timed_n[-1]), dtype=np.float32)
    chunk_run = two_products(q_c, np.swapaxes(K_t, -1, -2), w_c, V_t)
    chunk_time = timed(chunk_run, clock=cpu_time, tick=cpu_tick)
    A_t = timing_rng.random((1024, 1024), dtype=np.float32)
    matmul_time = timed(np.matmul, A_t, A_t, clock=cpu_time, tick=cpu_tick)
    calls = max(
        t.number
        for t in [*functools.reduce(operator.iadd, sweep_times, []), chunk_time, matmul_time]
    )
    print("BLAS threads:", "pinned to 1" if blas_threads else "not pinned: all the library's")
    print(
        f"clock: {clock_name}, step {cpu_tick * 1e6:.3g} µs;",
        f"up to {calls} call(s) per timing",
    )
    print(machine())
cache_bytes = [2 * h_t * n * d_t * 4 for n in timed_n]  # K and V, float32
llc = last_level_cache()  # (level, bytes), or None
llc_text = f"L{llc[0]}, {plain(llc[1] / 2**20)} MiB" if llc else word("unknown")
print("last-level cache:", llc_text)

# %% tags=["nbval-ignore-output"]
token_times = [
    min(ts, key=lambda t: t.best) for ts in zip(*sweep_times, strict=False)
]  # over the sweeps
token_ms = 1e3 * np.array([t.best for t in token_times])  # fastest ms per token
sweep_ms = 1e3 * np.array([[t.best for t in ts] for ts in sweep_times])  # [sweep, n]
jump = steepest_step(timed_n, token_ms)  # from timed_n[jump] to timed_n[jump + 1]
jump_from, jump_to = timed_n[jump], timed_n[jump + 1]
jump_mib = [cache_bytes[jump] / 2**20, cache_bytes[jump + 1] / 2**20]
jump_slope = math.log2(token_ms[jump + 1] / token_ms[jump])  # the lengths double
# from beyond the steepest step on, where the GB/s column settles (the reported
# last-level cache is not used: a shared or virtual machine's may not be ours)
fit_from = start_beyond_cache(timed_n, token_ms, cache_bytes, None).x
fit = loglog_fit(timed_n, token_ms, x_min=fit_from)  # slope of time against n from there
fit_lengths = sum(n >= fit_from for n in timed_n)
fit_n_ratio = timed_n[-1] // fit_from  # the lengths the fit spans, as a ratio
fit_t_ratio = token_ms[-1] / token_ms[timed_n.index(fit_from)]  # and their times
print(f"fit: from n = {fit_from:,}, beyond the steepest step, over {fit_lengths} lengths")
gb_per_s = np.array(cache_bytes) / token_ms / 1e6  # the cache's bytes read per second
jump_gb_per_s = gb_per_s[jump : jump + 2]  # across the steepest step
fitted_gb_per_s = gb_per_s[timed_n.index(fit_from) :]  # over the fitted lengths
sweep_gb_per_s = cache_bytes[-1] / sweep_ms[:, -1] / 1e6  # the largest cache, each sweep
matmul_gflops = 2 * 1024**3 / matmul_time.best / 1e9
balance = matmul_gflops / gb_per_s[-1]  # FLOPs in the time one byte of cache is read
step_table(
    {
        "n": [f"{n:,}" for n in timed_n],
        "cache, MiB": np.array(cache_bytes) / 2**20,
        "fastest, ms": token_ms,
        "median, ms": [1e3 * t.median for t in token_times],
        "slowest, ms": [1e3 * t.worst for t in token_times],
        "GB/s read": gb_per_s,
    },
    digits=2,
)

# %% [markdown]
# What the one-query step and the {eval}`chunk`-query chunk compute and move, counted as in
# Chapter 9: both read the cache, but the chunk also reads its {eval}`chunk` rows of weights
# and writes its {eval}`chunk` rows of scores, each as long as the cache:


# %%
def two_products_cost(queries, n):
    """FLOPs and bytes (read + written, float32) of q Kᵀ and w V: `queries` against n keys."""
    flops = 2 * 2 * h_t * queries * n * d_t  # two products, a multiply-add each
    read = 4 * h_t * (queries * d_t + 2 * n * d_t + queries * n)  # q, K, V, the weights w
    written = 4 * h_t * (queries * n + queries * d_t)  # the scores and the output
    return flops, read + written


one_flops, one_bytes = two_products_cost(1, timed_n[-1])
chunk_flops, chunk_bytes = two_products_cost(chunk, timed_n[-1])
one_intensity, chunk_intensity = one_flops / one_bytes, chunk_flops / chunk_bytes
one_mib, chunk_mib = one_bytes / 2**20, chunk_bytes / 2**20
step_table(
    {
        "queries": ["1", str(chunk)],
        "MFLOP": [one_flops / 1e6, chunk_flops / 1e6],
        "MiB moved": [one_mib, chunk_mib],
        "FLOPs per byte": [one_intensity, chunk_intensity],
    },
    digits=1,
)

# %% [markdown]
# The roofline's time for each, with the square product's speed and the cache's read speed,
# beside the time measured, both as multiples of one query's:

# %% tags=["nbval-ignore-output"]
chunk_ratio = chunk_time.best / token_times[-1].best  # measured: 64 queries against one
# the roofline's time of each, with the square product's speed and the cache's read speed
roofline_s = [
    max(f / (matmul_gflops * 1e9), b / (gb_per_s[-1] * 1e9))
    for f, b in ((one_flops, one_bytes), (chunk_flops, chunk_bytes))
]
roofline_ratio = roofline_s[1] / roofline_s[0]
for queries, intensity in ((1, one_intensity), (chunk, chunk_intensity)):  # the verdicts
    if intensity < balance:
        print(
            f"queries at once {queries}: {intensity:.2f} FLOPs per byte,",
            f"below this core's measured ridge of {balance:.1f}",
        )
    else:
        print(
            f"queries at once {queries}: {intensity:.2f} FLOPs per byte,",
            f"at or above this core's measured ridge of {balance:.1f}",
        )
step_table(
    {
        "queries": ["1", str(chunk)],
        "FLOPs per byte": [one_intensity, chunk_intensity],
        "roofline, × one query": [1, roofline_ratio],
        "measured, × one query": [1, chunk_ratio],
    },
    digits=1,
)

# %% tags=["nbval-ignore-output"]
figures.show(
    plot_decode_time(
        timed_n,
        token_ms / 1e3,
        slope=fit.slope,
        fit_from=fit_from,
        cache_bytes=cache_bytes,
        llc_bytes=llc[1] if llc else None,
    ),
    "fig-decode-time",
    "The time of one decoding step's two products (the fastest of {runs} runs, {repeats} in "
    "each of {sweeps} sweeps, in processor time) against the cache's length, on log-log axes, "
    "measured when the notebook last ran. The dashed line is fitted from n = {fit_from} on, "
    "through {points} points, where the text says why; the dotted grey line has the slope 1 the model predicts, and "
    "the vertical line, where the machine reports its last-level cache, marks the length at "
    "which the cache's bytes equal it.",
    runs=decode_repeats * n_sweeps,
    repeats=decode_repeats,
    sweeps=n_sweeps,
    fit_from=grouped(fit_from),
    points=plain(fit_lengths),
)

# %% [markdown]
# On the machine that built this page, the step's time grew most steeply between
# $n =$ {eval}`grouped(jump_from)` and {eval}`grouped(jump_to)`, as the cache grew from
# {eval}`plain(jump_mib[0])` to {eval}`plain(jump_mib[1])` MiB: the table's GB/s column goes
# from {eval}`dec(jump_gb_per_s[0], 1)` to {eval}`dec(jump_gb_per_s[1], 1)` there, and from
# $n =$ {eval}`grouped(fit_from)` on it reads {eval}`dec(fitted_gb_per_s, 1)`.
# Each decoding step reads the whole cache once, so where the reading speed holds, the model
# predicts a time in proportion to $n$, a slope of 1 on log-log axes
# ({eval}`figures.ref("fig-decode-time")`). The dashed line, fitted from
# $n =$ {eval}`grouped(fit_from)` on over {eval}`plain(fit_lengths)` lengths, has a slope of
# about {eval}`dec(fit.slope, 1)`: $n$ grew {eval}`plain(fit_n_ratio)` times and the fastest
# time {eval}`dec(fit_t_ratio, 1)` times.
#
# ```{admonition} Reading the timing: caches, the fit, and the spread
# :class: dropdown
#
# A cache small enough for the processor's own caches can be read from there, and a larger one
# only from main memory, more slowly; so the speed need not be the same at every length, and
# the fit starts beyond the steepest step, where the GB/s column is meant to settle. The
# last-level cache (최종 레벨 캐시, the processor's largest and slowest cache), as the
# operating system reports it, is printed by the timing cell and drawn, where known, as the
# figure's vertical line: {eval}`llc_text`. The fit does not
# rely on it: a last-level cache shared with other cores and other programs holds less of
# ours than its size, and a virtual machine may report its host's, so the GB/s column, not
# the reported size, is the guide to where the reading speed changes. The slope says no more
# than that column: it is 1 exactly where the fitted lengths were read at one speed, and with
# few lengths it is a line through few points.
#
# The whole sweep ran {eval}`n_sweeps` times; the largest cache was read at
# {eval}`dec(sweep_gb_per_s, 1)` GB/s in them, the spread one run of the cell has from the
# next. The timing table gives each size's median and slowest run beside the fastest: where
# they lie far apart, something outside the products slowed some runs, and running the cells
# again tells you more than any one of them.
# ```
#
# The $1024 \times 1024$ product ran at {eval}`dec(matmul_gflops, 1)` GFLOP/s,
# {eval}`dec(balance, 1)` FLOPs in the time the decoding step read one byte of cache: this
# core's ridge, measured. A decoding step in float32 with a key-value head per query head, as
# timed here, does {eval}`dec(one_intensity, 2)` FLOPs per byte (the model above's, in float32
# without sharing, {eval}`plain(fp32_flops_per_byte)`); below this ridge means memory-bound on
# this core too. A GPU widens that gap, not narrows it: its arithmetic is faster still, relative to its
# memory.
#
# The {eval}`chunk` queries against the largest cache do {eval}`chunk` times the FLOPs and
# move more bytes too: with their weights read and their scores written they move
# {eval}`dec(chunk_mib, 0)` MiB against one query's {eval}`dec(one_mib, 0)`, the
# {eval}`dec(chunk_intensity, 1)` FLOPs per byte of the roofline table. The roofline model puts
# their time at {eval}`dec(roofline_ratio, 1)` times one query's; they took
# {eval}`dec(chunk_ratio, 1)` times. Where the measured ratio is the larger, the chunk's
# products ran more slowly than the model's speeds allow, and the timing cannot say why; a
# product of {eval}`chunk` rows need not reach the square product's speed, so the roofline's
# figure is an estimate from below. A fused kernel would not write the scores out and would
# read fewer bytes.

# %% [markdown]
# ## Going further: what serving systems do
#
# A server keeps many caches at once, and most of its engineering is about their bytes and
# about keeping its processors busy. Lines of work, cited, not built here:
#
# - **Paged memory.** A cache allocated for the longest possible sequence wastes most of what
#   it reserves, and caches of different lengths fragment the memory. vLLM's PagedAttention
#   stores each cache in fixed-size blocks, as an operating system pages virtual memory, so
#   that memory is taken as the sequence grows and sequences that share a prompt can share its
#   blocks; the authors report 2–4 times the throughput of the systems before it at the same
#   latency ([Kwon et al., 2023](references.md)).
# - **Sliding-window caches.** If each query attends only to the last $W$ tokens (sliding-window
#   attention), the cache never needs more than $W$ positions. Mistral 7B (v0.1) uses
#   $W = 4096$ with a rolling buffer: position $i$ is stored in slot $i \bmod W$,
#   overwriting what no query can see any more, which on a 32k sequence makes the cache 8
#   times smaller ([Jiang et al., 2023](references.md)).
# - **Quantised caches.** Fewer bits per number. Production servers today commonly store the
#   cache in 8-bit floating point (FP8, $b = 1$ in {eq}`eq-ch10-kv-bytes`, half of float16),
#   with a scale per tensor or per head; vLLM and TensorRT-LLM offer it as a setting
#   ([Micikevicius et al., 2022](references.md) define the FP8 formats). Research goes
#   further: KIVI stores keys and values in 2 bits
#   (keys quantised per channel, values per token, as their outliers differ), with almost
#   the same quality and 2.6 times less peak memory, model weights included, in its tests
#   ([Liu et al., 2024](references.md)). In {eq}`eq-ch10-kv-bytes` that is about $b = 1/4$,
#   plus the quantisation constants (a scale and a zero-point per group of numbers) and the
#   recent tokens it keeps in full precision.
# - **Continuous batching.** A server runs the decoding steps of many requests as one batch.
#   Orca re-forms the batch at every step (iteration-level scheduling): a request that is
#   done leaves at once and a waiting one joins at the next step, instead of every request
#   waiting for the longest of its batch ([Yu et al., 2022](references.md)).
# - **Prefix caching.** Requests that begin with the same tokens, a system prompt or the
#   earlier turns of a conversation, have the same keys and values for them, since the causal
#   mask keeps a token's key and value from depending on anything after it. vLLM's automatic
#   prefix caching (APC) finds each block of a cache again by a hash of its tokens and of all
#   the tokens before it, so that a new request reuses its prefix's blocks instead of
#   recomputing them in prefill ([vLLM, 2024](references.md)); SGLang's RadixAttention keeps
#   the caches of past requests in a radix tree of their tokens and reuses the longest prefix
#   a new request shares with them ([Zheng et al., 2024](references.md)).
# - **Split-KV decoding (Flash-Decoding).** A decoding step has one query per head. When each
#   group of cores takes a tile of queries of one sequence and one head, a small batch at a
#   long context gives too few tiles to keep a GPU's cores busy. Flash-Decoding
#   cuts the cache along its positions, lets each group of cores attend to one part, and
#   merges the partial results by their maxima and sums, the merge of two halves in
#   [Chapter 9](09_cost.ipynb#exercises)'s exercises; the flash-attn library does so since its
#   version 2.2 ([Dao, 2023a](references.md)).
# - **Disaggregated prefill and decoding.** Prefill is compute-bound and decoding
#   memory-bound, and on shared processors a long prefill delays the decoding steps of every
#   other request. DistServe runs the two phases on different GPUs, each with the resources
#   and parallelism that suit it, and hands each prompt's KV cache from the first to the
#   second ([Zhong et al., 2024](references.md)).
#
# [Chapter 11](11_modern_attention.ipynb) builds what 2026 models ship on top of this cache:
# sliding-window layers mixed with full ones, attention sinks, and caches of compressed (latent)
# keys and values.
#
# ## Summary
#
# - Generation runs a causal model one token at a time. Prefill is one causal pass over the
#   prompt; each decoding step appends the new token's key and value to the KV cache and lets
#   its query attend to every cached position. Together they give exactly the rows of the
#   causal pass over the whole text ({eq}`eq-ch10-row`): here the three steps gave
#   {eval}`vector(steps[0]["out"])`, {eval}`vector(steps[1]["out"])` and
#   {eval}`vector(steps[2]["out"])`.
# - The newest position's output, projected to one logit a word of the vocabulary, picks the
#   next token: greedily, the largest logit, or by a draw from
#   $\mathrm{softmax}(\text{logits} / T)$; the picked token's key and value are what the next
#   step appends.
# - With RoPE the cache stores each key turned at its own position, once; the new query and
#   key are turned at the new word's position, counted from the text's first real word in the
#   prefill and at every step alike.
# - The cache holds $2 \cdot h_{kv} \cdot d_\text{head} \cdot n$ numbers per layer
#   ({eq}`eq-ch10-kv-bytes`): {eval}`plain(kv_gib)` GiB for the Llama 3.1 8B shape at 128k
#   tokens in 16-bit numbers. It grows with $n$, and every server holds it; the $n \times n$ weights
#   ({eval}`grouped(weights_gib)` GiB per layer) no one holds.
# - A decoding step costs $O(n \cdot d)$ against prefill's $O(n^2 \cdot d)$, and reads the
#   whole cache for a few FLOPs per byte: it is memory-bound. At batch 1 it also reads every
#   weight of the model, most of the bytes until the cache weighs as much, near
#   {eval}`grouped(break_even_round)` tokens here.
# - `is_causal=True` is top-left aligned in `attn_core` and PyTorch: with one new query it keeps
#   key 0 alone. Pass no causal mask for one query (a padded batch still needs its padding
#   mask, a sliding-window layer its window), or a bottom-right aligned mask
#   (`ac.causal_mask_lower_right`) for several.
# - MQA shares one key-value head among all query heads, GQA one among each group of $g$: the
#   cache and the bytes read per token shrink $g$ times.
# - *Going further:* timing a decoding step on your own machine tests the count: its time
#   grows in proportion to $n$ wherever the table's GB/s column is flat, and one query's FLOPs
#   per byte and a chunk of {eval}`chunk` queries' can be set beside the core's measured ridge.
# - *Going further:* serving systems page the cache, keep only a window of it, quantise it,
#   batch decoding steps continuously, reuse shared prefixes, split a step's cache across
#   cores and run prefill and decoding on separate GPUs.
#
# ## Exercises
#
# Each exercise checks your answer on the spot: run the cell and read the one-line verdict.
# The hints and solutions are folded away until you ask for them.
#
# ```{exercise} The KV cache of a model, by hand
# :label: ex-ch10-kv-cache-size
#
# A model has the shape printed below: its layers, its query heads, its key-value heads of
# $d_\text{head}$ numbers, and it serves one sequence of $n$ tokens in float16 (2 bytes a
# number). How many GiB ($2^{30}$ bytes) does its KV cache take? Work it out by hand with
# {eq}`eq-ch10-kv-bytes`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Which heads does the cache hold, the query heads or the key-value heads? And what does
# the factor 2 count? $32768 = 2^{15}$ and $128 = 2^7$.
# ```

# %%
layers_ex, heads_ex, kv_heads_ex, d_head_ex, n_ex, b_ex = ch10.kv_cache_size.inputs
print(f"layers = {layers_ex}, query heads = {heads_ex},", end=" ")
print(f"KV heads = {kv_heads_ex}, d_head = {d_head_ex}, n = {n_ex:,}")
answer = ...  # GiB, a number
ch10.kv_cache_size.check(answer)

# %% [markdown]
# ````{solution} ex-ch10-kv-cache-size
# :class: dropdown
#
# The cache holds a key and a value (the 2) of $d_\text{head} =$ {eval}`d_head_ex` numbers
# for each of the {eval}`kv_heads_ex` key-value heads (not the {eval}`heads_ex` query heads,
# which share them) in each of the {eval}`layers_ex` layers, for each of the
# {eval}`grouped(n_ex)` tokens, at {eval}`b_ex` bytes a number. In powers of two that is
# $2 \cdot 40 \cdot 2^3 \cdot 2^7 \cdot 2^{15} \cdot 2 = 5 \cdot 2^{30}$ bytes, since
# $40 = 5 \cdot 2^3$:
#
# ```python
# n_bytes = ac.kv_cache_bytes(layers_ex, kv_heads_ex, d_head_ex, n_ex, b_ex)
# answer = n_bytes / 2**30
# ch10.kv_cache_size.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} One decoding step by hand
# :label: ex-ch10-decode-step
#
# A cache holds the three keys and values of [Chapter 4](04_worked_example.ipynb)'s example. A
# new token arrives with the query, key and value printed below. Give its output, the two
# numbers, to three decimals.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# First append the new key and value: the new query attends to four positions, its own
# included, and needs no mask. Then the steps of Chapter 4: scores, divided by $\sqrt 2$,
# exponentials, weights, weighted sum of the four values. $e^{1/\sqrt 2} \approx 2.028$.
# ```

# %%
keys_ex, values_ex, q_ex, k_ex, v_ex = ch10.decode_step.inputs
print("cached keys:", keys_ex.tolist(), " values:", values_ex.tolist())
print(
    "new token: q =",
    q_ex.tolist(),
    " k =",
    k_ex.tolist(),
    " v =",
    v_ex.tolist(),
)
answer = ...  # [o₁, o₂]
ch10.decode_step.check(answer)

# %% [markdown]
# ````{solution} ex-ch10-decode-step
# :class: dropdown
#
# With the new key appended, the query {eval}`vector(q_ex)` scores 0, 1, 1, 1 against the
# four keys (Chapter 4's three and {eval}`vector(k_ex)`). Divided by $\sqrt 2$ and
# exponentiated: 1 and three times $e^{0.707} \approx 2.028$, a sum of about 7.084, so the
# weights are about 0.141 and three times 0.286, and the output is
# $0.141\,(2, 0) + 0.286\,[(0, 2) + (1, 1) + (2, 2)] \approx (1.141, 1.431)$:
#
# ```python
# cache_ex = ac.KVCache()
# cache_ex.append(keys_ex, values_ex)  # the three cached positions
# cache_ex.append(k_ex[None], v_ex[None])  # the new token's key and value
# answer = cache_ex.attend(q_ex)  # no mask: all four are in its past
# ch10.decode_step.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Find the bug: a decoding loop
# :label: ex-ch10-bug-is-causal
#
# This loop fills a KV cache with the prompt, then generates the other positions one at a
# time. The prompt's rows are right; every generated row is wrong. Copy it as
# `fixed_generate_outputs`, change what is wrong, and run the check, which compares it with
# the causal pass over all positions.
# ```

# %%
ch10.is_causal_decode.show()

# %% [markdown]
# ```{admonition} Hint
# :class: dropdown
#
# Print the weights of one decoding step with the mask the loop passes: which keys does the
# one new query see?
# ```


# %%
def fixed_generate_outputs(queries, keys, values, n_prompt):
    raise NotImplementedError  # copy the function above here and fix it


ch10.is_causal_decode.check(fixed_generate_outputs)

# %% [markdown]
# ````{solution} ex-ch10-bug-is-causal
# :class: dropdown
#
# `is_causal=True` aligns its triangle at the top left, so the one new query of a decoding
# step sees key 0 alone and every generated token gets the first token's value. A new query
# may see every cached key: pass no mask in the loop (or `cache.attend(q)`, which aligns the
# mask at the bottom right). The prefill keeps its causal mask, where queries and keys are
# the same positions.
#
# ```python
# def fixed_generate_outputs(queries, keys, values, n_prompt):
#     cache = ac.KVCache()
#     cache.append(keys[..., :n_prompt, :], values[..., :n_prompt, :])
#     prompt_q = queries[..., :n_prompt, :]  # [..., n_prompt, E]
#     outputs = [
#         ac.scaled_dot_product_attention(
#             prompt_q, cache.keys, cache.values, is_causal=True
#         )
#     ]
#     for t in range(n_prompt, queries.shape[-2]):
#         cache.append(keys[..., t : t + 1, :], values[..., t : t + 1, :])
#         q = queries[..., t : t + 1, :]  # [..., 1, E]: the new query alone
#         outputs.append(  # the fix: no mask, every cached key is in its past
#             ac.scaled_dot_product_attention(q, cache.keys, cache.values)
#         )
#     return np.concatenate(outputs, axis=-2)
#
#
# ch10.is_causal_decode.check(fixed_generate_outputs)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the function: a decoding step with RoPE
# :label: ex-ch10-rope-decode-step
#
# Write `rope_decode_step(keys, values, q, k, v)`, one decoding step of a model with RoPE.
# `keys` `(..., n, d)` and `values` `(..., n, d_v)` are the cache: the keys of positions
# $0, \dots, n - 1$, each already turned at its own position, as in the section on the
# cache with rotary positions above. `q`, `k` `(..., 1, d)` and `v` `(..., 1, d_v)` are the new token's, not turned yet. Turn
# them with `ac.rotary` at the new token's position, append, and return its output
# `(..., 1, d_v)`, with the default scale $1/\sqrt d$. The check runs it on a cache of one
# position, on several leading shapes, on a cache of 40 positions and on float32.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Which positions does a cache of $n$ keys hold, and which one comes next? Read it from the
# cache's shape before you append.
# ```


# %%
def rope_decode_step(keys, values, q, k, v):
    raise NotImplementedError  # the new token's output, [..., 1, d_v]


ch10.rope_decode_step.check(rope_decode_step)

# %% [markdown]
# ````{solution} ex-ch10-rope-decode-step
# :class: dropdown
#
# A cache of $n$ keys holds positions $0, \dots, n - 1$, so the new token is at $n$, the
# cache's length *before* the append: in the RoPE section's example the cache held
# {eval}`t_new` words and 배를 was turned at {eval}`t_new`. Not at 0 (it is the only token the
# step computes, but not the first of the text), not at $n - 1$ (the last cached word's
# position), and not at $n + 1$ (the length after the append, the off-by-one measured
# there). The query and the key are turned at the same position; the value is not turned.
#
# ```python
# def rope_decode_step(keys, values, q, k, v):
#     t = keys.shape[-2]  # the cache holds 0 … t − 1: the new token is at t
#     q_t = ac.rotary(q, [t])  # [..., 1, d]
#     k_t = ac.rotary(k, [t])  # turned once, here, then stored
#     keys = np.concatenate([keys, k_t], axis=-2)  # [..., t + 1, d]
#     values = np.concatenate([values, v], axis=-2)  # [..., t + 1, d_v]
#     return ac.scaled_dot_product_attention(q_t, keys, values)  # no mask: one query
#
#
# ch10.rope_decode_step.check(rope_decode_step)
# ```
# ````

# %% [markdown]
# ```{exercise} Predict, then count: generating without a cache
# :label: ex-ch10-no-cache
#
# A program generates $n$ tokens without a KV cache: at every step it runs the whole causal
# pass again over all the tokens so far, and keeps only the last row. With $d$ fixed, how do
# the attention FLOPs of all $n$ steps together grow with $n$: like `"n"`, `"n²"` or `"n³"`?
# Answer first; the solution counts.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# What does step $t$ cost, in the cost model of [Chapter 9](09_cost.ipynb), if nothing is
# kept from step $t - 1$? Then add the steps up.
# ```

# %%
answer = ...  # "n", "n²" or "n³"
ch10.no_cache_growth.check(answer)

# %% [markdown]
# ````{solution} ex-ch10-no-cache
# :class: dropdown
#
# Step $t$ is a causal pass over $t$ tokens, $O(t^2 d)$, and $\sum_{t=1}^{n} t^2 \approx
# n^3/3$: doubling $n$ multiplies the total by about 8. With the cache, step $t$ costs
# $O(t\,d)$ and the total grows like $n^2$, one causal pass's worth. Count both with the cost
# model (the full $t \times t$ matrix, an upper bound on the causal pass's half):
#
# ```python
# def total_flops(n, cached):
#     rows = lambda t: 1 if cached else t  # queries computed at step t
#     steps = [ac.attention_cost(1, 1, rows(t), t, 64) for t in range(1, n + 1)]
#     return sum(c.matmul_flops for c in steps)
#
#
# print(total_flops(400, False) / total_flops(200, False))  # about 8
# print(total_flops(400, True) / total_flops(200, True))  # about 4
# ch10.no_cache_growth.check("n³")
# ```
# ````

# %% [markdown]
# ```{exercise} Design: key-value heads for a memory budget
# :label: ex-ch10-choose-kv-heads
#
# You design a model with the layers and query heads printed below, and it must serve a
# batch of sequences of $n$ tokens in float16 with at most the printed budget for the KV
# cache. Grouped-query attention lets you choose $h_{kv}$, which must divide the number of
# query heads. More key-value heads keep more of the model's quality. Which $h_{kv}$ do you
# choose?
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Work out the bytes of one key-value head first, for the whole batch and all layers; then
# see how many of them the budget holds, and which divisor of the query heads that allows.
# ```

# %%
layers_d, heads_d, d_head_d, n_d, b_d, batch_d, budget_d = ch10.choose_kv_heads.inputs
print(
    f"layers = {layers_d}, query heads = {heads_d}, d_head = {d_head_d},",
    end=" ",
)
print(f"n = {n_d:,}, batch = {batch_d}, budget = {budget_d} GiB")
answer = ...  # h_kv, a whole number
ch10.choose_kv_heads.check(answer)

# %% [markdown]
# ````{solution} ex-ch10-choose-kv-heads
# :class: dropdown
#
# One key-value head costs $2 \cdot$ {eval}`batch_d` sequences $\cdot$ {eval}`layers_d`
# layers $\cdot$ {eval}`d_head_d` $\cdot$ {eval}`grouped(n_d)` $\cdot$ {eval}`b_d` bytes
# $= 2^{32}$ bytes, 4 GiB, so {eval}`budget_d` GiB hold at most 10 of them; the divisors of
# {eval}`heads_d` are 1, 2, 4, 8, 16 and 32, and the largest that fits is 8: groups of 4
# query heads, the layout of the Llama 3.1 8B shape above.
#
# ```python
# one_head = ac.kv_cache_bytes(layers_d, 1, d_head_d, n_d, b_d, batch_d)
# divisors = [h for h in range(1, heads_d + 1) if heads_d % h == 0]
# answer = max(h for h in divisors if h * one_head <= budget_d * 2**30)
# ch10.choose_kv_heads.check(answer)
# ```
# ````

# %% [markdown]
# ```{exercise} Write the function: GQA's key-value heads, expanded
# :label: ex-ch10-expand-kv
#
# Write `expand_kv(kv, n_heads)`. It takes the keys (or the values) of $h_{kv}$ key-value
# heads, shape `(..., h_kv, S, d)`, and returns them for `n_heads` query heads, shape
# `(..., n_heads, S, d)`, so that index $h$ holds the key-value head that query head $h$
# reads, in the order `enable_gqa=True` uses in the section on MQA and GQA above. Plain
# NumPy: not `ac.repeat_kv_heads`. The check runs it on the section's keys, on MQA and
# MHA, on a batch and on float32.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Which key-value head does query head $h$ read when each key-value head serves
# $g =$ `n_heads` $/ h_{kv}$ neighbouring query heads? Then compare `np.repeat` and `np.tile` on a small array,
# `np.arange(2)` repeated to 4 entries.
# ```


# %%
def expand_kv(kv, n_heads):
    raise NotImplementedError  # [..., h_kv, S, d] -> [..., n_heads, S, d]


ch10.expand_kv.check(expand_kv)

# %% [markdown]
# ````{solution} ex-ch10-expand-kv
# :class: dropdown
#
# Query head $h$ reads key-value head $h \,/\!/\, g$, the integer part of $h / g$: with the
# section's $g =$ {eval}`group`, query heads 0 to 3 read key-value heads {eval}`plain(reads)`.
# `np.repeat` along the heads axis gives exactly that order, each key-value head $g$ times in
# place, as PyTorch's `repeat_interleave` does. `np.tile` repeats the whole stack instead, so
# that query head $h$ would read key-value head $h \bmod h_{kv}$: the same shapes and no
# error, but the wrong keys for every query head where $h \bmod h_{kv} \ne h \,/\!/\, g$, which
# in the section's case is every head but the first and the last (with one key-value head,
# MQA, or one per query head, MHA, the two agree, which is why the slip goes unnoticed
# there).
#
# ```python
# def expand_kv(kv, n_heads):
#     g = n_heads // kv.shape[-3]  # query heads per key-value head
#     return np.repeat(kv, g, axis=-3)  # head h gets KV head h // g
#
#
# ch10.expand_kv.check(expand_kv)
# ```
# ````
#
# ## How long this chapter took

# %% tags=["nbval-ignore-output"]
chapter_seconds = time.perf_counter() - chapter_start
round(chapter_seconds, 1)

# %% [markdown]
# This chapter ran top to bottom in {eval}`dec(chapter_seconds, 1)` seconds on the machine
# that built this page, the timing and the PyTorch cells included.
