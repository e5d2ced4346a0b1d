"""MiniLM weights load without a second copy and the word table stays in its file: the
safetensors reader and the RSS it costs."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from storage import minilm


@pytest.fixture(scope="module")
def tensors() -> minilm._SafeTensors:
    return minilm._SafeTensors(minilm.model_dir() / "model.safetensors")


def test_read_and_rows_give_load_files_values(tensors: minilm._SafeTensors) -> None:
    from safetensors.numpy import load_file

    ref = load_file(str(tensors.path))
    for name in ("embeddings.word_embeddings.weight", "embeddings.LayerNorm.bias",
                 "encoder.layer.5.intermediate.dense.weight", "embeddings.position_ids"):
        got = tensors.read(name)
        assert got.dtype == ref[name].dtype and np.array_equal(got, ref[name]), name
        assert got.flags.owndata and got.flags.writeable
    table = ref["embeddings.word_embeddings.weight"]
    rows = tensors.rows("embeddings.word_embeddings.weight")
    assert isinstance(rows, minilm._FileRows) and rows.shape == table.shape
    ids = np.array([[101, 2040, 2040, 0, 102], [30521, 7, 101, 0, 0]])
    got = rows.take(ids, axis=0)
    assert got.dtype == np.float32 and got.shape == (2, 5, 384)
    assert np.array_equal(got, table[ids]) and np.array_equal(rows.take(ids[0]), table[ids[0]])
    assert rows.take(np.zeros((1, 0), dtype=np.int64)).shape == (1, 0, 384)
    for bad in ([30522], [-1]):
        with pytest.raises(IndexError):
            rows.take(np.array(bad))


def test_rows_are_safe_from_several_threads(tensors: minilm._SafeTensors) -> None:
    from concurrent.futures import ThreadPoolExecutor

    rows = tensors.rows("embeddings.word_embeddings.weight")
    table = tensors.read("embeddings.word_embeddings.weight")
    batches = [np.random.default_rng(seed).integers(0, 30522, (4, 64)) for seed in range(64)]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(rows.take, batches))
    assert all(np.array_equal(g, table[b]) for g, b in zip(got, batches, strict=True))


def test_the_word_table_stays_in_the_file_and_layers_are_contiguous() -> None:
    enc = minilm.default_encoder()
    enc.encode(["who should i start tomorrow"] * 40)
    bert = enc._bert
    assert bert is not None and isinstance(bert.word, minilm._FileRows)
    maps = Path("/proc/self/maps")
    if maps.exists():
        assert "model.safetensors" not in maps.read_text()
    for layer in bert.layers:
        for m in (layer.qkv_w, layer.ao_w, layer.i_w, layer.o_w):
            assert m.dtype == np.float32 and m.flags.c_contiguous


def _safetensors(path: Path, header: dict, data: bytes) -> Path:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    return path


def test_other_float_dtypes_come_back_as_float32(tmp_path: Path) -> None:
    data = np.arange(6, dtype="<f2").tobytes()
    st = minilm._SafeTensors(_safetensors(
        tmp_path / "m.safetensors", {"t": {"dtype": "F16", "shape": [2, 3],
                                           "data_offsets": [0, len(data)]}}, data))
    for arr in (st.read("t"), st.rows("t")):
        assert isinstance(arr, np.ndarray) and arr.dtype == np.float32
        assert arr.take(np.array([1, 0]), axis=0).tolist() == [[3, 4, 5], [0, 1, 2]]


@pytest.mark.parametrize("header, data, match", [
    ({"t": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8, "truncated"),
    ({"t": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}, b"\0" * 8, "truncated"),
    ({"t": {"dtype": "F32", "shape": [3], "data_offsets": [0, 16]}}, b"\0" * 16, "size"),
    ({"t": {"dtype": "Q9", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 16, "no usable"),
    ({}, b"", "no usable"),
])
def test_bad_files_raise_embedding_error(tmp_path: Path, header: dict, data: bytes,
                                         match: str) -> None:
    st = minilm._SafeTensors(_safetensors(tmp_path / "m.safetensors", header, data))
    with pytest.raises(minilm.EmbeddingError, match=match):
        st.read("t")
    with pytest.raises(minilm.EmbeddingError, match=match):
        st.rows("t").take(np.array([1]))


def test_a_missing_or_cut_header_raises_embedding_error(tmp_path: Path) -> None:
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(struct.pack("<Q", 100) + b'{"t": ')
    for path in (tmp_path / "missing.safetensors", cut):
        with pytest.raises(minilm.EmbeddingError, match="header"):
            minilm._SafeTensors(path)


#: Load plus a first short encode (after numpy/tokenizers are imported) used to cost 101 MiB
#: steady and 174 MiB at its peak (two full copies of the weights); now 57 MiB for both (the
#: layers' 42 MiB on the heap, the tokenizer; the word table is read row by row).
MAX_LOAD_MIB = 90.0


def test_load_and_first_encode_stay_under_their_memory_budget() -> None:
    script = textwrap.dedent("""
        import re
        import numpy, tokenizers, threadpoolctl
        from storage import minilm
        def kib(key):
            status = open("/proc/self/status").read()
            return int(re.search(key + r":\\s+(\\d+)", status).group(1))
        before = kib("VmRSS")
        encoder = minilm.MiniLMEncoder()
        encoder.encode(["who should i start tomorrow"])
        print((kib("VmRSS") - before) / 1024, (kib("VmHWM") - before) / 1024)
    """)
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc on this system")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    steady, peak = (float(v) for v in out.stdout.split())
    assert steady < MAX_LOAD_MIB and peak < MAX_LOAD_MIB, (steady, peak)
