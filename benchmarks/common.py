"""What the chat benchmarks share (benchmarks/load.py, load_processes.py, turns.py, soak.py):
the question mix, what marks a failed answer, linking the simulated members, an in-memory
chat surface, and the figures (percentiles, peak memory)."""

from __future__ import annotations

import resource
from dataclasses import dataclass, field

from bot.core.app import FanViseApp
from bot.core.models import OutgoingMessage, ThreadRef, UserRef

#: the mix's questions that answer without a card (benchmarks/load_processes.py makes its
#: cards apart)
PLAIN_QUESTIONS = [
    "Is Jalen Brunson playing tonight?",
    "hello",
    "Who are the best free agents at center this week?",
    "What's the latest on Jordan Poole?",
    "/lineup tomorrow",
    "How many games does my team have left this week?",
    "Is Jarrett Allen injured?",
    "Who is leading my matchup?",
    "Should I pick up Tyus Jones?",
]
#: the link prompt (bot.core.link): a simulated member asked to link got no answer
LINK_PROMPT = "linked your ESPN team yet"
ERROR_MARKERS = ("something went wrong", "could not be processed", "Traceback", LINK_PROMPT)


async def link_members(app: FanViseApp, members: list[tuple[str, UserRef]],
                       team_id: int | None = None) -> None:
    """Link each (workspace, member) to `team_id` (default: the deployment's own team) as
    `/link` stores it: since the linking gate (bot.core.link) a chat member without a link
    gets the link prompt instead of an answer to a team question. Not timed: a member links
    once, before their first question."""
    core = app.core
    team = team_id if team_id is not None else core.default_team_id
    if team is None:
        raise ValueError("no team to link the members to: pass team_id or set FANVISE_TEAM_ID")
    for workspace, user in members:
        await app.app_db.set_link(platform=user.platform, workspace_id=workspace,
                                  user_id=user.user_id, league_id=core.league_id or 0,
                                  season=core.season, team_id=team)


@dataclass
class RecordingSurface:
    """An in-memory ChatSurface: records posts, edits and ephemeral messages."""

    max_text: int = 2000
    posts: dict[str, tuple[ThreadRef, OutgoingMessage]] = field(default_factory=dict)
    edits: int = 0
    ephemerals: list[tuple[str, str]] = field(default_factory=list)
    _n: int = 0

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        self._n += 1
        mid = f"m{self._n}"
        self.posts[mid] = (thread, msg)
        return mid

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        self.edits += 1
        self.posts[message_id] = (thread, msg)

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        self.ephemerals.append((user.user_id, text))

    def texts(self) -> list[str]:
        """Every visible text (messages, card titles/fields/footers, ephemerals)."""
        out = [t for _, t in self.ephemerals]
        for _, msg in self.posts.values():
            out.append(msg.text)
            for c in msg.cards:
                out += [c.title, c.text, c.footer] + [f"{a} {b}" for a, b in c.fields]
        return out


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of `values` by nearest rank; 0.0 when empty."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


__all__ = ["ERROR_MARKERS", "LINK_PROMPT", "PLAIN_QUESTIONS", "RecordingSurface",
           "link_members", "peak_rss_mib", "percentile"]
