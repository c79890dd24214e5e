"""Chapter 13's forward pass (attn_book/llama.py): llama.cpp's row permutation undone, one layer
of the real model against plain Python loops, greedy decoding with the KV cache against full
recomputation, the stored answers of the chapter's prompts, and bad input."""

import math
import shutil

import numpy as np
import pytest

from attn_book import llama, model
from attn_book import tokenizer as T


def _llama_cpp_permute(w, n_head):
    """convert_hf_to_gguf.py's ``permute``: each head's rows (2, head_dim/2) swapped."""
    return (
        w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:])
        .swapaxes(1, 2)
        .reshape(w.shape)
    )


def test_unpermute_inverts_llama_cpp(rng):
    w = rng.normal(size=(3 * 8, 5))
    assert np.array_equal(llama.unpermute_rows(_llama_cpp_permute(w, 3), 3), w)
    # by hand, one head of 4 rows: the file stores HF rows 0, 2, 1, 3 -> read back 0, 1, 2, 3
    stored = np.array([[0.0], [2.0], [1.0], [3.0]])
    assert llama.unpermute_rows(stored, 1)[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_both_layouts_give_the_same_scores(rng):
    # the file's rows with RoPE on adjacent pairs = HF's rows with RoPE on halves
    import attn_core as ac

    w_hf = rng.normal(size=(8, 6))
    x = rng.normal(size=(5, 6))
    pos = np.arange(5)
    q_halves = ac.rotary(x @ w_hf.T, pos, 100.0, layout="halves")
    q_pairs = ac.rotary(x @ _llama_cpp_permute(w_hf, 1).T, pos, 100.0, layout="interleaved")
    np.testing.assert_allclose(q_halves @ q_halves.T, q_pairs @ q_pairs.T, atol=1e-12)


@pytest.fixture(scope="module")
def m(real_gguf):
    return llama.load_model(real_gguf.path)


def test_config_from_the_file(m):
    c = m.config
    assert (c.n_layers, c.d_model, c.n_heads, c.n_kv_heads, c.head_dim) == (30, 576, 9, 3, 64)
    assert (c.d_ff, c.vocab, c.rope_base, c.context) == (1536, 49152, 1e5, 8192)
    assert c.eps == pytest.approx(1e-5)
    assert m.embedding.shape == (49152, 576) and m.embedding.dtype == np.float32
    assert m.layers[0].w_k.shape == (192, 576)


def test_loaded_rows_are_the_file_rows_unpermuted(m, real_gguf):
    # permuting the loaded matrices as llama.cpp's converter does gives the file's matrices
    for name, w, heads in (("attn_q", m.layers[4].w_q, 9), ("attn_k", m.layers[4].w_k, 3)):
        stored = real_gguf.tensor(f"blk.4.{name}.weight")
        assert np.array_equal(_llama_cpp_permute(w, heads), stored)
        assert not np.array_equal(w, stored)


def test_file_rows_with_adjacent_pairs_give_the_same_logits(m, real_gguf):
    # llama.cpp's way: the rows as stored, RoPE on pairs (2i, 2i + 1); the book's: rows
    # un-permuted, RoPE on (i, i + 32). Only the order of a head's features differs.
    as_stored = m._replace(
        layers=[
            layer._replace(
                w_q=_llama_cpp_permute(layer.w_q, 9), w_k=_llama_cpp_permute(layer.w_k, 3)
            )
            for layer in m.layers
        ]
    )
    ids = m.tokenizer.encode("The capital of France is")
    halves = llama.forward(m, ids)
    pairs = llama.forward(as_stored, ids, layout="interleaved")
    np.testing.assert_allclose(pairs, halves, atol=1e-3, rtol=0)
    assert pairs[-1].argmax() == halves[-1].argmax() == m.tokenizer.encode(" Paris")[0]


def _layer_by_loops(x, layer, cfg):
    """One layer in plain Python over heads, positions and features (float64)."""
    x = np.asarray(x, dtype=np.float64)
    T_ = x.shape[0]
    hd, g = cfg.head_dim, cfg.n_heads // cfg.n_kv_heads

    def norm(v, gain):
        r = math.sqrt(sum(a * a for a in v) / len(v) + cfg.eps)
        return [a / r * s for a, s in zip(v, gain, strict=True)]

    def rope(vec, pos):  # pairs (i, i + hd/2), angle pos * base^(-2i/hd)
        out = list(vec)
        for i in range(hd // 2):
            th = pos * cfg.rope_base ** (-2 * i / hd)
            a, b = vec[i], vec[i + hd // 2]
            out[i] = a * math.cos(th) - b * math.sin(th)
            out[i + hd // 2] = a * math.sin(th) + b * math.cos(th)
        return out

    wq, wk, wv, wo = (
        np.asarray(w, np.float64) for w in (layer.w_q, layer.w_k, layer.w_v, layer.w_o)
    )
    h = np.array([norm(x[t], layer.attn_norm) for t in range(T_)])
    heads_out = np.zeros((T_, cfg.n_heads * hd))
    for qh in range(cfg.n_heads):
        kh = qh // g  # query head qh reads key/value head qh // g
        q = [rope(wq[qh * hd : (qh + 1) * hd] @ h[t], t) for t in range(T_)]
        k = [rope(wk[kh * hd : (kh + 1) * hd] @ h[t], t) for t in range(T_)]
        v = [wv[kh * hd : (kh + 1) * hd] @ h[t] for t in range(T_)]
        for i in range(T_):
            s = [
                sum(a * b for a, b in zip(q[i], k[j], strict=True)) / math.sqrt(hd)
                for j in range(i + 1)
            ]
            top = max(s)
            e = [math.exp(z - top) for z in s]
            w = [z / sum(e) for z in e]
            heads_out[i, qh * hd : (qh + 1) * hd] = sum(w[j] * v[j] for j in range(i + 1))
    x = x + heads_out @ wo.T
    h = np.array([norm(x[t], layer.ffn_norm) for t in range(T_)])
    gate = h @ np.asarray(layer.w_gate, np.float64).T
    up = h @ np.asarray(layer.w_up, np.float64).T
    silu = gate / (1 + np.exp(-gate))
    return x + (silu * up) @ np.asarray(layer.w_down, np.float64).T


@pytest.mark.parametrize("index", [0, 17])
def test_one_layer_against_loops(m, index):
    ids = m.tokenizer.encode("The cat sat on")
    x = m.embedding[ids]
    if index:  # a later layer's input: run the layers before it
        for layer in m.layers[:index]:
            x = llama.feed_forward_block(
                llama.attention_block(x, layer, m.config, np.arange(len(ids))), layer, m.config
            )
    layer = m.layers[index]
    got = llama.feed_forward_block(
        llama.attention_block(x, layer, m.config, np.arange(len(ids))), layer, m.config
    )
    expected = _layer_by_loops(x, layer, m.config)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got, expected, atol=2e-5 * scale, rtol=0)


def test_attention_weights_rows_are_causal(m):
    ids = m.tokenizer.encode("The cat sat on the mat")
    weights = []
    llama.forward(m, ids, weights=weights)
    assert len(weights) == 30 and weights[0].shape == (9, len(ids), len(ids))
    w = weights[5]
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)
    assert np.all(np.triu(w, k=1) == 0)  # no token reads a later one


# The greedy continuations, stored: the chapter's prompts through the chat template.
PROMPTS = {
    "What is the capital of France?": [504, 3575, 282, 4649, 314, 7042, 30, 2],
}


@pytest.mark.parametrize("question", list(PROMPTS))
def test_greedy_answers_stored(m, question):
    ids = m.tokenizer.encode(T.chat_prompt(question))
    out = llama.generate(m, ids, 20, stop=2)
    assert out == PROMPTS[question]
    assert m.tokenizer.decode(out) == "The capital of France is Paris.<|im_end|>"


def test_cache_equals_recomputation(m):
    ids = m.tokenizer.encode("Attention is all you")
    cache = llama.KVCache(m.config.n_layers)
    steps = [llama.forward(m, ids, cache)[-1]]
    tokens = list(ids)
    for _ in range(6):
        tokens.append(int(np.argmax(steps[-1])))
        steps.append(llama.forward(m, tokens[-1:], cache)[-1])
    full = llama.forward(m, tokens)  # every position again, no cache
    np.testing.assert_allclose(np.array(steps), full[len(ids) - 1 :], atol=2e-3, rtol=0)
    assert [int(np.argmax(s)) for s in steps] == full[len(ids) - 1 :].argmax(-1).tolist()
    assert llama.generate(m, ids, 6, use_cache=False) == tokens[len(ids) :]
    # 30 layers x (K and V) x 3 heads x 64 x float32 bytes per token
    assert cache.nbytes() == len(tokens) * 30 * 2 * 3 * 64 * 4


def test_ablation_is_zeroing_the_head_s_columns_of_w_o(m):
    """Zeroing a head's output is the model with that head's 64 columns of W_O set to 0."""
    ids = m.tokenizer.encode("The cat sat on the mat")
    pairs = [(3, 4), (3, 7), (20, 0)]
    layers = list(m.layers)
    for i, h in pairs:
        w_o = layers[i].w_o.copy()
        w_o[:, h * 64 : (h + 1) * 64] = 0.0
        layers[i] = layers[i]._replace(w_o=w_o)
    expected = llama.forward(m._replace(layers=layers), ids)
    got = llama.forward(m, ids, ablate=pairs)
    np.testing.assert_allclose(got, expected, atol=1e-4, rtol=0)
    assert np.abs(got - llama.forward(m, ids)).max() > 0.1  # and the heads did something
    np.testing.assert_array_equal(llama.forward(m, ids, ablate=[]), llama.forward(m, ids))
    with pytest.raises(ValueError, match="head 0 to 8"):
        llama.forward(m, ids, ablate=[(3, 9)])


def test_bad_ids(m):
    with pytest.raises(ValueError, match="0 to 49151"):
        llama.forward(m, [49152])
    with pytest.raises(ValueError, match="non-empty"):
        llama.forward(m, [])
    short = m._replace(config=m.config._replace(context=4))
    with pytest.raises(ValueError, match="context of 4"):
        llama.forward(short, [1, 2, 3, 4, 5])


def test_tampered_and_missing_model(real_gguf, tmp_path, monkeypatch):
    bad = tmp_path / "m.gguf"
    shutil.copyfile(real_gguf.path, bad)
    with open(bad, "r+b") as f:  # one weight byte changed
        f.seek(real_gguf.tensors["blk.3.attn_q.weight"].start + 100)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(model.ModelTamperedError, match="make model"):
        llama.load_model(bad)
    monkeypatch.setenv("ATTN_MODEL", str(tmp_path / "absent.gguf"))
    with pytest.raises(model.ModelMissingError, match="make model"):
        llama.load_model()
