"""Recovery after a restart: finish recorded decisions, deliver recovered runs, draw
every pending card once, re-run requests a crash interrupted (see `Recovery.recover`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from agents.shared.types import Notice, NoticeCode, Progress
from agents.understanding.request import Request
from bot.core.approvals import card_thread
from bot.core.errors import ChatError, MessageGone
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.progress import ProgressEditor, post_retrying, progress_facts
from bot.core.render import (
    clip,
    progress_text,
)
from bot.core.surface import ChatSurface
from bot.core.turns import THINKING
from storage.app_db import CardRow, TurnRow
from storage.crashpoint import crash_point

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

#: the first line of a progress message recovery posts for a request it runs again
RERUN_LINE = "Finishing a request interrupted by a restart…"


class Recovery:
    """Recovery after a restart: finish recorded decisions, deliver recovered runs, draw"""

    def __init__(self, core: ChatCore) -> None:
        self.core = core

    async def recover(self, surfaces: dict[str, ChatSurface], *, takeover: bool = False) -> int:
        """After a restart (see docs: crash safety), in this order:

        1. the runtime finishes runs a crash left mid-flight (and decisions it had recorded);
        2. a card stuck in `deciding` holds a decision recorded before it was acted on: it is
           finished (applied if the run still waits for it), never asked again;
        3. the outcome of every other recovered run goes to its thread, for the requester and
           team of its run record (a card keeps who asked and for which team);
        4. every pending interrupt without a card gets one; a card stored but maybe never
           drawn is drawn in the message stored for it, or posted as a new message when it
           has none (`Approvals.show_card`), so each card is shown once;
        5. requests that crashed before their run started are run again (once; a second
           crash tells the requester to ask again), so no request ends silently;
        6. scheduled moves a crash left being made are read back on their day's roster
           (`MoveSchedule.recover`): made or released, never made twice; their cards are
           redrawn;
        7. lineup fixes ("Set this lineup") a crash left being set are read back and
           settled: done, sent once if never made, or left to the member's next tap
           (`Prelock.settle_abandoned`).

        Only orphaned work is taken (storage.processes.orphan_filter): on a shared Postgres
        database, runs, cards and turns of another live process are left to it; on SQLite
        (one process per file) everything is. `takeover=True` (the periodic pass of a live
        Postgres process, bot/commands/run.py): only the work of another instance that died,
        never this process's own in-flight work. Passes of several processes take turns
        (one lease), so a dead instance's work is taken over by one of them.

        `surfaces` maps platform -> surface. Returns the number of runs the runtime finished."""
        store = getattr(self.core.runtime, "store", None)
        lease = getattr(store, "lease", None)
        if lease is None:
            return await self._recover(surfaces, takeover=takeover)
        # a short ttl (renewed every ttl/3 while held): a process killed mid-recovery holds
        # up the next pass (its own restart's included) for seconds, not minutes
        async with lease("fanvise:recovery", ttl=15.0):
            return await self._recover(surfaces, takeover=takeover)

    async def _recover(self, surfaces: dict[str, ChatSurface], *, takeover: bool) -> int:
        try:
            if takeover:
                results = list(await self.core.runtime.recover_crashed_runs(takeover=True))
                pending = await self.core.runtime.pending_approvals(takeover=True)
            else:
                results = list(await self.core.runtime.recover_crashed_runs())
                pending = await self.core.runtime.pending_approvals(orphaned_only=True)
            waiting = {(a.run_thread_id, a.interrupt_id): a for a in pending}
        except Exception as exc:  # noqa: BLE001 - recovery must not stop the bot
            log.error("recovery failed: %s: %s", type(exc).__name__, exc)
            return 0
        orphans = {"takeover": True} if takeover else {"orphaned_only": True}
        by_run: dict[str, tuple[str, list[Any], Any]] = {}
        loose: list[tuple[str, list[Any], Any]] = []
        for item in results:
            conv, events = item[0], item[1]
            run = getattr(item, "run", None)
            if run is not None:
                by_run[run.run_thread_id] = (conv, events, run)
            else:
                loose.append((conv, events, None))
        for card in await self.core.db.cards_by_status("deciding", **orphans):
            try:
                await self._recover_decision(surfaces, card, waiting, by_run)
            except Exception as exc:  # noqa: BLE001
                log.error("could not finish a recorded decision: %s", type(exc).__name__)
        for conv, events, run in [*by_run.values(), *loose]:
            try:
                await self._recover_run(surfaces, conv, events, run)
            except Exception as exc:  # noqa: BLE001
                log.error("could not deliver a recovered run: %s", type(exc).__name__)
        try:
            await self._post_undelivered_cards(surfaces, waiting, orphans)
            await self._recover_turns(surfaces, orphans)
        except Exception as exc:  # noqa: BLE001
            log.error("recovery of cards/requests failed: %s", type(exc).__name__)
        try:  # scheduled moves a crash left being made: read back on their day
            await self.core.moves.recover(surfaces, takeover=takeover)
        except Exception as exc:  # noqa: BLE001
            log.error("recovery of scheduled moves failed: %s", type(exc).__name__)
        try:  # lineup fixes a crash left being set: read back, sent once if never made
            await self.core.prelock.settle_abandoned(surfaces, takeover=takeover)
        except Exception as exc:  # noqa: BLE001
            log.error("recovery of lineup fixes failed: %s", type(exc).__name__)
        return len(results)

    async def _recover_decision(self, surfaces: dict[str, ChatSurface], card: CardRow,
                                waiting: dict[tuple[str, str], Any],
                                by_run: dict[str, tuple[str, list[Any], Any]]) -> None:
        """Finish the decision a `deciding` card recorded before a crash."""
        surface = surfaces.get(card.platform)
        if surface is None:
            return
        thread = card_thread(card)
        decider = UserRef(card.platform, card.decided_by or card.requester_id,
                          card.decided_by_name or card.requester_name)
        line = f"Finishing {decider.name}'s decision interrupted by a restart…"
        progress = await self._decision_message(surface, thread, card, line)
        if await self._waits_for(card, waiting):
            # the run never received it: apply exactly the recorded decision now
            await self.core.approvals.resume(surface, thread, card.message_id, decider, card,
                                             first_line=line, progress_id=progress)
            return
        got = by_run.pop(card.run_thread_id, None)
        # the run took the decision and ended, or paused again with the rest of the plan
        # (a partial decision: its outcomes and the new card)
        final = list(got[1]) if got is not None else \
            await self.core.runtime.run_outcome(card.run_thread_id,
                                                after_interrupt=card.interrupt_id)
        final = [e for e in final if not isinstance(e, Progress)]
        if not final:
            final = [Notice("The outcome of this decision was lost in a restart; check your "
                            "roster before deciding again.", level="warning",
                            code=NoticeCode.OUTCOME_LOST)]
        await self.core.approvals.finish_card(surface, thread, card.message_id, decider, card,
                                self.core.turns.editor(surface, thread, progress), final)

    async def _decision_message(self, surface: ChatSurface, thread: ThreadRef, card: CardRow,
                                line: str) -> str:
        """The progress message of finishing a card's recorded decision, crash-safe: the
        one an earlier recovery posted (its id stored on the card, or found by its first
        line since the intent a kill left without the id) is taken over; else the intent
        is recorded, the message posted and its id stored. A second crash while finishing
        leaves no message stuck at "Finishing …"."""
        msg = OutgoingMessage(progress_text([line]))
        mid = card.progress_id
        find = getattr(surface, "find_messages", None)
        if not mid and card.progress_at is not None and find is not None:
            try:
                found = await find(thread, msg, card.progress_at)
                mid = found[-1] if found else None  # the first posted after the intent
            except Exception as exc:  # noqa: BLE001 - a new message beats none
                log.warning("could not look for a lost progress message: %s",
                            type(exc).__name__)
        if mid:
            try:
                await surface.edit(thread, mid, msg)
                return mid
            except ChatError:
                pass
        await self.core.db.mark_card_progress(card.card_id)
        crash_point("recover-decision:posting")
        mid = await post_retrying(surface, thread, msg, sleep=self.core.sleep)
        crash_point("recover-decision:post-sent")
        await self.core.db.mark_card_progress(card.card_id, mid)
        return mid

    async def _waits_for(self, card: CardRow, waiting: dict[tuple[str, str], Any]) -> bool:
        """True when the card's run still waits at the card's interrupt. `waiting` holds the
        orphaned pending runs only; a pending run nobody drives may carry another (live)
        instance's stamp while this card is orphaned (the click or the card came to a
        process that died), so the card's own conversation is checked too."""
        key = (card.run_thread_id, card.interrupt_id)
        if key in waiting:
            return True
        try:
            more = await self.core.runtime.pending_approvals(card.conversation_id)
        except Exception:  # noqa: BLE001 - treated as not waiting
            return False
        return key in {(a.run_thread_id, a.interrupt_id) for a in more}

    async def _recover_run(self, surfaces: dict[str, ChatSurface], conv: str,
                           events: list[Any], run: Any) -> None:
        """Deliver a run finished by recovery, as its requester, for its team."""
        thread = ThreadRef.from_conversation_id(conv)
        surface = surfaces.get(thread.platform) if thread else None
        if thread is None or surface is None:
            log.warning("a recovered run has no surface here (%s)", conv.split(":")[0])
            return
        final = [e for e in events if not isinstance(e, Progress)]
        requester = run.requester if run is not None and run.requester else ""
        turn = await self.core.db.last_turn_of(conv, requester) if requester else None
        user = UserRef(thread.platform, requester or "fanvise",
                       turn.user_name if turn is not None else ("" if requester else "FanVise"))
        team_id = run.team_id if run is not None else self.core.default_team_id
        line = RERUN_LINE
        reuse = turn.message_id if turn is not None and turn.status == "running" else None
        editor = await self._recovery_editor(surface, thread, line, reuse)
        await self.core.turns.deliver(surface, thread, user, team_id, editor, final)
        if turn is not None:
            await self.core.db.set_turn(turn.turn_id, status="done")

    async def _turn_message(self, surface: ChatSurface, turn: TurnRow) -> str | None:
        """A turn's progress message: the stored one, or the one a process killed between
        posting it and storing its id had posted (its "Thinking…" or a recovery's
        "Finishing…" first line, found since the intent, `find_messages`), so it is taken
        over instead of left as it was."""
        find = getattr(surface, "find_messages", None)
        if turn.message_id or turn.posting_at is None or find is None:
            return turn.message_id
        thread = ThreadRef(turn.platform, turn.workspace_id, turn.channel_id, turn.thread_id)
        found: list[str] = []
        try:
            for first in (THINKING, RERUN_LINE):
                found += await find(thread, OutgoingMessage(progress_text([first])),
                                    turn.posting_at)
        except Exception as exc:  # noqa: BLE001 - a new message beats none
            log.warning("could not look for a lost progress message: %s", type(exc).__name__)
            return None
        return found[-1] if found else None  # the first posted after the intent

    async def _recovery_editor(self, surface: ChatSurface, thread: ThreadRef, line: str,
                               message_id: str | None, *,
                               turn: TurnRow | None = None) -> ProgressEditor:
        """A progress message for recovery's work: `message_id` taken over, else a new
        one. With `turn` the new message is the turn's, crash-safe: the intent is
        recorded before the post and its id after (`_turn_message` finds it after a kill
        in between), so a later recovery edits it instead of leaving it "Finishing…"."""
        msg = OutgoingMessage(progress_text([line]))
        if message_id:
            try:
                await surface.edit(thread, message_id, msg)
                return self.core.turns.editor(surface, thread, message_id)
            except ChatError:
                pass
        if turn is not None:
            await self.core.db.mark_turn_posting(turn.turn_id)
            crash_point("recover-turn:posting")
        mid = await post_retrying(surface, thread, msg, sleep=self.core.sleep)
        if turn is not None:
            crash_point("recover-turn:post-sent")
            await self.core.db.set_turn(turn.turn_id, message_id=mid)
        return self.core.turns.editor(surface, thread, mid)

    async def _post_undelivered_cards(self, surfaces: dict[str, ChatSurface],
                                      waiting: dict[tuple[str, str], Any],
                                      orphans: dict[str, bool] | None = None) -> None:
        """Every pending interrupt gets its card, drawn once: a missing card row is created
        (requester and team from the run record; the interrupted request's progress message
        becomes the one-line summary) and posted as a new message; a stored card that may
        never have been drawn is drawn in its message (or posted when it has none)."""
        for (run_tid, iid), req in waiting.items():
            if await self.core.db.card_for_run(run_tid, iid) is not None:
                continue
            info = getattr(self.core.runtime, "run_info", None)
            run = await info(run_tid) if info is not None else None
            thread = ThreadRef.from_conversation_id(run.conversation_id if run else "")
            surface = surfaces.get(thread.platform) if thread else None
            if run is None or thread is None or surface is None:
                continue
            turn = await self.core.db.last_turn_of(run.conversation_id, run.requester)
            user = UserRef(thread.platform, run.requester,
                           turn.user_name if turn is not None else "")
            reuse = turn.message_id if turn is not None and turn.status == "running" else None
            _, card = await self.core.approvals.approval_message(thread, user, run.team_id, req)
            if reuse:
                try:  # the interrupted request's progress message: the summary line
                    await surface.edit(thread, reuse, OutgoingMessage(
                        await self.core.approvals.ready_line(card)))
                except ChatError:
                    pass
            if turn is not None:
                await self.core.db.set_turn(turn.turn_id, status="done")
        for card in await self.core.db.unshown_cards(**(orphans or {"orphaned_only": True})):
            surface = surfaces.get(card.platform)
            if surface is None or card.status == "deciding" or (
                    card.status == "pending" and not await self._waits_for(card, waiting)):
                continue
            try:
                if card.status == "pending":  # a new message, or the one stored for it
                    await self.core.approvals.show_card(surface, card_thread(card), card)
                    continue
                await self.core.approvals.number_base(card)
                msg = self.core.approvals.card_message(card)  # decided: redrawn in place
                if card.message_id:
                    try:
                        await surface.edit(card_thread(card), card.message_id, msg)
                        await self.core.db.mark_card_shown(card.card_id)
                        continue
                    except MessageGone:
                        pass
                # its message is gone (or it never had one): a new one, crash-safe (the
                # intent first; one a killed recovery posted is adopted, not posted again)
                approvals = self.core.approvals
                mid = await approvals.post_card_message(
                    surface, card_thread(card), card, approvals.head_message(card, msg),
                    step="recover-card")
                await surface.edit(card_thread(card), mid, msg)
            except Exception as exc:  # noqa: BLE001 - recovery must not stop the bot
                log.warning("could not post an undelivered card: %s", type(exc).__name__)
                continue
            await self.core.db.mark_card_shown(card.card_id, mid)

    async def _recover_turns(self, surfaces: dict[str, ChatSurface],
                             orphans: dict[str, bool] | None = None) -> None:
        """Requests a crash interrupted before their run was recorded: run them again once;
        after a second crash, tell the requester to ask again."""
        for turn in await self.core.db.open_turns(**(orphans or {"orphaned_only": True})):
            thread = ThreadRef(turn.platform, turn.workspace_id, turn.channel_id,
                               turn.thread_id)
            surface = surfaces.get(turn.platform)
            if surface is None:
                continue
            runs_of = getattr(self.core.runtime, "runs_of", None)
            runs = await runs_of(turn.conversation_id) if runs_of is not None else []
            if any(r.requester == turn.user_id and r.created >= turn.created_at for r in runs):
                await self.core.db.set_turn(turn.turn_id, status="done")  # its run was recovered
                continue
            user = UserRef(turn.platform, turn.user_id, turn.user_name)
            if turn.attempts >= 2:
                await self.core.db.set_turn(turn.turn_id, status="failed")
                text = (f"⚠️ {user.name}, your request \"{clip(turn.text, 80)}\" was "
                        "interrupted by a restart twice. Please ask again.")
                editor = await self._recovery_editor(surface, thread, text,
                                                     await self._turn_message(surface, turn),
                                                     turn=turn)
                await editor.aclose(text)
                continue
            await self.core.db.set_turn(turn.turn_id, attempts=turn.attempts + 1)
            request = None
            if turn.request:
                try:
                    request = Request.model_validate(turn.request)
                except ValueError:
                    request = None
            try:
                # an unlinked chat member has no team, after a restart too (bot.core.link)
                no_team = ({"default_team": False}
                           if turn.team_id is None and turn.platform != "console" else {})
                events = self.core.runtime.ask(turn.conversation_id, turn.text,
                                               user_id=turn.user_id, team_id=turn.team_id,
                                               request=request, **no_team)
                line = RERUN_LINE
                editor = await self._recovery_editor(surface, thread, line,
                                                     await self._turn_message(surface, turn),
                                                     turn=turn)
                final: list[Any] = []
                steps: list[str] = []
                async for ev in events:
                    if isinstance(ev, Progress):
                        steps.append(ev.text)
                        editor.update(progress_text([line, ev.text], limit=surface.max_text))
                    else:
                        final.append(ev)
                editor.facts = progress_facts(steps)
                await self.core.turns.deliver(surface, thread, user, turn.team_id, editor, final)
            finally:
                await self.core.db.set_turn(turn.turn_id, status="done")
