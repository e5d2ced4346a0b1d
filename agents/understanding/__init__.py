"""Understanding a message, once, into one typed `Request` (agents.understanding.request).

    ctx = await understanding_context(deps, last=..., last_list=...)  # league_context.py
    request = understand(text, ctx)                                   # offline
    request = await understand_with_model(text, ctx, model)           # with a model

Offline, entities come from rules (entities.py, word lists in lexicon.py) and the player
resolver (fantasy.player_resolver), and the intent from the semantic router (router.py) over
the utterance bank (bank/). With a model, one structured-output call reads the intent
(model.py) and the offline router is the fallback.
"""

from agents.understanding.context import UnderstandingContext
from agents.understanding.model import understand_with_model
from agents.understanding.request import Intent, Request
from agents.understanding.understand import understand

__all__ = ["Intent", "Request", "UnderstandingContext", "understand", "understand_with_model"]
