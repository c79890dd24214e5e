"""The GGUF reader and dequantiser (attn_book/gguf.py): blocks packed by hand from known
numbers, a small GGUF file written here byte by byte, bad files, and the real model's table
(skipped without the model unless ATTN_REQUIRE_MODEL=1)."""

import struct

import numpy as np
import pytest

from attn_book import gguf


def test_q4_1_block_by_hand():
    # d = 0.5, m = -2: code q gives 0.5 q - 2; element j in byte j's low nibble, j + 16 high
    codes = np.array([3, 0, 15, 7] + [1] * 12 + [8, 2] + [0] * 14)
    raw = bytes([0x00, 0x38, 0x00, 0xC0])  # float16 0.5 = 0x3800, -2.0 = 0xC000, little-endian
    raw += bytes([codes[j] | (codes[j + 16] << 4) for j in range(16)])
    assert raw == gguf.pack_q4_1(0.5, -2.0, codes)
    w = gguf.dequantize_q4_1(np.frombuffer(raw, np.uint8))
    expected = [0.5 * q - 2.0 for q in codes]  # 3 -> -0.5, 15 -> 5.5, 8 -> 2.0
    assert w.dtype == np.float32
    assert w.tolist() == expected
    assert w[0] == -0.5 and w[2] == 5.5 and w[16] == 2.0 and w[17] == -1.0


def test_q4_1_nibble_order_low_first():
    # one byte 0x21 at position 0: value 0 is 1 (low nibble), value 16 is 2 (high nibble)
    raw = np.float16(1.0).tobytes() + np.float16(0.0).tobytes() + bytes([0x21]) + bytes(15)
    w = gguf.dequantize_q4_1(raw)
    assert w[0] == 1.0 and w[16] == 2.0 and w[1] == 0.0 and w.sum() == 3.0


def test_q8_0_block_by_hand():
    codes = np.array([-128, -1, 0, 1, 127] + [2] * 27)
    raw = bytes([0x00, 0x34])  # float16 0.25 = 0x3400
    raw += bytes((c + 256) % 256 for c in codes)
    assert raw == gguf.pack_q8_0(0.25, codes)
    w = gguf.dequantize_q8_0(raw)
    assert w[:5].tolist() == [-32.0, -0.25, 0.0, 0.25, 31.75]
    assert w[5:].tolist() == [0.5] * 27


def test_two_blocks_keep_their_own_scales():
    a = gguf.pack_q4_1(1.0, 0.0, np.full(32, 2))
    b = gguf.pack_q4_1(-1.0, 10.0, np.full(32, 3))
    w = gguf.dequantize(np.frombuffer(a + b, np.uint8), "Q4_1", (2, 32))
    assert (w[0] == 2.0).all() and (w[1] == 7.0).all()


def test_partial_blocks_are_refused():
    with pytest.raises(gguf.GGUFError, match="20-byte blocks"):
        gguf.dequantize_q4_1(bytes(30))
    with pytest.raises(gguf.GGUFError, match="cannot dequantise"):
        gguf.dequantize(np.zeros(4, np.uint8), "Q2_K", (1,))
    with pytest.raises(ValueError, match="from 0 to 15"):
        gguf.pack_q4_1(1.0, 0.0, np.full(32, 16))


# A small GGUF file, written from the specification.
def _str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _kv(key, vtype, payload):
    return _str(key) + struct.pack("<I", vtype) + payload


def _write_gguf(path, tensors, metadata=(), alignment=None):
    """tensors: (name, numpy shape, ggml type id, raw bytes). Returns the bytes written."""
    kvs = list(metadata)
    if alignment is not None:
        kvs.append(_kv("general.alignment", 4, struct.pack("<I", alignment)))
    align = alignment or 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    data, table = b"", b""
    for name, shape, type_id, raw in tensors:
        data += bytes(-len(data) % align)
        table += _str(name) + struct.pack("<I", len(shape))
        table += b"".join(struct.pack("<Q", n) for n in reversed(shape))
        table += struct.pack("<IQ", type_id, len(data))
        data += raw
    head += table
    blob = head + bytes(-len(head) % align) + data
    path.write_bytes(blob)
    return blob


@pytest.fixture
def small(tmp_path):
    q4 = gguf.pack_q4_1(0.5, -1.0, np.arange(32) % 16) + gguf.pack_q4_1(2.0, 1.0, np.ones(32))
    f32 = np.array([1.5, -2.0, 3.25], "<f4").tobytes()
    f16 = np.array([[0.5, 1.0], [2.0, -4.0]], "<f2").tobytes()
    meta = [
        _kv("general.architecture", 8, _str("llama")),
        _kv("llama.block_count", 4, struct.pack("<I", 30)),
        _kv("llama.rope.freq_base", 6, struct.pack("<f", 1e5)),
        _kv("flag", 7, b"\x01"),
        _kv("words", 9, struct.pack("<IQ", 8, 2) + _str("Ġ t") + _str("h e")),
        _kv("ids", 9, struct.pack("<IQ", 5, 3) + struct.pack("<3i", 3, -1, 7)),
    ]
    path = tmp_path / "small.gguf"
    blob = _write_gguf(
        path,
        [("w", (2, 32), 3, q4), ("norm", (3,), 0, f32), ("h", (2, 2), 1, f16)],
        meta,
        alignment=64,
    )
    return path, blob


def test_small_file_header_metadata_and_table(small):
    path, _ = small
    f = gguf.read_gguf(path)
    assert f.version == 3 and f.alignment == 64 and f.data_start % 64 == 0
    assert f.metadata["general.architecture"] == "llama"
    assert f.metadata["llama.block_count"] == 30
    assert f.metadata["llama.rope.freq_base"] == pytest.approx(1e5)
    assert f.metadata["flag"] is True
    assert f.metadata["words"] == ["Ġ t", "h e"]
    assert f.metadata["ids"].tolist() == [3, -1, 7]
    assert list(f.tensors) == ["w", "norm", "h"]
    assert f.tensors["w"].shape == (2, 32) and f.tensors["w"].type == "Q4_1"
    assert f.tensors["norm"].start % 64 == 0 and f.tensors["h"].start % 64 == 0
    w = f.tensor("w")
    assert w[0, :4].tolist() == [-1.0, -0.5, 0.0, 0.5] and (w[1] == 3.0).all()
    assert f.tensor("norm").tolist() == [1.5, -2.0, 3.25]
    assert f.tensor("h").tolist() == [[0.5, 1.0], [2.0, -4.0]]
    with pytest.raises(KeyError, match="no tensor 'x'"):
        f.tensor("x")


def test_truncated_file_is_named(small, tmp_path):
    _, blob = small
    for cut in (len(blob) - 5, 40, 2):
        bad = tmp_path / f"cut{cut}.gguf"
        bad.write_bytes(blob[:cut])
        with pytest.raises(gguf.GGUFError, match="truncated"):
            gguf.read_gguf(bad)


def test_not_gguf_and_unknown_version(tmp_path, small):
    _, blob = small
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGML" + blob[4:])
    with pytest.raises(gguf.GGUFError, match="not a GGUF file"):
        gguf.read_gguf(bad)
    bad.write_bytes(blob[:4] + struct.pack("<I", 9) + blob[8:])
    with pytest.raises(gguf.GGUFError, match="version 9"):
        gguf.read_gguf(bad)
    with pytest.raises(FileNotFoundError, match="No GGUF file"):
        gguf.read_gguf(tmp_path / "absent.gguf")


def test_unknown_tensor_type_is_named(tmp_path):
    path = tmp_path / "q2.gguf"
    _write_gguf(path, [("w", (256,), 10, bytes(84))])
    with pytest.raises(gguf.GGUFError, match="ggml type 10"):
        gguf.read_gguf(path)


def test_real_model_table(real_gguf):
    f = real_gguf
    meta = f.metadata
    assert meta["general.architecture"] == "llama"
    assert meta["llama.block_count"] == 30
    assert meta["llama.embedding_length"] == 576
    assert meta["llama.attention.head_count"] == 9
    assert meta["llama.attention.head_count_kv"] == 3
    assert meta["llama.rope.dimension_count"] == 64
    assert meta["llama.feed_forward_length"] == 1536
    assert meta["llama.rope.freq_base"] == 1e5
    assert len(meta["tokenizer.ggml.tokens"]) == 49152
    assert len(f.tensors) == 2 + 9 * 30  # embedding, final norm, 9 per layer (no output: tied)
    assert "output.weight" not in f.tensors
    assert f.tensors["token_embd.weight"].shape == (49152, 576)
    assert f.tensors["token_embd.weight"].type == "Q8_0"
    assert f.tensors["blk.0.attn_q.weight"].shape == (576, 576)
    assert f.tensors["blk.29.attn_k.weight"].shape == (3 * 64, 576)
    assert f.tensors["blk.7.ffn_down.weight"].shape == (576, 1536)
    assert f.tensors["blk.7.attn_q.weight"].type == "Q4_1"
    assert f.tensors["output_norm.weight"].type == "F32"
    # Q4_1 weights are d·q + m: a row's 32-blocks take at most 16 distinct values each
    w = f.tensor("blk.0.attn_q.weight")
    assert w.dtype == np.float32 and np.isfinite(w).all()
    assert all(len(np.unique(b)) <= 16 for b in w[0].reshape(-1, 32))
