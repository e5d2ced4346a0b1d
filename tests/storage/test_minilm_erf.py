"""MiniLM's GELU without scipy for small inputs gives the same embeddings, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import erf as scipy_erf

from storage import minilm

SENTENCES = ["help", "who should i start tomorrow", "is brunson playing tonight?",
             "Ja Morant is out with a sprained ankle", "need blocks, who do i stream",
             "Review my matchup and help me optimize for this week", "standings",
             "how has haliburton been playing?", "my guard is DTD, hold or stream?"]


def test_math_erf_matches_scipy_after_the_float32_cast() -> None:
    z = (np.random.default_rng(7).standard_normal(2_000_000) * 3).astype(np.float32)
    z = z / np.sqrt(2.0)
    mine = minilm._math_erf(z).astype(np.float64).astype(np.float32)
    assert np.array_equal(mine, scipy_erf(z).astype(np.float32))


@pytest.mark.parametrize("batch", [False, True])
def test_embeddings_are_identical_either_way(monkeypatch, batch: bool) -> None:
    encoder = minilm.default_encoder()
    texts = SENTENCES if batch else SENTENCES[:1]
    monkeypatch.setattr(minilm, "_erf", scipy_erf)
    with_scipy = np.stack([encoder.encode([t])[0] for t in texts])
    monkeypatch.setattr(minilm, "_erf",
                        lambda z: minilm._math_erf(z).astype(np.float64))
    with_math = np.stack([encoder.encode([t])[0] for t in texts])
    assert with_math.dtype == with_scipy.dtype and np.array_equal(with_math, with_scipy)


def test_one_query_takes_the_math_path_with_scipys_result() -> None:
    z = np.linspace(-4, 4, 1000)
    assert minilm.SMALL_ERF >= 256 * 1536  # one query of 256 tokens, one layer
    assert np.array_equal(minilm._erf(z).astype(np.float32), scipy_erf(z).astype(np.float32))
