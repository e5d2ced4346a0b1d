"""Player news in an embedded Chroma collection (persistent under `<data_dir>/chroma`).

    store = NewsStore(data_dir)                      # offline MiniLM embeddings
    store.add_items([NewsItem.create(title=..., summary=..., url=..., source="ESPN",
                                     published_at=dt, player_ids=(4279888,),
                                     player_names=("Ja Morant",))])
    store.news_for_player(4279888)                   # or "Ja Morant"; newest first
    store.search("ankle injury", since=date(2023, 1, 20))   # semantic + recency + trust

News text is untrusted data. The store keeps it as data: control characters are removed,
lengths capped, and items that contain prompt-injection phrases get `suspicious=True`
(see `sanitize_news_text`), so agents can quote them safely and say so.

Chroma metadata cannot hold lists: player tags are stored twice, as delimited strings
(`player_ids` = "|123|456|", to rebuild the item) and as one boolean key per tag
(`pid_123`, `pn_ja_morant`, to filter with `where`).

The store is synchronous (Chroma is); the `a*` methods run it in a worker thread.
Importing this module does not import chromadb (only opening a NewsStore does). `name_key`
lives in `fantasy.player_resolver`; it is re-exported here for older importers.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fantasy.player_resolver import name_key

if TYPE_CHECKING:  # chromadb is imported when a store opens (it is slow to import)
    from chromadb.api.types import LiteralValue, LogicalOperator, Where, WhereOperator

#: Defaults for the combined search score (see `NewsStore.search`).
RECENCY_WEIGHT = 0.15
RECENCY_HALF_LIFE_DAYS = 3.0
TRUST_WEIGHT = 0.1
DEFAULT_MIN_SIMILARITY = 0.2
MAX_TITLE_CHARS = 300
MAX_SUMMARY_CHARS = 2000

# --------------------------------------------------------------------------- sanitising

_INJECTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.IGNORECASE)) for name, rx in (
        ("ignore-instructions",
         r"\b(ignore|disregard|forget|override|bypass)\b[\w\s,'-]{0,40}?\b(previous|prior|above|"
         r"earlier|all|any|your|the|system)\b[\w\s-]{0,20}?\b(instructions?|prompts?|rules|"
         r"directions|guidelines|messages|context)\b"),
        ("new-instructions", r"\b(new|updated|real)\s+instructions?\s*:"),
        ("role-play", r"\byou\s+are\s+now\b|\bact\s+as\s+(an?\s+)?(ai|assistant|system|admin)\b"),
        ("system-prompt", r"\bsystem\s+prompt\b|\bdeveloper\s+mode\b|\bjailbreak\b"),
        ("role-tag", r"(^|\n)\s*(system|assistant|user)\s*:|<\|?(im_start|im_end|system)\|?>|"
                     r"\[/?(INST|SYS)\]"),
        ("roster-command", r"\b(drop|release|cut|trade\s+away|bench)\s+(your|all\s+your|every)\s+"
                           r"(best|top|star|starting)\b"),
        ("tool-command", r"\b(call|run|execute|invoke)\s+the\s+\w+\s+(tool|function)\b"),
    ))


@dataclass(frozen=True)
class SanitizedText:
    """News text made safe to quote: `text` is clean data, `suspicious` flags injection."""

    text: str
    suspicious: bool = False
    reasons: tuple[str, ...] = ()
    truncated: bool = False


def sanitize_news_text(text: str | None, max_chars: int = MAX_SUMMARY_CHARS) -> SanitizedText:
    """Strip control/format characters, collapse whitespace, cap length, flag injection.

    The text is never rewritten to remove instructions (it stays a faithful quote); callers
    must treat it as data and show `suspicious` items as such.
    """
    raw = "" if text is None else str(text)
    chars = []
    for ch in raw:
        cat = unicodedata.category(ch)
        if ch in "\n\t\r":
            chars.append(" " if ch != "\n" else "\n")
        elif cat in ("Cc", "Cf", "Cs", "Co", "Cn"):
            chars.append(" " if cat == "Cc" else "")
        else:
            chars.append(ch)
    clean = "".join(chars)
    clean = re.sub(r"[ \t\u00a0]+", " ", clean)
    clean = re.sub(r"\s*\n\s*", "\n", clean).strip()
    clean = re.sub(r"\n{2,}", "\n", clean)
    reasons = tuple(name for name, rx in _INJECTION_PATTERNS if rx.search(clean))
    truncated = len(clean) > max_chars
    if truncated:
        clean = clean[: max(0, max_chars - 1)].rstrip() + "\u2026"
    return SanitizedText(clean, bool(reasons), reasons, truncated)


# --------------------------------------------------------------------------- items


def stable_id(url: str | None = None, guid: str | None = None) -> str:
    """Stable id of a news item: hash of its guid (preferred) or normalised url."""
    key = (guid or "").strip()
    if not key:
        key = (url or "").strip()
        key = re.sub(r"^https?://", "", key, flags=re.IGNORECASE).rstrip("/").lower()
    if not key:
        raise ValueError("a news item needs a url or a guid")
    return "n" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


def _as_utc(value: datetime | date | str) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return datetime.combine(value, time.min, tzinfo=UTC)


@dataclass(frozen=True)
class NewsItem:
    """One news item. `published_at` is timezone-aware UTC; `score` is set by `search`."""

    id: str
    title: str
    summary: str
    url: str
    source: str
    published_at: datetime
    trust: float = 0.5
    player_ids: tuple[int, ...] = ()
    player_names: tuple[str, ...] = ()
    suspicious: bool = False
    score: float | None = field(default=None, compare=False)
    similarity: float | None = field(default=None, compare=False)

    @classmethod
    def create(cls, *, title: str, summary: str = "", url: str = "", source: str = "",
               published_at: datetime | date | str, trust: float = 0.5, guid: str | None = None,
               player_ids: Iterable[int] = (), player_names: Iterable[str] = ()) -> NewsItem:
        """Build an item with a stable id, sanitised text and the suspicious flag."""
        t = sanitize_news_text(title, MAX_TITLE_CHARS)
        s = sanitize_news_text(summary, MAX_SUMMARY_CHARS)
        return cls(
            id=stable_id(url, guid), title=t.text.replace("\n", " "), summary=s.text,
            url=(url or "").strip(), source=(source or "").strip() or "unknown",
            published_at=_as_utc(published_at), trust=min(1.0, max(0.0, float(trust))),
            player_ids=tuple(dict.fromkeys(int(p) for p in player_ids)),
            player_names=tuple(dict.fromkeys(n.strip() for n in player_names if n.strip())),
            suspicious=t.suspicious or s.suspicious,
        )

    @property
    def published_ts(self) -> int:
        """Publication time as epoch seconds."""
        return int(self.published_at.timestamp())

    @property
    def document(self) -> str:
        """The text that is embedded."""
        return f"{self.title}\n{self.summary}".strip()

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (for tools and graph state). Text is data, never instructions."""
        d: dict[str, Any] = {
            "id": self.id, "title": self.title, "summary": self.summary, "url": self.url,
            "source": self.source, "trust": round(self.trust, 3),
            "published_at": self.published_at.isoformat(), "player_ids": list(self.player_ids),
            "player_names": list(self.player_names), "suspicious": self.suspicious,
        }
        if self.score is not None:
            d["score"] = round(self.score, 4)
        return d

    def metadata(self) -> dict[str, str | int | float | bool]:
        """Chroma metadata (scalars only; tags as delimited strings + boolean keys)."""
        md: dict[str, str | int | float | bool] = {
            "title": self.title, "summary": self.summary, "url": self.url,
            "source": self.source, "trust": float(self.trust),
            "published_at": self.published_at.isoformat(), "published_ts": self.published_ts,
            "player_ids": _join(str(p) for p in self.player_ids),
            "player_names": _join(self.player_names), "suspicious": self.suspicious,
        }
        for pid in self.player_ids:
            md[f"pid_{pid}"] = True
        for name in self.player_names:
            if key := name_key(name):
                md[f"pn_{key}"] = True
        return md

    @classmethod
    def from_metadata(cls, item_id: str, md: dict[str, Any]) -> NewsItem:
        """Rebuild an item from its stored metadata."""
        return cls(
            id=item_id, title=str(md.get("title", "")), summary=str(md.get("summary", "")),
            url=str(md.get("url", "")), source=str(md.get("source", "")),
            published_at=_as_utc(str(md["published_at"])), trust=float(md.get("trust", 0.5)),
            player_ids=tuple(int(p) for p in _split(md.get("player_ids"))),
            player_names=tuple(_split(md.get("player_names"))),
            suspicious=bool(md.get("suspicious", False)),
        )


def _join(values: Iterable[str]) -> str:
    vals = [v.replace("|", "/") for v in values]
    return "|" + "|".join(vals) + "|" if vals else ""


def _published_since(since: datetime | date | str) -> Where:
    """The clause for items published at or after `since`."""
    at_least: dict[WhereOperator | LogicalOperator, LiteralValue] = {
        "$gte": int(_as_utc(since).timestamp())}
    return {"published_ts": at_least}


def _split(value: Any) -> list[str]:
    return [v for v in str(value or "").split("|") if v]


# --------------------------------------------------------------------------- store


class NewsStore:
    """Chroma-backed news store under `<data_dir>/chroma` (telemetry off).

    One collection per embedder (`news-<embedder name>`), cosine space, so switching between
    offline and Google embeddings never mixes vector sizes.
    """

    def __init__(self, data_dir: Path | str, *, embedding_function: Any = None,
                 google_api_key: str | None = None, collection: str | None = None) -> None:
        import chromadb  # noqa: PLC0415 - heavy: only when the news store is used
        from chromadb.config import Settings  # noqa: PLC0415

        from storage.embeddings import make_embedder  # noqa: PLC0415 - imports chromadb

        self.path = Path(data_dir) / "chroma"
        self.path.mkdir(parents=True, exist_ok=True)
        self.embedding_function = embedding_function or make_embedder(google_api_key)
        name = collection or _collection_name(self.embedding_function)
        self._client = chromadb.PersistentClient(
            path=str(self.path), settings=Settings(anonymized_telemetry=False))
        # chromadb types the function for any Embeddable (text or images); ours embeds the
        # text this collection holds, which is all it is ever given
        self._collection = self._client.get_or_create_collection(
            name=name, embedding_function=self.embedding_function,  # type: ignore[arg-type]
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"fanvise": "news"})

    @property
    def collection_name(self) -> str:
        """Name of the Chroma collection in use."""
        return str(self._collection.name)

    def count(self) -> int:
        """Number of stored items."""
        return int(self._collection.count())

    def add_items(self, items: Iterable[NewsItem]) -> int:
        """Upsert items by id (idempotent). Returns how many ids were new to the store."""
        by_id: dict[str, NewsItem] = {}
        for it in items:
            by_id[it.id] = it  # last one wins within a batch
        if not by_id:
            return 0
        ids = list(by_id)
        existing = set(self._collection.get(ids=ids, include=[])["ids"])
        for start in range(0, len(ids), 256):
            chunk = [by_id[i] for i in ids[start:start + 256]]
            self._collection.upsert(
                ids=[it.id for it in chunk], documents=[it.document for it in chunk],
                metadatas=[it.metadata() for it in chunk])  # type: ignore[arg-type]
        return len([i for i in ids if i not in existing])

    def get(self, item_id: str) -> NewsItem | None:
        """One item by id."""
        res = self._collection.get(ids=[item_id], include=["metadatas"])
        if not res["ids"]:
            return None
        return NewsItem.from_metadata(res["ids"][0], dict(res["metadatas"][0]))  # type: ignore[index]

    def news_for_player(self, player: int | str, limit: int = 5,
                        since: datetime | date | str | None = None) -> list[NewsItem]:
        """Items tagged with a player (ESPN id, or full name), newest first."""
        where = self._player_where(player)
        if where is None:
            return []
        if since is not None:
            where = {"$and": [where, _published_since(since)]}
        res = self._collection.get(where=where, include=["metadatas"])
        items = [NewsItem.from_metadata(i, dict(m))
                 for i, m in zip(res["ids"], res["metadatas"] or [], strict=True)]
        items.sort(key=lambda it: (it.published_ts, it.trust), reverse=True)
        return items[: max(0, limit)]

    def search(self, topic: str, limit: int = 5, since: datetime | date | str | None = None, *,
               player: int | str | None = None, now: datetime | date | str | None = None,
               min_similarity: float = DEFAULT_MIN_SIMILARITY) -> list[NewsItem]:
        """Semantic search ranked by similarity + recency + source trust.

        score = similarity + RECENCY_WEIGHT * 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
                + TRUST_WEIGHT * (trust - 0.5); age is measured from `now` (default: the
        newest candidate). Items below `min_similarity` are dropped.
        """
        topic = (topic or "").strip()
        total = self.count()
        if not topic or total == 0 or limit <= 0:
            return []
        clauses: list[Where] = []
        if since is not None:
            clauses.append(_published_since(since))
        if player is not None:
            pw = self._player_where(player)
            if pw is None:
                return []
            clauses.append(pw)
        where: Where | None = None if not clauses else clauses[0] if len(clauses) == 1 else {"$and": clauses}
        n = min(total, max(limit * 4, 20))
        res = self._collection.query(query_texts=[topic], n_results=n, where=where,
                                     include=["metadatas", "distances"])
        ids, metas, dists = res["ids"][0], (res["metadatas"] or [[]])[0], (res["distances"] or [[]])[0]
        items = [NewsItem.from_metadata(i, dict(m)) for i, m in zip(ids, metas, strict=True)]
        if not items:
            return []
        ref = _as_utc(now) if now is not None else max(it.published_at for it in items)
        scored = []
        for it, dist in zip(items, dists, strict=True):
            sim = 1.0 - float(dist)
            if sim < min_similarity:
                continue
            age_days = max(0.0, (ref - it.published_at).total_seconds() / 86400.0)
            recency = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
            score = sim + RECENCY_WEIGHT * recency + TRUST_WEIGHT * (it.trust - 0.5)
            scored.append(replace(it, score=score, similarity=sim))
        scored.sort(key=lambda it: (it.score or -math.inf, it.published_ts), reverse=True)
        return scored[:limit]

    def _player_where(self, player: int | str) -> Where | None:
        digits = isinstance(player, str) and player.strip().isascii() and player.strip().isdigit()
        if isinstance(player, int) or digits:
            return {f"pid_{int(player)}": True}
        key = name_key(str(player))
        return {f"pn_{key}": True} if key else None

    # async wrappers (Chroma is synchronous; keep the event loop free)

    async def aadd_items(self, items: Sequence[NewsItem]) -> int:
        """`add_items` in a worker thread."""
        return await asyncio.to_thread(self.add_items, list(items))

    async def anews_for_player(self, player: int | str, limit: int = 5,
                               since: datetime | date | str | None = None) -> list[NewsItem]:
        """`news_for_player` in a worker thread."""
        return await asyncio.to_thread(self.news_for_player, player, limit, since)

    async def asearch(self, topic: str, limit: int = 5,
                      since: datetime | date | str | None = None, **kwargs: Any
                      ) -> list[NewsItem]:
        """`search` in a worker thread."""
        return await asyncio.to_thread(lambda: self.search(topic, limit, since, **kwargs))


def _collection_name(ef: Any) -> str:
    name = f"news-{ef.name()}"
    model = getattr(ef, "model", None)
    if model:
        name += "-" + re.sub(r"[^a-zA-Z0-9._-]+", "-", str(model).split("/")[-1])
    return name[:60].strip("-._")


__all__ = [
    "DEFAULT_MIN_SIMILARITY", "NewsItem", "NewsStore", "RECENCY_HALF_LIFE_DAYS",
    "RECENCY_WEIGHT", "SanitizedText", "TRUST_WEIGHT", "name_key", "sanitize_news_text",
    "stable_id",
]
