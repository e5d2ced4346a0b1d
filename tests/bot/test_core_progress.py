"""ProgressEditor / WorkspaceBudget in virtual time: <= 1 progress edit/s per message, the
first after 0.4 s, coalescing, the final state at once, 429 back-off, deleted message,
per-workspace budget."""

from __future__ import annotations

import asyncio
import heapq
import itertools

import pytest

from bot.core.errors import MessageGone, RateLimitedError
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.progress import ProgressEditor, WorkspaceBudget


class VirtualTime:
    """asyncio sleep/clock in virtual time: `run(coro)` advances time only when every task
    is idle, to the earliest pending sleep."""

    def __init__(self) -> None:
        self.t = 0.0
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def clock(self) -> float:
        return self.t

    async def sleep(self, d: float) -> None:
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (self.t + max(d, 0.0), next(self._seq), fut))
        await fut

    async def run(self, coro):
        task = asyncio.ensure_future(coro)
        while not task.done():
            for _ in range(50):
                await asyncio.sleep(0)
                if task.done():
                    break
            if task.done():
                break
            while self._heap:
                t, _, fut = heapq.heappop(self._heap)
                if fut.cancelled():
                    continue
                self.t = max(self.t, t)
                fut.set_result(None)
                break
        return task.result()


class Surface:
    max_text = 2000

    def __init__(self, vt: VirtualTime, *, fail: dict[int, Exception] | None = None) -> None:
        self.vt = vt
        self.edits: list[tuple[float, str, str]] = []
        self.posts: list[tuple[float, str]] = []
        self.fail = fail or {}
        self.calls = 0

    async def post(self, thread: ThreadRef, msg: OutgoingMessage) -> str:
        self.posts.append((self.vt.t, msg.text))
        return f"p{len(self.posts)}"

    async def edit(self, thread: ThreadRef, message_id: str, msg: OutgoingMessage) -> None:
        self.calls += 1
        exc = self.fail.pop(self.calls, None)
        if exc is not None:
            raise exc
        self.edits.append((self.vt.t, message_id, msg.text))

    async def ephemeral(self, thread: ThreadRef, user: UserRef, text: str) -> None:
        raise AssertionError("not used")


T = ThreadRef("slack", "T1", "C1", "1.0")


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


async def test_coalesces_to_one_edit_per_second_and_flushes_final() -> None:
    vt = VirtualTime()
    s = Surface(vt)
    ed = ProgressEditor(s, T, "m1", min_interval=1.0, clock=vt.clock, sleep=vt.sleep)

    async def produce() -> str:
        for i in range(30):  # 30 states over 3 s
            ed.update(f"step {i}")
            await vt.sleep(0.1)
        return await ed.aclose("final answer")

    mid = await vt.run(produce())
    assert mid == "m1"
    progress = [t for t, _, x in s.edits if x != "final answer"]
    assert all(g >= 1.0 - 1e-9 for g in gaps(progress)), progress
    assert 3 <= len(s.edits) <= 5  # 30 states coalesced
    assert s.edits[-1][2] == "final answer"
    # the first progress edit waits first_delay and shows the newest state by then
    assert s.edits[0][0] == pytest.approx(0.4)
    assert s.edits[0][2] in ("step 3", "step 4")  # states 0.1 s apart: float rounding
    assert s.edits[-1][0] == pytest.approx(3.0)  # the final state is not held back
    texts = [x for _, _, x in s.edits]
    assert len(texts) == len(set(texts))


async def test_identical_states_are_not_resent() -> None:
    vt = VirtualTime()
    s = Surface(vt)
    ed = ProgressEditor(s, T, "m1", clock=vt.clock, sleep=vt.sleep)

    async def produce() -> None:
        for _ in range(5):
            ed.update("same")
            await vt.sleep(1.5)
        await ed.aclose("same")

    await vt.run(produce())
    assert [x for _, _, x in s.edits] == ["same"]


async def test_rate_limited_backs_off_and_sends_only_the_newest() -> None:
    vt = VirtualTime()
    s = Surface(vt, fail={2: RateLimitedError(2.5)})
    ed = ProgressEditor(s, T, "m1", clock=vt.clock, sleep=vt.sleep)

    async def produce() -> None:
        ed.update("a")
        await vt.sleep(1.2)
        ed.update("b")          # this edit gets a 429
        await vt.sleep(0.5)
        ed.update("c")          # supersedes b while backing off
        await ed.aclose("final")

    await vt.run(produce())
    texts = [x for _, _, x in s.edits]
    assert texts[0] == "a" and texts[-1] == "final"
    assert "b" not in texts
    fail_time = 1.2  # when b's edit was attempted
    assert s.edits[1][0] >= fail_time + 2.5 - 1e-9


async def test_message_gone_stops_editing_and_posts_final_as_new_message() -> None:
    vt = VirtualTime()
    s = Surface(vt, fail={2: MessageGone("deleted")})
    ed = ProgressEditor(s, T, "m1", clock=vt.clock, sleep=vt.sleep)

    async def produce() -> str:
        ed.update("a")
        await vt.sleep(1.1)
        ed.update("b")       # MessageGone
        await vt.sleep(1.1)
        ed.update("c")       # ignored: the message is gone
        await vt.sleep(1.1)
        return await ed.aclose("final")

    mid = await vt.run(produce())
    assert [x for _, _, x in s.edits] == ["a"]
    assert s.posts == [(pytest.approx(3.3), "final")]
    assert mid == "p1"
    assert s.calls == 2


async def test_workspace_budget_is_shared_by_all_messages_of_a_workspace() -> None:
    vt = VirtualTime()
    s = Surface(vt)
    budget = WorkspaceBudget(per_minute=30, burst=1, clock=vt.clock)  # one edit per 2 s
    eds = [ProgressEditor(s, T, f"m{i}", clock=vt.clock, sleep=vt.sleep, budget=budget)
           for i in range(3)]
    other = ProgressEditor(s, ThreadRef("slack", "T2", "C9", "2.0"), "x1", clock=vt.clock,
                           sleep=vt.sleep, budget=budget)

    async def produce() -> None:
        for i in range(10):
            for ed in eds:
                ed.update(f"{ed.message_id} step {i}")
            other.update(f"other {i}")
            await vt.sleep(0.5)
        await asyncio.gather(*(ed.aclose(f"{ed.message_id} done") for ed in eds),
                             other.aclose("other done"))

    await vt.run(produce())
    t1 = sorted(t for t, mid, _ in s.edits if mid.startswith("m"))
    assert all(g >= 2.0 - 1e-9 for g in gaps(t1)), t1
    # every message still gets its final state
    finals = {mid: txt for _, mid, txt in s.edits}
    assert finals == {"m0": "m0 done", "m1": "m1 done", "m2": "m2 done", "x1": "other done"}
    # the other workspace is not slowed down by T1's budget (1 edit/2 s of its own, burst 1)
    t2 = [t for t, mid, _ in s.edits if mid == "x1"]
    assert len(t2) >= 3


async def test_a_fast_answer_is_one_edit_with_no_progress_flicker() -> None:
    vt = VirtualTime()
    s = Surface(vt)
    ed = ProgressEditor(s, T, "m1", clock=vt.clock, sleep=vt.sleep)

    async def produce() -> None:
        ed.update("Reading your request...")
        await vt.sleep(0.05)  # computed well within first_delay
        ed.update("Writing the answer...")
        await ed.aclose("the answer")

    await vt.run(produce())
    assert [(t, x) for t, _, x in s.edits] == [(pytest.approx(0.05), "the answer")]


async def test_the_final_state_does_not_wait_for_the_edit_interval() -> None:
    """A progress edit just went out; the answer arrives 0.1 s later and goes out then
    (the old editor held it until the 1 s interval had passed)."""
    vt = VirtualTime()
    s = Surface(vt)
    ed = ProgressEditor(s, T, "m1", min_interval=1.0, clock=vt.clock, sleep=vt.sleep)

    async def produce() -> None:
        ed.update("step 1")
        await vt.sleep(0.5)        # step 1 is edited at 0.4
        ed.update("step 2")        # due at 1.4 ...
        await vt.sleep(0.1)
        await ed.aclose("answer")  # ... superseded by the answer at 0.6

    await vt.run(produce())
    assert [(t, x) for t, _, x in s.edits] == [(pytest.approx(0.4), "step 1"),
                                               (pytest.approx(0.6), "answer")]


async def test_the_final_state_still_waits_for_a_rate_limit() -> None:
    vt = VirtualTime()
    s = Surface(vt, fail={1: RateLimitedError(2.0)})
    ed = ProgressEditor(s, T, "m1", clock=vt.clock, sleep=vt.sleep)

    async def produce() -> None:
        ed.update("step 1")        # its edit at 0.4 gets a 429: retry after 2 s
        await vt.sleep(0.5)
        await ed.aclose("answer")  # not before 2.4

    await vt.run(produce())
    assert [(t, x) for t, _, x in s.edits] == [(pytest.approx(2.4), "answer")]
    assert s.calls == 2


def test_budget_reserve_and_penalize() -> None:
    now = [0.0]
    b = WorkspaceBudget(per_minute=60, burst=2, clock=lambda: now[0])
    assert b.reserve("w") == 0.0 and b.reserve("w") == 0.0
    assert b.reserve("w") == pytest.approx(1.0)
    now[0] = 1.0
    assert b.reserve("w") == 0.0
    b.penalize("w", 5.0)
    assert b.reserve("w") == pytest.approx(6.0)
