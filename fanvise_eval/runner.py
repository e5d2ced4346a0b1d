"""Run golden cases through the REAL FanViseRuntime on the demo league and score them.

A data directory laid out like the app's (fanvise.sqlite with the ESPN TTL cache,
checkpoints.sqlite, the demo league's state) and a runtime are opened per league variant
(the demo state is reset before every case) or, with isolate="case", per case; a case with
an ESPN outage always gets its own. The demo news store is shared and read-only. The runner
asks the prompt (after any setup turns), answers an approval card as the case says (approve
the first move, approve all, decline, or leave it pending), reads team 1's roster before /
at the card / after from the demo league's state, and scores the run against expectations
resolved from the data (fanvise_eval.expectations).
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from langchain_core.callbacks import BaseCallbackHandler
from threadpoolctl import threadpool_limits

from fantasy.demo import (
    DEMO_BASE_URL,
    DEMO_USER_TEAM_ID,
    DemoLeague,
    DemoTransport,
    open_demo_client,
)
from fantasy.espn.client import EspnClient
from fanvise_eval.dataset import Case
from fanvise_eval.expectations import Oracle, apply_demo_moves
from fanvise_eval.scoring import Check, Observation, score_case

MODES = ("offline", "gemini")
USER_ID = "fanvise-eval"
MAX_DECISION_ROUNDS = 3
DEFAULT_CASE_TIMEOUT = {"offline": 60.0, "gemini": 180.0}
#: "variant": one data dir + runtime per league variant, demo state reset before each case;
#: "case": a fresh data dir + runtime for every case (slower, fully isolated).
ISOLATION = ("variant", "case")
APP_DB_FILE = "fanvise.sqlite"


class EvalConfigError(RuntimeError):
    """The evaluation cannot start (missing API key, unknown case...). Message is for users."""


class LLMCallCounter(BaseCallbackHandler):
    """Counts chat-model calls (LangChain callback on the model itself)."""

    def __init__(self) -> None:
        self.calls = 0

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.calls += 1

    def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
        self.calls += 1


def make_eval_model(mode: str) -> Any:
    """A fresh model for one case: the offline rule-based model, or Gemini (needs a key)."""
    if mode not in MODES:
        raise EvalConfigError(f"unknown model {mode!r}; use one of {', '.join(MODES)}")
    from agents.shared.llm import ENV_API_KEY, OfflineChatModel, make_model

    if mode == "offline":
        return OfflineChatModel()
    if not os.environ.get(ENV_API_KEY, "").strip():
        raise EvalConfigError(f"--model gemini needs the {ENV_API_KEY} environment variable "
                              "(a Google AI Studio API key); it is not set. Use --model "
                              "offline to run without a key.")
    return make_model()


def check_mode(mode: str) -> None:
    """Raise EvalConfigError early when a mode cannot run (e.g. Gemini without a key)."""
    make_eval_model(mode)


@dataclass
class CaseResult:
    """Outcome of one case."""

    case: Case
    checks: list[Check]
    observation: Observation
    expected: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Every check passed."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def failed_checks(self) -> list[Check]:
        """The checks that failed."""
        return [c for c in self.checks if not c.passed]

    @property
    def status(self) -> str:
        """PASS, FAIL, XFAIL (known failure still failing) or XPASS (known failure passes)."""
        if self.case.known_failure:
            return "XPASS" if self.passed else "XFAIL"
        return "PASS" if self.passed else "FAIL"


_NEWS_DIRS: dict[str, Path] = {}


async def demo_news_store(mode: str) -> Any:
    """A NewsStore holding the recorded demo feeds, ingested through the real pipeline.

    Always embedded offline with MiniLM (also in Gemini mode), so retrieval is deterministic
    and the only remote part of a Gemini run is the model. Built once per process; later runs
    in the same process reopen the same Chroma directory.
    """
    from storage.news_ingest import load_demo_news
    from storage.news_store import NewsStore

    kind = "offline"
    d = _NEWS_DIRS.get(kind)
    if d is None:
        d = Path(tempfile.mkdtemp(prefix=f"fanvise-eval-news-{kind}-"))
        atexit.register(shutil.rmtree, d, True)
    store = NewsStore(d, google_api_key=None)
    if store.count() == 0:
        client = open_demo_client("points")
        try:
            players = [(p.id, p.name) for p in await client.get_all_players()]
        finally:
            await client.aclose()
        report = await load_demo_news(store, players)
        if not report.ok:
            raise EvalConfigError(f"loading the demo news failed: {report.summary()}")
    _NEWS_DIRS[kind] = d
    return store


class OutageTransport(httpx.AsyncBaseTransport):
    """The demo league's wire with chosen ESPN views failing (HTTP 503): an ESPN outage."""

    def __init__(self, inner: httpx.AsyncBaseTransport, fail_views: Sequence[str] = ()) -> None:
        self.inner = inner
        self.fail_views = set(fail_views)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        views = set(request.url.params.get_list("view"))
        if "*" in self.fail_views or self.fail_views & views:
            return httpx.Response(503, json={"messages": ["Service Unavailable"]})
        return await self.inner.handle_async_request(request)


def open_eval_client(variant: str, state_path: Path, cache: Any,
                     fail_views: Sequence[str] = ()) -> EspnClient:
    """A demo-league EspnClient (as `fantasy.demo.open_demo_client`) whose wire can fail."""
    league = DemoLeague(variant=variant, state_path=state_path)
    client = EspnClient(league.league_id, league.season,
                        transport=OutageTransport(DemoTransport(league), fail_views),
                        cache=cache, base_url=DEMO_BASE_URL, max_retries=0,
                        today=lambda: league.today)
    client.demo = league
    league.attach_client(client)
    return client


class _Env:
    """One data directory as the app lays it out: fanvise.sqlite (ESPN TTL cache, as the app
    uses), the demo league's state file and a FanViseRuntime (checkpoints.sqlite), plus an
    LLM-call counter on the model."""

    def __init__(self, client: Any, rt: Any, counter: LLMCallCounter, db: Any) -> None:
        self.client = client
        self.rt = rt
        self.counter = counter
        self.db = db

    @property
    def demo(self) -> Any:
        """The demo league's state (rosters, moves)."""
        return self.client.demo

    @classmethod
    async def open(cls, data_dir: Path, variant: str, mode: str, news: Any,
                   fail_views: Sequence[str] = ()) -> _Env:
        from agents.runtime import FanViseRuntime
        from storage.cache import TTLCache
        from storage.db import Database

        shutil.rmtree(data_dir, ignore_errors=True)
        data_dir.mkdir(parents=True)
        db = await Database.open(data_dir / APP_DB_FILE)
        client = open_eval_client(variant, data_dir / "demo-state.json", TTLCache(db),
                                  fail_views)
        model = make_eval_model(mode)
        counter = LLMCallCounter()
        model.callbacks = [counter]
        try:
            rt = await FanViseRuntime.open(data_dir, espn=client, model=model, news=news,
                                           my_team_id=DEMO_USER_TEAM_ID)
        except BaseException:
            await client.aclose()
            await db.close()
            raise
        return cls(client, rt, counter, db)

    async def close(self) -> None:
        try:
            await self.rt.close()
        finally:
            try:
                await self.client.aclose()
            finally:
                await self.db.close()


class SuiteContext:
    """Shared pieces of one evaluation run: news store, oracles, work directory."""

    def __init__(self, mode: str, work_dir: Path | None = None, *,
                 isolate: str = "variant") -> None:
        if isolate not in ISOLATION:
            raise EvalConfigError(f"unknown isolation {isolate!r}; use one of {ISOLATION}")
        self.mode = mode
        self.isolate = isolate
        self._own_dir = work_dir is None
        self.work_dir = Path(work_dir or tempfile.mkdtemp(prefix="fanvise-eval-"))
        self.news: Any = None
        self.oracles: dict[str, Oracle] = {}
        self._envs: dict[str, _Env] = {}

    async def open(self) -> None:
        """Open the demo news store (read-only for the cases)."""
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.news = await demo_news_store(self.mode)

    def oracle(self, case: Case) -> Oracle:
        """The oracle of a case's league state (variant + earlier moves), shared by cases."""
        key = case.variant + repr(case.demo_moves)
        if key not in self.oracles:
            self.oracles[key] = Oracle(case.variant, news=self.news,
                                       demo_moves=case.demo_moves)
        return self.oracles[key]

    async def env(self, case: Case) -> _Env:
        """The runtime environment of a case: per variant (demo state reset before every
        case) or, with isolate="case", a fresh data directory and runtime per case."""
        key = case.id if self._own_env(case) else case.variant
        env = self._envs.get(key)
        if env is None:
            env = await _Env.open(self.work_dir / "runs" / key, case.variant, self.mode,
                                  self.news, case.espn_outage)
            self._envs[key] = env
        env.demo.reset()
        env.counter.calls = 0
        return env

    def _own_env(self, case: Case) -> bool:
        # Earlier roster moves are league state from before the conversation: a fresh runtime
        # sees them from its first read (a shared runtime may hold the league it read before).
        return self.isolate == "case" or bool(case.espn_outage) or bool(case.demo_moves)

    async def release(self, case: Case) -> None:
        """Close a per-case environment (per-variant ones stay open until `close`)."""
        if self._own_env(case):
            env = self._envs.pop(case.id, None)
            if env is not None:
                await env.close()

    async def close(self) -> None:
        """Close runtimes and oracles; remove the work directory when it was temporary."""
        for env in self._envs.values():
            await env.close()
        self._envs.clear()
        for o in self.oracles.values():
            await o.close()
        self.news = None
        if self._own_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)


def _collect(ev: Any, obs: Observation) -> None:
    from agents.shared.types import event_to_dict

    d = event_to_dict(ev)
    kind = d.get("kind")
    if kind == "answer":
        obs.answers.append(d)
        obs.tool_calls.extend(d.get("tool_calls") or [])
    elif kind == "approval":
        obs.approvals.append(d)
    elif kind == "notice":
        obs.notices.append(d)
    elif kind == "progress":
        obs.progress.append(str(d.get("text") or ""))


def _decision(case: Case, moves: list[dict[str, Any]], round_no: int
              ) -> tuple[str | dict[str, str], list[dict[str, Any]]]:
    """(decision for runtime.decide, moves approved). Later cards are always declined."""
    if round_no == 0 and case.decision == "approve_first" and moves:
        return {str(moves[0].get("move_id")): "approve"}, [moves[0]]
    if round_no == 0 and case.decision == "approve_all" and moves:
        return "approve", list(moves)
    return "decline", []


async def _setup_turns(case: Case, rt: Any, conv: str) -> None:
    """Ask the case's earlier messages in the same conversation; decline any card."""
    for text in case.setup_turns:
        prior = Observation()
        async for ev in rt.ask(conv, text, user_id=USER_ID, team_id=DEMO_USER_TEAM_ID):
            _collect(ev, prior)
        for card in prior.approvals:
            async for _ev in rt.decide(card["run_thread_id"], card["interrupt_id"], "decline",
                                       user_id=USER_ID):
                pass


async def _drive(case: Case, env: _Env, obs: Observation) -> None:
    rt, demo = env.rt, env.demo
    conv = f"eval:{case.id}"
    if case.setup_turns:
        await _setup_turns(case, rt, conv)
        env.counter.calls = 0  # only the scored turn counts (the roster check covers all)
    async for ev in rt.ask(conv, case.prompt, user_id=USER_ID, team_id=DEMO_USER_TEAM_ID):
        _collect(ev, obs)
    rounds = 0
    first_decision: str | dict[str, str] | None = None
    while obs.approvals and len(obs.approvals) > rounds and rounds < MAX_DECISION_ROUNDS:
        card = obs.approvals[-1]
        if obs.roster_at_approval is None:
            obs.roster_at_approval = sorted(demo.roster_now(DEMO_USER_TEAM_ID))
        if case.decision == "none":
            return
        decision, approved = _decision(case, list(card.get("moves") or []), rounds)
        obs.approved_moves.extend(approved)
        if rounds == 0:
            first_decision = decision
        rounds += 1
        async for ev in rt.decide(card["run_thread_id"], card["interrupt_id"], decision,
                                  user_id=USER_ID):
            _collect(ev, obs)
    if case.repeat_decision and obs.approvals and first_decision is not None:
        from agents.shared.types import event_to_dict

        obs.roster_after = sorted(demo.roster_now(DEMO_USER_TEAM_ID))
        card = obs.approvals[0]
        obs.repeat_events = [event_to_dict(ev) async for ev in rt.decide(
            card["run_thread_id"], card["interrupt_id"], first_decision, user_id=USER_ID)]
        obs.roster_after_repeat = sorted(demo.roster_now(DEMO_USER_TEAM_ID))


async def run_case(case: Case, ctx: SuiteContext, *, timeout: float | None = None
                   ) -> CaseResult:
    """Run one case through the real FanViseRuntime and score it."""
    obs = Observation(prompt=case.prompt)
    expected: dict[str, Any] = {}
    try:
        expected = await ctx.oracle(case).resolve(case)
    except Exception as exc:  # noqa: BLE001 - a dataset/oracle problem fails this case only
        obs.error = f"expectations could not be computed: {type(exc).__name__}: {exc}"
        return CaseResult(case, [Check("expectations", False, detail=obs.error)], obs)
    limit = timeout or DEFAULT_CASE_TIMEOUT[ctx.mode]
    env = None
    start = time.perf_counter()
    try:
        env = await ctx.env(case)
        apply_demo_moves(env.demo, case.demo_moves)
        obs.roster_before = sorted(env.demo.roster_now(DEMO_USER_TEAM_ID))
        start = time.perf_counter()
        await asyncio.wait_for(_drive(case, env, obs), limit)
    except TimeoutError:
        obs.error = f"timed out after {limit:.0f} s"
    except EvalConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - record, score as failed, go on
        obs.error = f"{type(exc).__name__}: {exc}"
    finally:
        obs.latency_s = round(time.perf_counter() - start, 3)
        if env is not None:
            obs.llm_calls = env.counter.calls
            if obs.roster_after_repeat is None:  # else set before the repeated click
                obs.roster_after = sorted(env.demo.roster_now(DEMO_USER_TEAM_ID))
            await ctx.release(case)
    checks = score_case(expected, obs, offline=ctx.mode == "offline")
    return CaseResult(case, checks, obs, expected)


async def run_cases(cases: list[Case], *, mode: str = "offline", work_dir: Path | None = None,
                    on_result: Callable[[CaseResult], None] | None = None,
                    timeout: float | None = None, isolate: str = "variant"
                    ) -> list[CaseResult]:
    """Run cases one after another (deterministic, light on a shared CPU)."""
    check_mode(mode)
    ctx = SuiteContext(mode, work_dir, isolate=isolate)
    results: list[CaseResult] = []
    # One BLAS thread: on a small shared machine OpenBLAS's thread pool oversubscribes the
    # cores (MiniLM embedding of the demo news measured 7x slower with the default pool).
    with threadpool_limits(limits=1, user_api="blas"):
        try:
            await ctx.open()
            for case in cases:
                res = await run_case(case, ctx, timeout=timeout)
                results.append(res)
                if on_result is not None:
                    on_result(res)
        finally:
            await ctx.close()
    return results


__all__ = ["CaseResult", "EvalConfigError", "OutageTransport", "demo_news_store",
           "open_eval_client", "LLMCallCounter", "MODES", "SuiteContext",
           "ISOLATION", "check_mode", "make_eval_model", "run_case", "run_cases"]
