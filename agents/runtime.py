"""FanViseRuntime: the one object bot/core talks to.

    rt = await FanViseRuntime.open(data_dir)                  # demo league, offline model
    async for ev in rt.ask("console:1", "Review my matchup", user_id="u1"): ...
    async for ev in rt.decide(req.run_thread_id, req.interrupt_id, "approve", user_id="u1"): ...
    await rt.close()

Threads: the conversation (supervisor) uses `conversation_id` as its LangGraph thread, so
follow-ups have history. Every approval-gated workflow run gets its own thread
`<conversation_id>:opt:<12 hex>` and a row in the `fanvise_runs` table; its outcome is
appended to the conversation when it finishes. Checkpoints live in
`<data_dir>/checkpoints.sqlite` on one connection with its own thread (see storage.checkpoints).

Events (agents.shared.types): Progress from the graphs' custom stream, ApprovalRequest from
interrupts, Answer at the end of a turn, Notice for errors and late clicks. No secret
(cookies, API keys) ever enters state, events or logs.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from agents.shared.deps import AgentDeps, WriterFactory, with_stale_note
from agents.shared.llm import OfflineChatModel, is_offline, make_model
from agents.shared.player_pool import player_pool
from agents.shared.types import (
    Answer,
    ApprovalRequest,
    Event,
    MoveOutcomes,
    Notice,
    NoticeCode,
    Progress,
)
from agents.supervisor.graph import build_supervisor_graph, optimizer_builder
from agents.supervisor.state import SupervisorContext
from agents.understanding.league_context import command_request
from agents.understanding.request import Intent, Request
from fantasy.espn.errors import EspnError
from fantasy.espn.messages import espn_trouble
from fantasy.move_card import MoveCard, MoveOutcome
from fantasy.moves import text_of
from storage.backend import open_checkpoint_store
from storage.checkpoints import CheckpointStore, RunRecord
from storage.crashpoint import crash_point
from storage.db import DatabaseBusy

log = logging.getLogger(__name__)

CHECKPOINTS_FILE = "checkpoints.sqlite"
ALREADY_DECIDED = "This card was already decided."
EXPIRED = "This approval has expired or does not exist any more."
RUN_MARK = ":opt:"


def new_run_thread_id(conversation_id: str) -> str:
    """`<conversation_id>:opt:<12 hex>`: a fresh thread for one approval-gated run."""
    return f"{conversation_id}{RUN_MARK}{uuid.uuid4().hex[:12]}"


def conversation_of(run_thread_id: str) -> str:
    """The conversation id a run thread belongs to."""
    return run_thread_id.rsplit(RUN_MARK, 1)[0]


def espn_notice(exc: EspnError) -> Notice:
    """A clear, secret-free message for an ESPN failure (fantasy.espn.messages)."""
    text = espn_trouble(exc)
    return Notice(text, level="error", code=NoticeCode.ESPN_DOWN)


class _LockMap:
    """thread id -> asyncio.Lock, kept only while referenced (held or awaited)."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    def __getitem__(self, key: str) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def __len__(self) -> int:
        return len(self._locks)


class RecoveredRun(tuple):  # noqa: SLOT001 - a (conversation_id, events) pair plus its run
    """`(conversation_id, events)` of a run finished by recovery; `.run` is its record
    (requester, team, intent), so the chat side restores who asked and for which team."""

    run: RunRecord | None

    def __new__(cls, conversation_id: str, events: list[Event],
                run: RunRecord | None = None) -> RecoveredRun:
        self = super().__new__(cls, (conversation_id, events))
        self.run = run
        return self


#: Optimizer intents whose runs never pause for approval (the graph routes them past
#: present_and_confirm). Such a run has no side effects and, after a crash, starts again
#: from its recorded input (`recover_crashed_runs`), so its steps need no checkpoint of
#: their own: it is saved once, when it ends ("exit").
NEVER_PAUSES = frozenset({Intent.LINEUP_OPTIMIZATION})


def run_durability(intent: str, inp: Any) -> str:
    """LangGraph durability of an optimizer run: "exit" for a fresh run of an intent that
    never pauses, "async" (a checkpoint per step) for the rest, and always for a resumed
    run, which applies decisions step by step."""
    if isinstance(inp, Command) or not isinstance(inp, dict):
        return "async"
    obj = inp.get("request_obj")
    asked = obj.get("intent") if isinstance(obj, dict) else None
    if intent in NEVER_PAUSES and asked in NEVER_PAUSES:
        return "exit"
    return "async"


def _cfg(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


class FanViseRuntime:
    """Runs the supervisor and workflow graphs with durable SQLite checkpoints."""

    def __init__(self, *, store: CheckpointStore, espn: Any, model: BaseChatModel,
                 news: Any, my_team_id: int | None, owns_espn: bool,
                 player_names: list[str],
                 optimizer_graph_builder: Callable[..., Any] | None = None,
                 owns_model: bool = False) -> None:
        self.store = store
        self.espn = espn
        self.model = model
        self.news = news
        self.my_team_id = my_team_id
        #: the chat's command list for help answers (FanViseRuntime.open's commands_text)
        self.commands_text = ""
        #: team id -> its approved moves still to be made (set by the chat core: the app's
        #: move schedule); every turn's deps carry it (`AgentDeps.scheduled`)
        self.scheduled: Callable[[int], Awaitable[list[Any]]] | None = None
        #: the deployment's ESPN writer (AgentDeps.writer), handed in by the chat core
        self.writers: WriterFactory | None = None
        self.week_moves: Callable[..., Awaitable[list[Any]]] | None = None
        self.player_names = player_names
        self._owns_espn = owns_espn
        self._optimizer_build = optimizer_graph_builder
        self._owns_model = owns_model
        self._optimizer_graph: Any = None  # compiled once, on first use (see _optimizer)
        self._supervisor_graph: Any = None  # compiled once, on first use (see _supervisor)
        # weak: a lock lives while someone holds or waits for it (no unbounded growth)
        self._conv_locks: _LockMap = _LockMap()
        self._run_locks: _LockMap = _LockMap()
        self._closed = False

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(cls, data_dir: Path, *, espn: Any = None, model: BaseChatModel | None = None,
                   news: Any = None, my_team_id: int | None = None,
                   optimizer_graph_builder: Callable[..., Any] | None = None,
                   database_url: str | None = None,
                   commands_text: str = "") -> FanViseRuntime:
        """Open the checkpoint store in `data_dir`; `espn=None` -> demo league (state in
        data_dir), `model=None` -> `make_model()` (Gemini if GOOGLE_API_KEY else offline).

        `optimizer_graph_builder` replaces `build_matchup_optimizer_graph` (same signature:
        `(*, checkpointer) -> compiled graph` reading the turn's AgentDeps from its runtime
        context).
        """
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        owns = espn is None
        if espn is None:
            from fantasy.demo import open_demo_client

            espn = open_demo_client("points", state_path=data_dir / "demo-state-points.json")
        # Postgres (AsyncPostgresSaver) for a FANVISE_DATABASE_URL, else SQLite in data_dir
        store = await open_checkpoint_store(database_url or data_dir / CHECKPOINTS_FILE)
        try:
            probe = AgentDeps.for_client(espn, model or OfflineChatModel(), news=news,
                                         my_team_id=my_team_id)
            names = await _league_names(probe)
            owns_model = model is None
            if model is None:
                model = make_model(player_names=names)
            elif isinstance(model, OfflineChatModel) and not model.player_names:
                model.player_names = names
        except BaseException:
            await store.close()
            if owns:
                await espn.aclose()
            raise
        runtime = cls(store=store, espn=espn, model=model, news=news, my_team_id=my_team_id,
                      owns_espn=owns, player_names=names,
                      optimizer_graph_builder=optimizer_graph_builder, owns_model=owns_model)
        runtime.commands_text = commands_text
        return runtime

    async def close(self) -> None:
        """Close the checkpoint connection (and the demo client this runtime opened)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self.store.close()
        finally:
            try:
                aclose = getattr(self.model, "aclose", None)
                if self._owns_model and aclose is not None:
                    await aclose()  # Gemini's HTTP sessions
            except Exception as exc:  # noqa: BLE001 - closing must not fail shutdown
                log.warning("closing the model failed: %s", type(exc).__name__)
            finally:
                if self._owns_espn:
                    await self.espn.aclose()

    async def __aenter__(self) -> FanViseRuntime:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def offline(self) -> bool:
        """True when answers come from the offline rule-based model."""
        return is_offline(self.model)

    async def warm_up(self) -> dict[str, float]:
        """Do the first turn's one-time work before serving (a bot calls it at start-up,
        `FanViseApp.open(warm_up=True)`): load the intent router's encoder and bank vectors,
        import and compile the supervisor, optimizer and research graphs, load the plan
        solver (scipy's HiGHS) on a tiny problem, then read and parse the league, pro
        schedule and free agents through the ESPN client and its cache and build the player
        name resolvers over them (what every team's first question reads). Nothing is answered, checkpointed or precomputed for a team:
        answers are the same with or without it. Each step that fails is logged and skipped
        (a turn then does it as before). Returns the seconds each step took."""
        import time as _time

        took: dict[str, float] = {}

        async def step(name: str, fn: Callable[[], Any]) -> None:
            t0 = _time.perf_counter()
            try:
                out = fn()
                if asyncio.iscoroutine(out):
                    await out
            except Exception as exc:  # noqa: BLE001 - warming is best effort
                log.info("warm-up %s skipped: %s", name, type(exc).__name__)
            took[name] = round(_time.perf_counter() - t0, 4)
            await asyncio.sleep(0)  # let anything already waiting run

        def router() -> None:
            from agents.understanding.router import default_router

            r = default_router()
            r.notice = lambda count, seconds: log.warning(
                "embedding %d router phrases no vector store holds (about %.0f s, once; "
                "scripts/install.sh and the Docker image do this at install)", count, seconds)
            r.load()  # bank vectors (the store built at install) and the MiniLM weights
            r._encoder.encode(["warm up"])  # first encode; the score cache is not touched

        def graphs() -> None:
            from agents.supervisor.graph import research_subgraph

            self._supervisor()
            self._optimizer()
            research_subgraph()

        def solver() -> None:
            import numpy as np

            from fantasy.optimizer.plan import best_plan

            v = np.array([[1.0, 1.0], [2.0, 0.0], [0.5, 1.0], [3.0, 3.0], [2.5, 2.0]])
            best_plan(v, [1] * 5, [2], list(range(5)), [0, 1, 2], [3, 4], 2)  # the MILP

        async def league() -> None:
            from agents.shared.deps import load_context, optimizer_for

            deps = self._deps(None)
            if not self.player_names:
                await self._load_names(deps)
            from agents.shared.player_pool import league_resolver
            from agents.understanding.league_context import understanding_context

            await optimizer_for(deps)  # schedule, league, free agents (150), the service
            await understanding_context(deps)  # the name resolver over the league's players
            await league_resolver(deps)  # the tools' resolver
            deps.reset_context()
            await load_context(deps, with_free_agents=True)  # the player answers' 100

        await step("router", router)
        await step("graphs", graphs)
        await step("solver", solver)
        # the modules imported above live as long as the process (see gc.freeze below);
        # league data read next is not frozen (it is replaced when the league changes)
        gc.freeze()
        await step("league", league)
        return took

    # ------------------------------------------------------------------ graphs

    def _deps(self, team_id: int | None, *, default_team: bool = True) -> SupervisorContext:
        """The turn's deps: the runtime context of the supervisor, and of the optimizer run
        it delegates to (a SupervisorContext is an AgentDeps). `default_team=False`: no team
        when `team_id` is None (a chat member without a link), never the deployment's."""
        deps = SupervisorContext.for_client(
            self.espn, self.model, news=self.news,
            player_names=tuple(self.player_names),
            # None: the supervisor asks whether the optimizer is installed when a turn
            # would delegate to it (a help turn does not import it)
            can_delegate=None if self._optimizer_build is None else True,
            understanding_model=None if self.offline else self.model,
            commands_text=self.commands_text, scheduled=self.scheduled,
            writer=self.writers,
            week_moves=self.week_moves,
            my_team_id=team_id if team_id is not None else self.my_team_id)
        if team_id is None and not default_team:
            deps.my_team_id = None  # team intents then get the supervisor's needs_team route
        return deps

    async def _load_names(self, deps: AgentDeps) -> None:
        """Player names for intent classification (retried when ESPN failed at start)."""
        self.player_names = await _league_names(deps)
        if not self.player_names:
            return
        model = getattr(self.model, "bound", self.model)
        if isinstance(model, OfflineChatModel):
            model.player_names = list(self.player_names)

    def _supervisor(self) -> Any:
        """The supervisor graph, compiled once on this runtime's checkpointer; each turn
        passes its SupervisorContext (`_deps`) as the runtime context."""
        if self._supervisor_graph is None:
            self._supervisor_graph = build_supervisor_graph(checkpointer=self.store.saver)
        return self._supervisor_graph

    def _optimizer_builder(self) -> Callable[..., Any] | None:
        return self._optimizer_build or optimizer_builder()

    def _optimizer(self) -> Any | None:
        """The optimizer graph, compiled once on this runtime's checkpointer (None when the
        workflow is not installed); each run passes its deps as the runtime context."""
        if self._optimizer_graph is None:
            build = self._optimizer_builder()
            if build is None:
                return None
            self._optimizer_graph = build(checkpointer=self.store.saver)
        return self._optimizer_graph

    async def _stream(self, graph: Any, inp: Any, thread_id: str, *, durability: str,
                      sink: list[Any], deps: AgentDeps
                      ) -> AsyncIterator[Progress | MoveOutcomes]:
        """Run a graph with `deps` as its runtime context, yielding Progress (and the typed
        outcomes of a decided card); interrupts seen are appended to `sink`."""
        async for item in graph.astream(inp, _cfg(thread_id), stream_mode=["custom", "updates"],
                                        subgraphs=True, durability=durability, context=deps):
            _ns, mode, data = item
            if mode == "custom":
                if isinstance(data, Progress):  # agents.shared.progress
                    if data.text:
                        crash_point(f"stage:{data.stage}")
                        yield data
                elif isinstance(data, dict) and isinstance(data.get("outcomes"), list):
                    # a decided card's typed outcomes (the graph's apply step)
                    yield MoveOutcomes(thread_id, [MoveOutcome.of(o) for o in data["outcomes"]
                                                   if isinstance(o, dict)])
                elif isinstance(data, dict):
                    text = str(data.get("text") or data.get("status") or data.get("stage") or "")
                    if text:
                        crash_point(f"stage:{data.get('stage') or ''}")
                        yield Progress(text=text, stage=str(data.get("stage") or ""))
                elif isinstance(data, str) and data:
                    yield Progress(text=data)
            elif mode == "updates" and isinstance(data, dict) and "__interrupt__" in data \
                    and not _ns:
                sink.extend(data["__interrupt__"])

    # ------------------------------------------------------------------ ask

    async def ask(self, conversation_id: str, text: str, *, user_id: str,
                  team_id: int | None = None,
                  request: Request | None = None,
                  default_team: bool = True) -> AsyncIterator[Event]:
        """One chat turn: Progress*, then ApprovalRequest or Answer (Notice on error).

        `request` is an already understood request (a slash command, a clicked offer): the
        supervisor then skips understanding `text` (which is still stored as the message).
        `default_team=False` with no `team_id`: the asker has no team (see `_deps`)."""
        text = (text or "").strip()
        if not text and request is not None:
            text = request.text or request.intent.value.replace("_", " ")
        if not text:
            yield Notice("Ask me something, e.g. \"Review my matchup\" or \"help\".")
            return
        deps = self._deps(team_id, default_team=default_team)
        if not self.player_names:
            await self._load_names(deps)
            deps.player_names = tuple(self.player_names)
        delegate: dict[str, Any] | None = None
        async with self._conv_locks[conversation_id], self.store.lease(f"conv:{conversation_id}"):
            try:
                sup = self._supervisor()
                inp = {"messages": [HumanMessage(content=text)], "user_id": user_id,
                       "request_in": (request.model_dump(mode="json")
                                      if request is not None else None)}
                async for ev in self._stream(sup, inp, conversation_id, durability="exit",
                                             sink=[], deps=deps):
                    yield ev
                values = (await sup.aget_state(_cfg(conversation_id))).values
            except EspnError as exc:
                yield espn_notice(exc)
                return
            except DatabaseBusy as exc:  # another process holds a database file locked
                log.error("turn failed in %s: %s is locked", conversation_id, exc.path)
                yield Notice(str(exc), level="error", code=NoticeCode.DATABASE_BUSY)
                return
            except Exception as exc:  # noqa: BLE001 - never a traceback to the user
                log.error("turn failed in %s: %s", conversation_id, type(exc).__name__,
                          exc_info=log.isEnabledFor(logging.DEBUG))
                yield Notice("Sorry, something went wrong while answering. Please try again.",
                             level="error", code=NoticeCode.ERROR)
                return
            delegate = values.get("delegate")
            if not delegate:
                await self._safe_prune(conversation_id)
                if values.get("espn_down"):
                    yield Notice("ESPN is not reachable right now, so I can't read your "
                                 "league. Please try again in a few minutes.", level="error",
                                 code=NoticeCode.ESPN_DOWN)
                    return
                yield Answer(text=with_stale_note(str(values.get("answer") or ""), deps),
                             intent=str(values.get("intent") or ""),
                             report=values.get("report"),
                             offline=self.offline or bool(values.get("model_fallback")),
                             needs_team=bool(values.get("needs_team")),
                             tool_calls=list(values.get("tool_calls") or []),
                             offers=[str(o.get("label") or "")
                                     for o in values.get("offers") or []],
                             offers_id=str(values.get("offers_id") or ""))
                return
        # the message's other questions, answered by the supervisor: before the run when
        # they were asked first ("am i winning, and who do i start on the 27th"), after it
        # otherwise
        told = str(values.get("answer") or "")
        first = bool(delegate.get("answer_first"))
        if told and first:
            yield self._told(told, values, deps)
        async for event in self._start_run(conversation_id, delegate, deps, user_id):
            yield event
        for later in delegate.get("then") or []:
            # a further optimizer question of the message ("drop X for Y and who do i start
            # tomorrow"): its own run, after the one before has its card or answer
            async for event in self._start_run(conversation_id, {"request_obj": later}, deps,
                                               user_id):
                yield event
        if told and not first:
            yield self._told(told, values, deps)

    def _told(self, text: str, values: dict[str, Any], deps: AgentDeps) -> Answer:
        """The supervisor's answer to the questions of a message the optimizer run does not
        answer."""
        return Answer(text=with_stale_note(text, deps), intent=str(values.get("intent") or ""),
                      report=values.get("report"),
                      offline=self.offline or bool(values.get("model_fallback")),
                      needs_team=bool(values.get("needs_team")),
                      tool_calls=list(values.get("tool_calls") or []))

    async def _start_run(self, conversation_id: str, delegate: dict[str, Any],
                         deps: AgentDeps, user_id: str) -> AsyncIterator[Event]:
        graph = self._optimizer()
        if graph is None:
            yield Notice("The matchup optimizer is not available in this build.", level="error",
                         code=NoticeCode.UNAVAILABLE)
            return
        run_tid = new_run_thread_id(conversation_id)
        request = Request.model_validate(delegate["request_obj"])
        intent = request.intent.value
        inp = {"request_obj": request.model_dump(mode="json"), "requester_id": user_id}
        await self.store.record_run(run_tid, conversation_id, status="running",
                                    requester=user_id, team_id=deps.my_team_id, intent=intent,
                                    run_input=inp)
        crash_point("run:recorded")
        async with self._run_locks[run_tid], self.store.lease(f"run:{run_tid}"):
            async for ev in self._drive_run(graph, inp, run_tid, conversation_id, intent,
                                            deps=deps):
                yield with_stale_note(ev, deps)  # answers on stale ESPN data say how old

    async def _drive_run(self, graph: Any, inp: Any, run_tid: str, conversation_id: str,
                         intent: str, *, deps: AgentDeps) -> AsyncIterator[Event]:
        """Stream a workflow run (context `deps`) until it pauses or ends; record status
        and outcome."""
        interrupts: list[Any] = []
        # a resumed node runs again from its start: its "Waiting for your approval" line
        # (emitted before interrupt()) would be replayed after the decision
        replay = "present_and_confirm" if isinstance(inp, Command) else None
        try:
            async for ev in self._stream(graph, inp, run_tid,
                                         durability=run_durability(intent, inp),
                                         sink=interrupts, deps=deps):
                if replay is not None and getattr(ev, "stage", "") == replay:
                    replay = None
                    continue
                replay = None
                yield ev
            snap = await graph.aget_state(_cfg(run_tid))
        except EspnError as exc:
            await self.store.set_run_status(run_tid, "failed")
            yield espn_notice(exc)
            return
        except Exception as exc:  # noqa: BLE001
            log.error("run %s failed: %s", run_tid, type(exc).__name__,
                      exc_info=log.isEnabledFor(logging.DEBUG))
            await self.store.set_run_status(run_tid, "failed")
            yield Notice("Sorry, the optimizer failed. Please try again.", level="error",
                         code=NoticeCode.ERROR)
            return
        pending = list(snap.interrupts) or interrupts
        if pending:
            await self.store.set_run_status(run_tid, "pending")
            crash_point("run:pending")
            await self._safe_prune(run_tid)  # keep-latest: a paused run still resumes
            # One pending interrupt at most: only present_and_confirm interrupts and the
            # optimizer graph never runs two nodes in one step (pinned by
            # tests/reliability/test_single_interrupt.py).
            req = self._approval(run_tid, pending[0])
            await self._append_outcome(conversation_id, _approval_note(req))
            yield req
            return
        await self.store.set_run_status(run_tid, "done")
        crash_point("run:done")
        values = snap.values or {}
        answer = str(values.get("answer") or "")
        await self._append_outcome(conversation_id, answer)
        await self._safe_prune(run_tid)
        yield Answer(text=answer, intent=intent, report=values.get("report"),
                     offline=self.offline, tool_calls=list(values.get("tool_calls") or []))

    @staticmethod
    def _approval(run_tid: str, intr: Any) -> ApprovalRequest:
        v = intr.value if isinstance(intr.value, dict) else {"summary": str(intr.value)}
        card = MoveCard.from_payload(v)
        if not card.title:
            card = card.model_copy(update={"title": "Approve these moves?"})
        return ApprovalRequest(run_thread_id=run_tid, interrupt_id=intr.id, card=card,
                               requester_id=str(v.get("requester_id") or card.requester_id))

    async def _append_outcome(self, conversation_id: str, text: str) -> None:
        """Append a finished run's answer to the conversation thread (history)."""
        if not text:
            return
        try:
            sup = self._supervisor()
            async with self._conv_locks[conversation_id], self.store.lease(f"conv:{conversation_id}"):
                await sup.aupdate_state(_cfg(conversation_id),
                                        {"messages": [AIMessage(content=text)]},
                                        as_node="synthesize")
        except Exception as exc:  # noqa: BLE001 - history is best effort
            log.warning("could not append outcome to %s: %s", conversation_id,
                        type(exc).__name__)

    async def _safe_prune(self, thread_id: str) -> None:
        try:
            await self.store.prune_thread(thread_id, drop_subgraphs=RUN_MARK not in thread_id)
        except Exception as exc:  # noqa: BLE001
            log.warning("prune of a thread failed: %s", type(exc).__name__)

    async def offered_request(self, conversation_id: str, offers_id: str,
                              index: int) -> tuple[str, Request] | None:
        """(label, request) of offer `index` of the conversation's last answer, or None when
        the offers were replaced by a newer answer (a stale button) or do not exist."""
        try:
            values = (await self._supervisor().aget_state(
                _cfg(conversation_id))).values or {}
        except Exception as exc:  # noqa: BLE001 - a bad id is a stale button, not a crash
            log.warning("could not read offers of a conversation: %s", type(exc).__name__)
            return None
        offers = values.get("offers") or []
        if not offers_id or values.get("offers_id") != offers_id \
                or not 0 <= index < len(offers):
            return None
        try:
            return (str(offers[index].get("label") or ""),
                    Request.model_validate(offers[index].get("request") or {}))
        except ValueError:
            return None

    async def command_request(self, intent: Intent, *, args: str = "",
                              player: str | None = None, players: Sequence[str] = (),
                              drop: str | None = None,
                              team_id: int | None = None) -> Request:
        """A slash command's request, built directly: the intent is the command's, the
        entities (categories, position, day) come from its argument and `player` (or
        `players`, and `drop`) are resolved by the league's player resolver."""
        return await command_request(self._deps(team_id), intent, args=args, player=player,
                                     players=players, drop=drop)

    # ------------------------------------------------------------------ decide

    async def decide(self, run_thread_id: str, interrupt_id: str,
                     decision: str | dict[str, str], *, user_id: str) -> AsyncIterator[Event]:
        """Resume an approval: "approve"/"decline" (all moves) or {move_id: decision}.

        Idempotent: under the run's lock the interrupt must still be pending, else
        Notice(ALREADY_DECIDED) and nothing changes; an unknown run -> Notice(EXPIRED).
        """
        run = await self.store.get_run(run_thread_id)
        if run is None:
            yield Notice(EXPIRED, level="warning", code=NoticeCode.EXPIRED)
            return
        if run.status == "done":  # its checkpoints may be pruned already
            yield Notice(ALREADY_DECIDED, code=NoticeCode.ALREADY_DECIDED)
            return
        if run.status == "expired":
            yield Notice(EXPIRED, level="warning", code=NoticeCode.EXPIRED)
            return
        async with self._run_locks[run_thread_id], self.store.lease(f"run:{run_thread_id}"):
            deps = self._deps(run.team_id)
            graph = self._optimizer()
            if graph is None:
                yield Notice("The matchup optimizer is not available in this build.",
                             level="error", code=NoticeCode.UNAVAILABLE)
                return
            snap = await graph.aget_state(_cfg(run_thread_id))
            if not snap.values and not snap.next:
                yield Notice(EXPIRED, level="warning", code=NoticeCode.EXPIRED)
                return
            intr = next((i for i in snap.interrupts if i.id == interrupt_id), None)
            if intr is None:
                yield Notice(ALREADY_DECIDED, code=NoticeCode.ALREADY_DECIDED)
                return
            try:
                decisions = resolve_decisions(intr.value, decision)
            except ValueError as exc:
                yield Notice(str(exc), level="warning")
                return
            log.info("run %s decided by %s: %s", run_thread_id, user_id, decisions)
            # durable before it is acted on: after a crash, recovery finishes this decision
            await self.store.record_decision(run_thread_id, user_id, decisions,
                                             interrupt_id=interrupt_id, status="resuming")
            crash_point("decide:recorded")
            async for ev in self._drive_run(
                    graph, Command(resume={interrupt_id: {"decisions": decisions}}),
                    run_thread_id, run.conversation_id, run.intent, deps=deps):
                yield with_stale_note(ev, deps)

    # ------------------------------------------------------------------ queries / recovery

    async def pending_approvals(self, conversation_id: str | None = None, *,
                                orphaned_only: bool = False, takeover: bool = False
                                ) -> list[ApprovalRequest]:
        """Approvals waiting for a click (survive restarts), oldest first. `orphaned_only`
        (recovery): not those of runs another live process drives (on SQLite: all);
        `takeover`: only those of another instance that died (on SQLite: none)."""
        out: list[ApprovalRequest] = []
        runs = await self.store.list_runs(statuses=("pending",), conversation_id=conversation_id,
                                          orphaned_only=orphaned_only, takeover=takeover)
        graph = self._optimizer() if runs else None
        for run in runs:
            if graph is None:
                break
            snap = await graph.aget_state(_cfg(run.run_thread_id))
            if snap.interrupts:
                out.extend(self._approval(run.run_thread_id, i) for i in snap.interrupts[:1])
            elif not snap.next and not snap.tasks:
                await self.store.set_run_status(run.run_thread_id, "done")
        return out

    async def recover_crashed_runs(self, *, takeover: bool = False
                                   ) -> list[tuple[str, list[Event]]]:
        """Finish runs a crash left mid-flight; returns `RecoveredRun`s
        `(conversation_id, events)` with `.run` (requester, team) for the chat side.

        - `next` set, or a step whose tasks all saved their writes before the crash (the
          next checkpoint was lost; LangGraph's `next` omits tasks with writes, so the
          snapshot still lists them in `tasks`): the run goes on from its last checkpoint.
        - paused at the interrupt a recorded decision answers (status "resuming"): that
          decision is applied, never asked again.
        - paused at an interrupt nobody decided: status "pending" (the chat side shows its
          card; see `pending_approvals`).
        - no checkpoint to go on from (a crash before the first one, or an unfinished state):
          the run starts again from its recorded input; without one, a Notice to ask again.
        - finished but not delivered: its Answer.
        """
        done: list[tuple[str, list[Event]]] = []
        # `takeover` (a live process's periodic pass): only runs of another instance that
        # died, never this process's own, which may be in flight
        runs: list[RunRecord] = await self.store.list_runs(statuses=("running", "resuming"),
                                                           orphaned_only=True,
                                                           takeover=takeover)
        for run in runs:
            graph = self._optimizer()
            if graph is None:
                break
            deps = self._deps(run.team_id)
            tid = run.run_thread_id
            snap = await graph.aget_state(_cfg(tid))
            inp: Any = None
            if snap.interrupts:
                decided = run.decisions()
                # the decided interrupt, or the same question asked again (a crash before
                # the resumed node's checkpoint re-runs it: same moves, a new interrupt id)
                same = next((i for i in snap.interrupts if i.id == run.decided_interrupt
                             or (decided and _move_ids(i.value) == set(decided))), None)
                if run.status != "resuming" or not decided or same is None:
                    await self.store.set_run_status(tid, "pending")
                    continue
                log.info("run %s: finishing the decision recorded before a crash", tid)
                inp = Command(resume={same.id: {"decisions": decided}})
            elif not snap.next and not snap.tasks:
                values = snap.values or {}
                if values.get("answer"):
                    await self.store.set_run_status(tid, "done")
                    answer = self._answer(values, run.intent)
                    await self._append_outcome(run.conversation_id, answer.text)
                    done.append(RecoveredRun(run.conversation_id, [answer], run))
                    continue
                inp = run.run_input()
                if run.status == "resuming":
                    # a decision was being applied and no checkpoint can go on: never start
                    # the run over (it would plan and ask again); say so instead
                    await self.store.set_run_status(tid, "failed")
                    done.append(RecoveredRun(run.conversation_id, [Notice(
                        "A restart interrupted applying this decision and it can no longer "
                        "be finished here; check your roster before asking again.",
                        level="warning", code=NoticeCode.RUN_LOST)], run))
                    continue
                if inp is None:
                    await self.store.set_run_status(tid, "failed")
                    done.append(RecoveredRun(run.conversation_id, [Notice(
                        "A request was interrupted by a restart before it started; "
                        "please ask again.", level="warning")], run))
                    continue
                log.info("run %s: starting again from its recorded input", tid)
                await self.store.saver.adelete_thread(tid)
            events: list[Event] = []
            decided = run.decisions() if run.status == "resuming" else {}
            async with self._run_locks[tid], self.store.lease(f"run:{tid}"):
                for _ in range(2):
                    events = [ev async for ev in self._drive_run(
                        graph, inp, tid, run.conversation_id, run.intent, deps=deps)]
                    last = events[-1] if events else None
                    # the crash lost the resume: the same question came back; answer it with
                    # the decision recorded before the crash (never ask it twice)
                    if not (decided and isinstance(last, ApprovalRequest)
                            and {m.move_id for m in last.card.moves} == set(decided)):
                        break
                    log.info("run %s: answering a repeated approval with the recorded "
                             "decision", tid)
                    await self.store.record_decision(tid, run.decided_by, decided,
                                                     interrupt_id=last.interrupt_id,
                                                     status="resuming")
                    inp = Command(resume={last.interrupt_id: {"decisions": decided}})
            done.append(RecoveredRun(run.conversation_id, events, run))
        return done

    def _answer(self, values: dict[str, Any], intent: str) -> Answer:
        """A finished run's Answer, from its final state."""
        answer = str(values.get("answer") or "")
        return Answer(text=answer, intent=intent, report=values.get("report"),
                      offline=self.offline, tool_calls=list(values.get("tool_calls") or []))

    async def run_info(self, run_thread_id: str) -> RunRecord | None:
        """The run record (requester, team, status, recorded decision), or None."""
        return await self.store.get_run(run_thread_id)

    async def runs_of(self, conversation_id: str) -> list[RunRecord]:
        """Every run of a conversation, oldest first."""
        return await self.store.list_runs(conversation_id=conversation_id)

    async def run_outcome(self, run_thread_id: str, *,
                          after_interrupt: str | None = None) -> list[Event]:
        """The final Answer of a finished run (to close a card whose process died after the
        run ended); [] when the run is not finished or its checkpoints are gone.

        `after_interrupt` (the decided card's interrupt): when the run took that decision
        and paused again at a newer interrupt (a partial decision: the rest of the plan as
        a new card), the outcomes it recorded and the new approval."""
        run = await self.store.get_run(run_thread_id)
        graph = self._optimizer()
        if run is None or graph is None:
            return []
        snap = await graph.aget_state(_cfg(run_thread_id))
        if after_interrupt and snap.interrupts and \
                all(i.id != after_interrupt for i in snap.interrupts):
            records = [MoveOutcome.of(a) for a in (snap.values or {}).get("applied_moves")
                       or [] if isinstance(a, dict) and a.get("move_id")]
            return [MoveOutcomes(run_thread_id, records),
                    self._approval(run_thread_id, snap.interrupts[0])]
        if snap.next or snap.interrupts or not (snap.values or {}).get("answer"):
            return []
        return [self._answer(snap.values, run.intent)]

    async def prune(self, *, max_idle_days: float = 30.0, ended_run_days: float = 1.0,
                    pending_run_days: float = 7.0) -> dict[str, int]:
        """Retention: delete idle threads, the checkpoints of runs that ended more than
        `ended_run_days` ago (their outcome is in the conversation and the runs table),
        expire approvals nobody decided within `pending_run_days` (a matchup week), keep
        the newest checkpoint of the others, VACUUM."""
        before = await self.store.size_bytes()
        idle = await self.store.delete_idle_threads(max_idle_days)
        ended = await self.store.delete_finished_run_threads(ended_run_days)
        expired = await self.store.expire_pending_runs(pending_run_days)
        rows = 0
        for tid in await self.store.thread_ids():
            rows += await self.store.prune_thread(tid)
        await self.store.vacuum()
        after = await self.store.size_bytes()
        return {"threads_deleted": len(idle), "ended_runs_deleted": len(ended),
                "pending_runs_expired": len(expired), "rows_deleted": rows,
                "bytes_before": before, "bytes_after": after}


async def _league_names(deps: AgentDeps) -> list[str]:
    """Names of ESPN's player list (fast), else of rosters + free agents; [] if ESPN fails
    or takes longer than one ESPN timeout in all (start-up must not wait on a slow ESPN;
    the names are retried next turn). The demo client has no timeout and is not bounded."""
    timeout = getattr(deps.espn, "timeout", None)
    try:
        return await asyncio.wait_for(_league_names_unbounded(deps), timeout=timeout)
    except TimeoutError:
        log.info("player names took longer than %.1fs (ESPN slow); will retry next turn",
                 timeout)
        return []


async def _league_names_unbounded(deps: AgentDeps) -> list[str]:
    try:
        names = {p.name for p in await deps.espn.get_all_players()}
        if names:
            return sorted(names)
    except EspnError as exc:
        log.info("player list unavailable (%s); trying rosters", type(exc).__name__)
    try:
        return sorted({p.name for p in await player_pool(deps)})
    except EspnError as exc:
        log.info("player names unavailable (%s); will retry next turn", type(exc).__name__)
        return []


def _approval_note(req: ApprovalRequest) -> str:
    """A one-line history entry for a card waiting for approval."""
    moves = "; ".join(text_of(m) for m in req.moves[:5])
    return f"[Waiting for approval] {req.title}: {moves}" if moves else f"[Waiting] {req.title}"


def _move_ids(payload: Any) -> set[str]:
    if not isinstance(payload, dict):
        return set()
    return {m.move_id for m in MoveCard.from_payload(payload).moves}


def resolve_decisions(payload: Any, decision: str | dict[str, str]) -> dict[str, str]:
    """{move_id: "approve"|"decline"} for every move of an interrupt payload: the card's
    own reading of a decision (MoveCard.resolve: "approve" = the plan's pick of every
    spot, never two moves for one player)."""
    return MoveCard.from_payload(payload if isinstance(payload, dict) else {}).resolve(decision)


__all__ = ["ALREADY_DECIDED", "EXPIRED", "FanViseRuntime", "RecoveredRun", "conversation_of", "espn_notice",
           "new_run_thread_id", "resolve_decisions"]

# Everything imported by now (LangGraph, LangChain, pydantic models, FanVise's modules)
# lives as long as the process: take it out of the collector's generations, so a full
# collection (50-90 ms with these libraries loaded, on 2 cores) does not scan it again during
# turns and at exit. Objects are still freed by reference counting.
gc.freeze()
