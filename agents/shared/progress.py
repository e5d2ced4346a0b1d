"""One way for a graph to say what it is doing: `progress(stage, text)` writes a typed
`Progress` event on the running graph's custom stream (LangGraph's stream writer), and the
runtime hands it to the chat as it is. Outside a graph run it does nothing.

    progress("scan", "Scanning free agents...")
"""

from __future__ import annotations

from langgraph.config import get_stream_writer

from agents.shared.types import Progress


def progress(stage: str, text: str) -> None:
    """Say `text` (the progress line of `stage`) on the running graph's custom stream."""
    try:
        write = get_stream_writer()
    except RuntimeError:  # not inside a graph run
        return
    write(Progress(text=text, stage=stage))


__all__ = ["progress"]
