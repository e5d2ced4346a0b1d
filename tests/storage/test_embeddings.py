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


# --------------------------------------------------------------------------- Google, faked at the wire

VOCAB = ("ankle", "trade", "rest", "threes")


class _FakeGemini:
    """A local 127.0.0.1 server speaking Gemini's batchEmbedContents (keyword vectors)."""

    def __init__(self, status: int = 200) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.keys: list[str] = []
        keys = self.keys

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                keys.append(self.headers.get("x-goog-api-key", ""))
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if status != 200:
                    body = json.dumps({"error": {"code": status, "status": "PERMISSION_DENIED",
                                                 "message": f"API key {keys[-1]} not valid"}})
                else:
                    vecs = []
                    for req in data["requests"]:
                        text = " ".join(p["text"] for p in req["content"]["parts"]).lower()
                        vecs.append({"values": [1.0 if w in text else 0.0 for w in VOCAB]
                                     + [0.05]})
                    body = json.dumps({"embeddings": vecs})
                raw = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_google_embeddings_through_news_store(tmp_path) -> None:
    from storage.news_store import NewsItem, NewsStore

    server = _FakeGemini()
    try:
        key = "AIza-secret-for-test"
        ef = make_embedder(key, google_base_url=server.url)
        store = NewsStore(tmp_path, embedding_function=ef)
        assert store.collection_name == "news-fanvise-google-genai-gemini-embedding-001"
        items = [NewsItem.create(title=t, url=f"https://e/{i}", published_at="2023-01-24")
                 for i, t in enumerate(["Morant ankle sprain", "Durant trade talk",
                                        "Curry hits eight threes"])]
        assert store.add_items(items) == 3
        assert store.search("trade rumours", limit=1)[0].id == items[1].id
        assert server.keys and set(server.keys) == {key}  # the key only goes to the API
    finally:
        server.close()


def test_google_errors_never_show_the_key() -> None:
    from storage.embeddings import EmbeddingError

    server = _FakeGemini(status=403)
    try:
        key = "AIza-secret-for-test"
        ef = make_embedder(key, google_base_url=server.url)
        with pytest.raises(EmbeddingError) as err:
            ef(["hello"])
        assert key not in str(err.value) and "***" in str(err.value)
        with pytest.raises(EmbeddingError, match="API key"):
            GoogleEmbeddingFunction(None)(["x"])
    finally:
        server.close()


def test_lazy_load_is_thread_safe(monkeypatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from storage import minilm

    calls = []

    class Counting(minilm._SafeTensors):
        def __init__(self, path) -> None:
            calls.append(path)
            super().__init__(path)

    monkeypatch.setattr(minilm, "_SafeTensors", Counting)
    enc = MiniLMEncoder()
    assert not enc.loaded
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda t: enc.encode([t])[0], ["Zion out", "Zion out", "Curry"] * 2))
    assert enc.loaded and len(calls) == 1
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-6)
    np.testing.assert_allclose(outs[0], default_encoder().encode(["Zion out"])[0], atol=1e-6)
