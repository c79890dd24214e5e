"""A GGUF file read with numpy: its header, its metadata, its tensor table, and the
dequantisation of the block formats chapter 13's model uses (Q4_1, Q8_0, F16, F32).

GGUF is llama.cpp's file format (ggml's ``docs/gguf.md``), all little-endian:

* the header: the magic ``b"GGUF"``, a uint32 version (2 or 3), a uint64 count of tensors and a
  uint64 count of metadata pairs;
* the metadata: each a string key (uint64 length, UTF-8 bytes), a uint32 type and a value
  (numbers, bool, string, or an array: a uint32 element type, a uint64 count, the elements);
* the tensor table: each a name, a uint32 number of dimensions, that many uint64 sizes
  (the fastest-varying first, so numpy's shape is their reverse), a uint32 ggml type and a
  uint64 offset into the data;
* the data, from the first multiple of ``general.alignment`` (32 by default) after the table.

The file format is machinery, not maths: it lives here, not in attn_core. Nothing is
imported from llama.cpp or the ``gguf`` package; the layouts follow ggml's ``ggml-common.h``
and ``ggml-quants.c``.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = [
    "BLOCK",
    "GGML_TYPES",
    "GGUFError",
    "GGUFFile",
    "TensorInfo",
    "dequantize",
    "dequantize_q4_1",
    "dequantize_q8_0",
    "pack_q4_1",
    "pack_q8_0",
    "read_gguf",
]

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32

#: ggml's type numbers for the formats read here.
GGML_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 8: "Q8_0"}
#: Each format's (values per block, bytes per block).
BLOCK = {"F32": (1, 4), "F16": (1, 2), "Q4_1": (32, 20), "Q8_0": (32, 34)}

# Metadata value types: number -> struct format (8: string, 9: array are read apart).
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_NUMPY = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 10: "<u8"}
_NUMPY |= {11: "<i8", 12: "<f8"}


class GGUFError(ValueError):
    """A file that is not a GGUF file this reader understands, or is cut short."""


class TensorInfo(NamedTuple):
    """One row of the tensor table: numpy's shape (the file's sizes reversed), ggml's type
    name, and where its bytes are (from the start of the file)."""

    name: str
    shape: tuple
    type: str
    start: int
    nbytes: int


class _Cursor:
    """Reads little-endian values from ``buf`` and says where a file is cut short."""

    def __init__(self, buf, path):
        self.buf, self.pos, self.path = buf, 0, path

    def take(self, n, what):
        end = self.pos + n
        if end > len(self.buf):
            raise GGUFError(
                f"{self.path} ends at byte {len(self.buf)} while reading {what} (bytes "
                f"{self.pos}-{end}): the file is truncated. Fetch it again (`make model`)."
            )
        out, self.pos = self.buf[self.pos : end], end
        return out

    def scalar(self, fmt, what):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]

    def string(self, what):
        n = self.scalar("<Q", what)
        if n > len(self.buf):
            raise GGUFError(f"{self.path}: {what} claims {n} bytes, more than the whole file")
        return bytes(self.take(n, what)).decode("utf-8", errors="surrogateescape")

    def value(self, vtype, what):
        if vtype in _SCALARS:
            return self.scalar(_SCALARS[vtype], what)
        if vtype == 8:
            return self.string(what)
        if vtype == 9:
            etype, n = self.scalar("<I", what), self.scalar("<Q", what)
            if etype in _NUMPY:  # numbers: one numpy view, not n Python objects
                size = np.dtype(_NUMPY[etype]).itemsize
                return np.frombuffer(self.take(n * size, what), _NUMPY[etype]).copy()
            if etype == 7:
                return np.frombuffer(self.take(n, what), np.uint8).astype(bool)
            return [self.value(etype, what) for _ in range(n)]
        raise GGUFError(
            f"{self.path}: {what} has metadata type {vtype}, which GGUF does not define"
        )


class GGUFFile(NamedTuple):
    """A GGUF file's header, metadata and tensor table, and its bytes (a read-only memory map)."""

    path: Path
    version: int
    metadata: dict
    tensors: dict  # name -> TensorInfo, in the file's order
    data_start: int
    alignment: int
    buffer: np.ndarray  # uint8, the whole file

    def raw(self, name):
        """A tensor's bytes, uint8, without copying."""
        t = self._info(name)
        return self.buffer[t.start : t.start + t.nbytes]

    def tensor(self, name, dtype=np.float32):
        """A tensor dequantised to ``dtype``, in numpy's shape (the file's sizes reversed)."""
        t = self._info(name)
        return dequantize(self.raw(name), t.type, t.shape).astype(dtype, copy=False)

    def _info(self, name):
        if name not in self.tensors:
            raise KeyError(
                f"{self.path} has no tensor {name!r}; it has {len(self.tensors)} tensors"
            )
        return self.tensors[name]


def read_gguf(path):
    """Read a GGUF file's header, metadata and tensor table; the tensors stay on disk (a
    memory map) until :meth:`GGUFFile.tensor` dequantises one."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No GGUF file at {path}")
    buffer = np.memmap(path, dtype=np.uint8, mode="r")
    cur = _Cursor(memoryview(buffer), path)  # a memoryview slices faster than a memmap
    magic = bytes(cur.take(4, "the magic number"))
    if magic != MAGIC:
        raise GGUFError(f"{path} is not a GGUF file: it starts with {magic!r}, not {MAGIC!r}")
    version = cur.scalar("<I", "the version")
    if version not in (2, 3):
        raise GGUFError(f"{path} is GGUF version {version}; this reader knows versions 2 and 3")
    n_tensors = cur.scalar("<Q", "the number of tensors")
    n_kv = cur.scalar("<Q", "the number of metadata pairs")
    metadata = {}
    for i in range(n_kv):
        key = cur.string(f"metadata key {i}")
        metadata[key] = cur.value(cur.scalar("<I", f"the type of {key}"), key)
    alignment = int(metadata.get("general.alignment", DEFAULT_ALIGNMENT))
    if alignment <= 0 or alignment & (alignment - 1):
        raise GGUFError(f"{path}: general.alignment = {alignment} is not a power of two")
    table = []
    for i in range(n_tensors):
        name = cur.string(f"the name of tensor {i}")
        n_dims = cur.scalar("<I", f"{name}'s number of dimensions")
        dims = [cur.scalar("<Q", f"{name}'s sizes") for _ in range(n_dims)]
        type_id = cur.scalar("<I", f"{name}'s type")
        offset = cur.scalar("<Q", f"{name}'s offset")
        table.append((name, tuple(reversed(dims)), type_id, offset))
    data_start = -(-cur.pos // alignment) * alignment  # the next multiple of the alignment
    tensors = {}
    for name, shape, type_id, offset in table:
        kind = GGML_TYPES.get(type_id)
        if kind not in BLOCK:
            raise GGUFError(
                f"{path}: tensor {name} has ggml type {type_id} ({kind or 'unknown'}); "
                f"this reader dequantises {', '.join(BLOCK)}"
            )
        per_block, block_bytes = BLOCK[kind]
        count = int(np.prod(shape, dtype=np.int64))
        if count % per_block:
            raise GGUFError(f"{path}: tensor {name} has {count} values, not whole {kind} blocks")
        nbytes = count // per_block * block_bytes
        start = data_start + offset
        if offset % alignment:
            raise GGUFError(
                f"{path}: tensor {name}'s offset {offset} is not aligned to {alignment}"
            )
        if start + nbytes > len(buffer):
            raise GGUFError(
                f"{path}: tensor {name} needs bytes {start}-{start + nbytes}, but the file ends "
                f"at {len(buffer)}: it is truncated. Fetch it again (`make model`)."
            )
        tensors[name] = TensorInfo(name, shape, kind, start, nbytes)
    return GGUFFile(path, version, metadata, tensors, data_start, alignment, buffer)


def dequantize_q4_1(raw):
    """Q4_1 blocks to float32: each 20 bytes, a float16 scale d, a float16 minimum m and 16
    bytes of 4-bit codes q, give 32 numbers w = d·q + m.

    Byte j holds value j in its low four bits and value j + 16 in its high four
    (ggml-quants.c, ``dequantize_row_q4_1``).

    >>> dequantize_q4_1(pack_q4_1(0.5, -1.0, np.arange(32) % 16))[:4]
    array([-1. , -0.5,  0. ,  0.5], dtype=float32)
    """
    blocks = _blocks(raw, 20, "Q4_1")
    d = blocks[:, 0:2].copy().view("<f2").astype(np.float32)  # [n, 1]
    m = blocks[:, 2:4].copy().view("<f2").astype(np.float32)  # [n, 1]
    qs = blocks[:, 4:]  # [n, 16]
    w = np.empty((len(blocks), 32), np.float32)
    w[:, :16], w[:, 16:] = qs & 0x0F, qs >> 4  # the codes q: low nibbles, then high
    w *= d  # in place: d·q + m without a second [n, 32] array
    w += m
    return w.reshape(-1)


def dequantize_q8_0(raw):
    """Q8_0 blocks to float32: each 34 bytes, a float16 scale d and 32 signed bytes q,
    give 32 numbers w = d·q.

    >>> dequantize_q8_0(pack_q8_0(0.25, np.arange(-16, 16)))[:3]
    array([-4.  , -3.75, -3.5 ], dtype=float32)
    """
    blocks = _blocks(raw, 34, "Q8_0")
    d = blocks[:, 0:2].copy().view("<f2").astype(np.float32)  # [n, 1]
    return (d * blocks[:, 2:].view(np.int8)).reshape(-1)


def dequantize(raw, kind, shape):
    """The bytes ``raw`` of a tensor of ggml type ``kind`` as float32 of numpy shape ``shape``."""
    raw = np.asarray(raw, dtype=np.uint8)
    if kind == "Q4_1":
        flat = dequantize_q4_1(raw)
    elif kind == "Q8_0":
        flat = dequantize_q8_0(raw)
    elif kind == "F32":
        flat = raw.view("<f4").astype(np.float32)
    elif kind == "F16":
        flat = raw.view("<f2").astype(np.float32)
    else:
        raise GGUFError(f"cannot dequantise ggml type {kind!r}; known: {', '.join(BLOCK)}")
    return flat.reshape(shape)


def pack_q4_1(d, m, codes):
    """One Q4_1 block's 20 bytes from its scale, minimum and 32 codes 0-15 (for tests and the
    chapter's block by hand)."""
    codes = _codes(codes, 0, 15, "Q4_1")
    nibbles = (codes[:16] | (codes[16:] << 4)).astype(np.uint8)
    return np.float16(d).tobytes() + np.float16(m).tobytes() + nibbles.tobytes()


def pack_q8_0(d, codes):
    """One Q8_0 block's 34 bytes from its scale and 32 codes -128-127."""
    codes = _codes(codes, -128, 127, "Q8_0")
    return np.float16(d).tobytes() + codes.astype(np.int8).tobytes()


def _codes(codes, low, high, kind):
    codes = np.asarray(codes)
    whole = codes.size and np.array_equal(codes, np.round(codes))
    if codes.shape != (32,) or not whole or codes.min() < low or codes.max() > high:
        raise ValueError(f"a {kind} block holds 32 whole codes from {low} to {high}, got {codes!r}")
    return codes.astype(np.int64)


def _blocks(raw, size, kind):
    raw = np.frombuffer(raw, dtype=np.uint8) if isinstance(raw, bytes) else np.asarray(raw)
    if raw.dtype != np.uint8 or raw.ndim != 1 or raw.size % size:
        raise GGUFError(
            f"{kind} data must be whole {size}-byte blocks of uint8, got "
            f"{raw.size} values of {raw.dtype}"
        )
    return raw.reshape(-1, size)
