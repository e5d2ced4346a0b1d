"""Offline MiniLM embedder (numpy forward pass) and the embedder factory.

The weights load once per process (`default_encoder()` is a process-wide singleton).
"""

from __future__ import annotations

import numpy as np
import pytest

from storage.embeddings import (
    MINILM_DIM,
    GoogleEmbeddingFunction,
    MiniLMEmbeddingFunction,
    MiniLMEncoder,
    cosine,
    default_encoder,
    make_embedder,
    model_dir,
)


@pytest.fixture(scope="module")
def encoder() -> MiniLMEncoder:
    enc = default_encoder()
    enc.load()
    return enc


def test_model_files_located_without_importing_package() -> None:
    import sys

    folder = model_dir()
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert "sentence_transformers" not in sys.modules


def test_shape_dtype_and_unit_norm(encoder: MiniLMEncoder) -> None:
    texts = ["Ja Morant is out tonight.", "", "word " * 600]  # empty and > 256 tokens
    v = encoder.encode(texts)
    assert v.shape == (3, MINILM_DIM) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert encoder.encode([]).shape == (0, MINILM_DIM)


def test_matches_sentence_transformers_reference(encoder: MiniLMEncoder) -> None:
    """The similarity matrix from the sentence-transformers README for all-MiniLM-L6-v2."""
    v = encoder.encode(["The weather is lovely today.", "It's so sunny outside!",
                        "He drove to the stadium."])
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=2e-3)
    assert sims[0, 2] == pytest.approx(0.1046, abs=2e-3)
    assert sims[1, 2] == pytest.approx(0.1411, abs=2e-3)


def test_cosine_check_paraphrase_vs_unrelated(encoder: MiniLMEncoder) -> None:
    """Design check: ~0.64 for paraphrased Morant injury lines, 0.12-0.26 for unrelated."""
    a = "Morant sprained his right ankle Tuesday; Memphis lists him as doubtful."
    b = "Grizzlies guard Ja Morant will miss the game with an ankle injury."
    unrelated = ["Nikola Jokic recorded a triple-double in the Nuggets win.",
                 "The Knicks signed a guard to a 10-day contract."]
    va, vb, *vu = encoder.encode([a, b, *unrelated])
    para = cosine(va, vb)
    assert para == pytest.approx(0.657, abs=0.03)
    for u in vu:
        assert 0.1 <= cosine(va, u) <= 0.3
        assert para - cosine(va, u) > 0.3


def test_batching_and_padding_do_not_change_vectors(encoder: MiniLMEncoder) -> None:
    texts = ["short", "a much longer sentence about Zion Williamson's hamstring injury",
             "medium length line here"]
    together = encoder.encode(texts, batch_size=3)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_chroma_embedding_function_protocol(encoder: MiniLMEncoder) -> None:
    ef = make_embedder(None)
    assert isinstance(ef, MiniLMEmbeddingFunction)
    out = ef(["Stephen Curry is questionable", "Zion is out"])
    assert len(out) == 2 and out[0].shape == (MINILM_DIM,)
    assert ef.name() == "fanvise-minilm-l6-v2" and ef.default_space() == "cosine"
    rebuilt = MiniLMEmbeddingFunction.build_from_config(ef.get_config())
    np.testing.assert_allclose(rebuilt(["Zion is out"])[0], out[1], atol=1e-6)
    assert not ef.is_legacy()


def test_google_embedder_chosen_with_key_and_key_never_shown() -> None:
    key = "AIza-test-secret-key-123"
    ef = make_embedder(key)
    assert isinstance(ef, GoogleEmbeddingFunction)
    assert key not in repr(ef) and key not in str(ef.get_config())
    assert GoogleEmbeddingFunction.build_from_config(ef.get_config()).get_config() == \
        ef.get_config()
