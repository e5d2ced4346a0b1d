"""Approvals: move cards, their buttons and the decisions they carry.

Only the requester or a member linked to the card's team may decide; a per-card lock
plus an atomic DB claim make double clicks apply once; the run resumes with exactly
the recorded decision and the card is redrawn with each move's real outcome. Every
decision is audited.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import TYPE_CHECKING, Any

from agents.shared.types import Answer, ApprovalRequest, MoveOutcomes, Notice
from bot.core.buttons import parse_custom_id
from bot.core.errors import ChatError, MessageGone, RateLimitedError
from bot.core.models import OutgoingMessage, ThreadRef, UserRef
from bot.core.progress import ProgressEditor, post_retrying
from bot.core.render import (
    card_of,
    mention,
    move_label,
    render_approval,
    split_context,
    with_context,
)
from bot.core.surface import ChatSurface
from fantasy.formatting import day_text
from fantasy.move_card import MoveCard, MoveOutcome
from storage.app_db import CardRow, new_card_id
from storage.crashpoint import crash_point

if TYPE_CHECKING:
    from bot.core.service import ChatCore

log = logging.getLogger(__name__)

#: Console numbers of a conversation's k-th card start at 100 * (k - 1) + 1.
NUMBERS_PER_CARD = 100


class Approvals:
    """Approvals: move cards, their buttons and the decisions they carry."""

    def __init__(self, core: ChatCore) -> None:
        self.core = core
        self._bases: dict[str, int] = {}  # card id -> its console numbers' base
        self._writes: dict[str, bool] = {}  # card id -> FanVise writes its moves on ESPN

    @staticmethod
    def card_of(card: CardRow) -> MoveCard:
        """The typed card of a stored row: its moves, decisions, outcomes and plan (its
        totals follow the menu choices: `MoveCard.summary_text`)."""
        out = card_of(card.moves, card.decisions, (card.result or {}).get("outcomes") or {})
        if card.plan and out.plan is None:
            from pydantic import ValidationError

            from fantasy.moves import Plan
            try:
                out = out.model_copy(update={"plan": Plan.model_validate(card.plan)})
            except ValidationError:  # a row of an older plan shape: the card without it
                pass
        return out

    @property
    def live(self) -> bool:
        """A live ESPN league: the member makes approved moves on ESPN (FanVise hands them
        over with the steps); the demo league makes them itself."""
        espn = getattr(self.core, "espn", None)
        return espn is not None and getattr(espn, "demo", None) is None

    async def number_base(self, card: CardRow) -> int:
        """The base of a card's console numbers: 100 per earlier card of its conversation
        (stable across sessions: from the stored cards, not from what a session showed).
        Awaited before `card_message`; it also reads whether FanVise would make the card's
        moves on a live ESPN league for its requester (writes on), for its confirmations."""
        if self.live and card.team_id is not None and card.status == "pending":
            try:
                from bot.core.handoff import writes_of
                access = await writes_of(self.core).access(
                    card.platform, card.workspace_id, card.requester_id, int(card.team_id))
                self._writes[card.card_id] = bool(access.allowed)
            except Exception as exc:  # noqa: BLE001 - the hand-off wording is the default
                log.warning("could not read write access: %s", type(exc).__name__)
        if card.card_id not in self._bases:
            row = await self.core.db.fetchone(
                "SELECT COUNT(*) AS n FROM cards WHERE conversation_id=? AND (created_at<? OR "
                "(created_at=? AND card_id<?))",
                (card.conversation_id, card.created_at, card.created_at, card.card_id))
            self._bases[card.card_id] = NUMBERS_PER_CARD * int(row["n"] if row else 0)
        return self._bases[card.card_id]

    async def approval_message(self, thread: ThreadRef, user: UserRef, team_id: int | None,
                                req: ApprovalRequest, *, message_id: str | None = None,
                                context: str = "") -> tuple[OutgoingMessage, CardRow]:
        """Store (once) and render the card of an approval. The requester and the team come
        from the run record when there is one (a card drawn by recovery or after another
        member's decision still belongs to whoever asked, for their team). `context`: the
        run's last progress facts, kept on the card (stored with its summary)."""
        existing = await self.core.db.card_for_run(req.run_thread_id, req.interrupt_id)
        if existing is not None:
            card = existing
        else:
            requester, team_id = await self._requester_of(req.run_thread_id, user, team_id)
            title = await self._with_team(req.title, team_id)
            crash_point("card:create")
            card = CardRow(
                card_id=new_card_id(), run_thread_id=req.run_thread_id,
                interrupt_id=req.interrupt_id, conversation_id=thread.conversation_id,
                platform=thread.platform, workspace_id=thread.workspace_id,
                channel_id=thread.channel_id, thread_id=thread.thread_id,
                message_id=message_id, requester_id=requester.user_id,
                requester_name=requester.name, team_id=team_id, title=title,
                summary=with_context(req.summary, context), moves=req.card.move_dicts(),
                decisions={}, status="pending", shown=False,
                plan=req.card.plan.to_json() if req.card.plan is not None else None)
            await self.core.db.create_card(card)
            crash_point("card:stored")
            card = await self.core.db.get_card(card.card_id) or card
        await self.number_base(card)
        return self.card_message(card), card

    async def show_card(self, surface: ChatSurface, thread: ThreadRef, card: CardRow,
                        msg: OutgoingMessage | None = None) -> str:
        """Draw a stored card as a new message, so its requester is notified (an edit
        notifies nobody), exactly once even across a crash: the message is posted with the
        mention line only, its id stored on the card, then the card is drawn into it. A
        card whose message was stored but not drawn (a crash in between) is drawn into
        that message; a card already drawn is left alone; a message posted for it whose id
        a crash lost is found and drawn into (`post_card_message`). Returns the card's
        message id."""
        card = await self.core.db.get_card(card.card_id) or card
        await self.number_base(card)
        msg = msg or self.card_message(card)
        mid = card.message_id or ""
        if mid and card.shown:
            return mid
        if not mid:
            head = OutgoingMessage(msg.text, mentions=msg.mentions)
            mid = await self.post_card_message(surface, thread, card, head)
            crash_point("card:posted")
        try:
            await surface.edit(thread, mid, msg)
        except MessageGone:  # deleted meanwhile: a message of its own
            mid = await self.post_card_message(surface, thread, card, msg)
            await surface.edit(thread, mid, msg)  # an adopted message may be the head only
        except RateLimitedError as exc:
            await self.core.sleep(min(exc.retry_after, 30.0))
            await surface.edit(thread, mid, msg)
        await self.core.db.mark_card_shown(card.card_id, mid)
        return mid

    async def post_card_message(self, surface: ChatSurface, thread: ThreadRef,
                                card: CardRow, msg: OutgoingMessage, *,
                                step: str = "card") -> str:
        """Post `msg` as the card's message and store its id, crash-safe: the intent is
        stored before the post, so after a crash between the post and storing its id the
        message that was posted is found (the surface's optional `find_messages`: this
        bot's messages in the thread with that text since the intent, not another card's)
        and adopted instead of posting again: no orphan, no second ping. Every post of a
        card's message goes through here: its first post ("card"), a re-post after its
        message was deleted ("repost", `redraw`) and recovery's re-post of a decided card
        ("recover-card"); `step` names the crash points on both sides of the post
        (`<step>:posting`, `<step>:post-sent`). `msg` is text that stays the same until
        the id is stored (`head_message`); the caller then draws the card into it.
        Returns the message id."""
        mid = ""
        find = getattr(surface, "find_messages", None)
        if card.posting_at is not None and find is not None:
            try:
                for found in await find(thread, OutgoingMessage(msg.text), card.posting_at):
                    if not await self.core.db.card_of_message(found):
                        mid = found
                        break
            except Exception as exc:  # noqa: BLE001 - posting anew beats not posting
                log.warning("could not look for the card's earlier message: %s",
                            type(exc).__name__)
        if not mid:
            await self.core.db.mark_card_posting(card.card_id)
            crash_point(f"{step}:posting")
            mid = await post_retrying(surface, thread, msg, sleep=self.core.sleep)
            crash_point(f"{step}:post-sent")
        await self.core.db.set_card_message(card.card_id, mid)
        return mid

    @staticmethod
    def head_message(card: CardRow, msg: OutgoingMessage) -> OutgoingMessage:
        """What a card's new message is posted with before the card is drawn into it: the
        mention line of a pending card (it pings the requester), the title of a decided
        one. The same text whatever state the card is in by then, so a message whose id a
        crash lost is found by it (`post_card_message`)."""
        if card.status == "pending":
            return OutgoingMessage(msg.text, mentions=msg.mentions)
        return OutgoingMessage(card.title or "Proposed moves")

    async def ready_line(self, card: CardRow) -> str:
        """The one line the progress message keeps once the card is posted below it:
        "Plan ready: 3 moves for Hoop Dreamers ↓"."""
        mc = self.card_of(card)
        plan, n = mc.is_plan, len(mc.spots())
        team = await self.core.turns.team_name(card.team_id)
        return (f"{'Plan' if plan else 'Moves'} ready: {n} move{'s' if n != 1 else ''}"
                + (f" for {team}" if team else "") + " ↓")

    async def _with_team(self, title: str, team_id: int | None) -> str:
        """The card's title naming the team it acts on ("... for Hoop Dreamers")."""
        name = await self.core.link.team_name(team_id) if team_id is not None else ""
        title = title or "Proposed moves"
        return title if not name or name in title else f"{title} for {name}"

    async def _requester_of(self, run_thread_id: str, fallback: UserRef,
                            team_id: int | None) -> tuple[UserRef, int | None]:
        """(requester, team) of a run from its record; `fallback` when it has none."""
        info = getattr(self.core.runtime, "run_info", None)
        run = await info(run_thread_id) if info is not None else None
        if run is None or not run.requester:
            return fallback, team_id
        if (run.requester == fallback.user_id):
            name = fallback.name
        else:
            turn = await self.core.db.last_turn_of(run.conversation_id, run.requester)
            name = turn.user_name if turn is not None else ""
        thread = ThreadRef.from_conversation_id(run.conversation_id)
        platform = thread.platform if thread is not None else fallback.platform
        return UserRef(platform, run.requester, name), run.team_id

    async def may_decide(self, card: CardRow, user: UserRef) -> bool:
        """The requester, or a user linked to the card's fantasy team in this league."""
        if user.platform == card.platform and user.user_id == card.requester_id:
            return True
        if card.team_id is None:
            return False
        link = await self.core.db.get_link(user.platform, card.workspace_id, user.user_id)
        # only a link that existed when the card was made: linking the team afterwards
        # (e.g. the default team of an unlinked requester) gives no say over this card
        return (link is not None and link.team_id == card.team_id
                and link.linked_at <= card.created_at
                and (self.core.league_id is None or link.league_id == self.core.league_id))

    async def click(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                    custom_id: str, message_id: str) -> None:
        """A button click or menu choice on a card or an answer's offer (possibly drawn
        before a restart); ChatCore.handle_click guards it. What the click means is the
        card's (MoveCard.click): a menu chooses a player and never approves; Approve / Skip
        decide one move; the card closes (and its moves are made) once every move is
        decided. Who may click: the requester or the team's owner (anything), a server /
        workspace admin (only Skip all: a clean-up, nothing is made), nobody else."""
        cid = parse_custom_id(custom_id)
        if cid is None:
            await surface.ephemeral(thread, user, "That button is not one of FanVise's.")
            return
        if cid.action == "do":
            await self.core.turns.take_offer(surface, thread, user, cid.card_id, cid.index or 0)
            return
        if cid.action == "link":
            await self.core.link.click(surface, thread, user, cid.value or 0)
            return
        card = await self.core.db.get_card(cid.card_id)
        if card is None:
            await surface.ephemeral(thread, user, "This card is no longer available.")
            return
        if not issued_form(cid):
            # only the ids a card draws: "Approve plan" is `fv:approveall:<card>`, never
            # with a move index (`fv:approveall:<card>:0` would approve the whole plan)
            await surface.ephemeral(thread, user, "That button is not one of this card's: "
                                    "nothing was changed.")
            return
        if user.platform == card.platform and user.user_id == card.requester_id:
            # a card made before members had to link (for the default team): link first
            await self.core.link.require_team(surface, thread, user)
        owner = await self.may_decide(card, user)
        admin = not owner and user.is_admin and user.platform == card.platform
        if not owner and not (admin and cid.action == "declineall"):
            await self.core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=user.platform, user_id=user.user_id,
                                user_name=user.name, decision=cid.decision, result="refused",
                                move_index=cid.index)
            who = card.requester_name or "the requester"
            await surface.ephemeral(
                thread, user,
                f"As an admin you can only skip this whole card (Skip all) to clean up the "
                f"thread; only {who} (or the owner of that fantasy team) can approve or "
                "choose its moves." if admin else
                f"Only {who} (or the owner of that fantasy team) can decide on these moves.")
            return
        card_thread = ThreadRef(card.platform, card.workspace_id, card.channel_id,
                                card.thread_id)
        card_mid = card.message_id or message_id
        async with self.core.card_locks[card.card_id]:
            card = await self.core.db.get_card(card.card_id) or card
            if card.status != "pending":
                await self._already(surface, thread, user, card, cid.decision, cid.index)
                return
            mc = self.card_of(card)
            ended = mc.ended_on(self.core.league_today())
            if ended is not None and not admin:
                await self._expire_ended(surface, thread, card_thread, card_mid, user, card,
                                         ended)
                return
            if admin:  # a clean-up: every move declined, a requester's marks included
                decisions = {str(i): "decline" for i in range(len(mc.moves))}
                if not await self.core.db.claim_card(card.card_id, user_id=user.user_id,
                                                     user_name=user.name,
                                                     decisions=decisions, replace=True):
                    await self._already(surface, thread, user, card, cid.decision, None)
                    return
                await self.core.db.audit(card_id=card.card_id,
                                         run_thread_id=card.run_thread_id,
                                         platform=user.platform, user_id=user.user_id,
                                         user_name=user.name, decision="decline",
                                         result="admin clean-up", move_index=None)
            else:
                action = cid.action if cid.index is not None or cid.action.endswith("all") \
                    else cid.action + "all"
                res = mc.click(action, cid.index, cid.value)  # type: ignore[arg-type]
                if res.refusal:
                    await surface.ephemeral(thread, user, res.refusal)
                    return
                if res.already:
                    await self._already(surface, thread, user, card, cid.decision, cid.index)
                    return
                if res.pick is not None:
                    await self._choose(surface, card_thread, card_mid, user, card, *res.pick)
                    return
                for key, value in res.record.items():
                    idx = int(key)
                    if not await self.core.db.record_move_decision(card.card_id, idx, value):
                        await self._already(surface, thread, user, card, cid.decision, idx)
                        return
                    await self.core.db.audit(
                        card_id=card.card_id, run_thread_id=card.run_thread_id,
                        platform=user.platform, user_id=user.user_id, user_name=user.name,
                        decision=value, result="recorded", move_index=idx,
                        move_id=mc.moves[idx].move_id, move_label=mc.moves[idx].label)
                for j, why in res.auto_declined.items():
                    await self._auto_decline(card, user, j, why)
                if not res.closes:
                    card = await self.core.db.get_card(card.card_id) or card
                    await self.redraw(surface, card_thread, card_mid, card,
                                      decided_by=user.name)
                    return
                if not await self.core.db.claim_card(card.card_id, user_id=user.user_id,
                                                     user_name=user.name,
                                                     decisions=res.decisions):
                    await self._already(surface, thread, user, card, cid.decision, cid.index)
                    return
            crash_point("click:claimed")  # the decision is durable in the card row
            card = await self.core.db.get_card(card.card_id) or card
            await self.redraw(surface, card_thread, card_mid, card, decided_by=user.name)
            crash_point("click:card-edited")
            await self.resume(surface, card_thread, card_mid, user, card)

    async def _expire_ended(self, surface: ChatSurface, thread: ThreadRef,
                            card_thread: ThreadRef, card_mid: str | None, user: UserRef,
                            card: CardRow, ended: date) -> None:
        """A click on a plan card whose matchup is over: the card closes as expired (its
        moves and lineups were for days that have passed), nothing is made or planned."""
        text = (f"This plan was for the matchup that ended {day_text(ended)}: nothing was "
                "changed. Ask again (\"review my matchup\") for this matchup's plan.")
        await self._close_unmade(surface, card_thread, card_mid, user, card, text,
                                 expire=True, result_text=text)
        await surface.ephemeral(thread, user, text)

    async def _close_unmade(self, surface: ChatSurface, thread: ThreadRef,
                            card_mid: str | None, user: UserRef, card: CardRow, notice: str,
                            *, expire: bool, result_text: str = "") -> None:
        """Close a card none of whose moves was made: expired with its `notice` stored, or
        back to pending (`expire` False: a failure the member may retry); its moves audited
        and the card redrawn in its message."""
        if expire:
            await self.core.db.finish_card(card.card_id, status="expired",
                                           result={"notice": notice})
        else:
            await self.core.db.release_card(card.card_id)
        await self._audit_moves(card, user, "expired" if expire else "error", set())
        fresh = await self.core.db.get_card(card.card_id) or card
        await self.redraw(surface, thread, card_mid, fresh, result_text=result_text)
        await self.core.db.mark_card_shown(card.card_id)

    async def _choose(self, surface: ChatSurface, thread: ThreadRef, card_mid: str | None,
                      user: UserRef, card: CardRow, spot: int, index: int) -> None:
        """A player chosen from a spot's menu: stored (it replaces an earlier choice), the
        card redrawn with him shown; nothing is approved."""
        if not await self.core.db.set_card_pick(card.card_id, spot, index):
            await self._already(surface, thread, user, card, "pick", spot)
            return
        mc = self.card_of(card)
        await self.core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                 platform=user.platform, user_id=user.user_id,
                                 user_name=user.name, decision="pick", result="chosen",
                                 move_index=index, move_id=mc.moves[index].move_id,
                                 move_label=mc.moves[index].label)
        card = await self.core.db.get_card(card.card_id) or card
        await self.redraw(surface, thread, card_mid, card, decided_by=user.name)

    async def _auto_decline(self, card: CardRow, user: UserRef, j: int, why: str) -> bool:
        """Decline move `j` of a card as a consequence of `user`'s click (audited
        "auto-declined: <why>"); False when it was already decided."""
        if not await self.core.db.record_move_decision(card.card_id, j, "decline"):
            return False
        await self.core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                            platform=user.platform, user_id=user.user_id, user_name=user.name,
                            decision="decline", result=f"auto-declined: {why}", move_index=j,
                            move_id=str(card.moves[j].get("move_id")),
                            move_label=move_label(card.moves[j]))
        return True

    async def _already(self, surface: ChatSurface, thread: ThreadRef, user: UserRef,
                       card: CardRow, decision: str, index: int | None) -> None:
        await self.core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                            platform=user.platform, user_id=user.user_id, user_name=user.name,
                            decision=decision, result="already-decided", move_index=index)
        by = mention(card.platform, card.decided_by or "", card.decided_by_name or "") \
            if card.platform != "discord" else card.decided_by_name
        who = f" ({_status_word(card.status)} by {by})" \
            if card.decided_by_name \
            and card.status in ("approved", "declined", "partial", "failed") \
            else ""
        what = "This move was" if index is not None and card.status == "pending" \
            else "This card was"
        await surface.ephemeral(thread, user, f"{what} already decided{who}. Nothing changed.")

    def card_message(self, card: CardRow, *, decided_by: str = "",
                     result_text: str = "") -> OutgoingMessage:
        """The card's message: "<@requester>, review these moves:" (a mention on Discord
        and Slack) while pending, then what was decided. (Its console numbers' base comes
        from `number_base`, awaited before.)"""
        summary, context = split_context(card.summary)
        who = mention(card.platform, card.requester_id, card.requester_name)
        # a Discord embed footer is plain text: a mention would show as <@123...>
        signed = (card.requester_name or who) if card.platform == "discord" else who
        decider = card.decided_by_name or decided_by
        if card.platform != "discord" and card.decided_by:  # a mention, never a raw handle
            decider = mention(card.platform, card.decided_by, decider)
        rendered = render_approval(card.card_id, card.title, summary, self.card_of(card),
                                   signed, status=card.status,
                                   decided_by_name=decider,
                                   result_text=result_text, context=context, live=self.live,
                                   number_base=self._bases.get(card.card_id, 0),
                                   writes=self._writes.get(card.card_id, False))
        pending = card.status == "pending"
        return OutgoingMessage(f"{who}, review these moves:" if pending else rendered.footer,
                               cards=[rendered],
                               mentions=(card.requester_id,) if pending and who.startswith(
                                   "<@") else ())

    async def edit_card(self, surface: ChatSurface, card: CardRow) -> None:
        """Redraw a card in its message (e.g. a live hand-off settled by a league read)."""
        await self.redraw(surface, card_thread(card), card.message_id, card)

    async def redraw(self, surface: ChatSurface, thread: ThreadRef, message_id: str | None,
                         card: CardRow, *, decided_by: str = "", result_text: str = "") -> None:
        """Draw `card` in its message: the one stored on the card (a re-post after a
        deletion is stored there), else `message_id`. A message that is gone (or none) is
        replaced by a new one, crash-safe (`post_card_message`)."""
        await self.number_base(card)
        lineups = (card.result or {}).get("lineups") if card.status != "pending" else ""
        if lineups and not result_text:
            result_text = f"Lineups this plan's total needs (set them on ESPN): {lineups}."
        msg = self.card_message(card, decided_by=decided_by, result_text=result_text)
        message_id = card.message_id or message_id
        try:
            if not message_id:
                raise MessageGone("the card has no message")
            await surface.edit(thread, message_id, msg)
        except MessageGone:  # deleted by a member: the card gets a message of its own
            mid = await self.post_card_message(surface, thread, card,
                                               self.head_message(card, msg), step="repost")
            await surface.edit(thread, mid, msg)
        except RateLimitedError as exc:
            await self.core.sleep(min(exc.retry_after, 30.0))
            try:
                await surface.edit(thread, message_id or "", msg)
            except ChatError as exc2:
                log.warning("card edit failed after a rate limit: %s", exc2)

    async def resume(self, surface: ChatSurface, thread: ThreadRef, card_mid: str | None,
                      user: UserRef, card: CardRow, *, first_line: str = "",
                      progress_id: str | None = None) -> None:
        """Apply the card's recorded decision: resume its run, progress in a new message
        (or in `progress_id`, one recovery posted), then close the card."""
        by_move = self.card_of(card).resume_decisions()
        events = self.core.runtime.decide(card.run_thread_id, card.interrupt_id, by_move,
                                     user_id=user.user_id)
        editor, final = await self.core.turns.stream_into(
            surface, thread, events, first_line or f"Applying {user.name}'s decision…",
            message_id=progress_id)
        crash_point("click:run-finished")
        await self.finish_card(surface, thread, card_mid, user, card, editor, final)

    async def finish_card(self, surface: ChatSurface, thread: ThreadRef,
                           card_mid: str | None, user: UserRef, card: CardRow,
                           editor: ProgressEditor, final: list[Any]) -> None:
        """Close a card from the events of its resumed run; post the run's answer."""
        answer = next((e for e in final if isinstance(e, Answer)), None)
        notice = next((e for e in final if isinstance(e, Notice)), None)
        approvals = [e for e in final if isinstance(e, ApprovalRequest)]
        if answer is None and not approvals and notice is not None:
            # decided before, expired, or lost to a restart: closed; else back to pending
            await self._close_unmade(surface, thread, card_mid, user, card, notice.text,
                                     expire=notice.code.closes_card)
            await editor.aclose(("⚠️ " if notice.level != "info" else "ℹ️ ") + notice.text)
            return
        outcomes = _outcomes(final, answer.report if answer else None)
        outcome_of = getattr(self.core.runtime, "run_outcome", None)
        if outcomes is None and approvals and outcome_of is not None:
            # the run took this decision and paused again (the rest of the plan) but its
            # outcomes event was not seen (a recovery resumed after the apply step's writes
            # were saved): read them from the run's state
            outcomes = _outcomes(await outcome_of(card.run_thread_id,
                                                  after_interrupt=card.interrupt_id), None)
        if outcomes and any(o.status == "waiting" for o in outcomes):
            # a live league: today's approved moves are made on ESPN when the member turned
            # writes on with their own cookies (bot.core.handoff), else the hand-off stays
            from bot.core.handoff import make_card_moves, revise_answers
            before, outcomes = outcomes, await make_card_moves(self.core, card, user, outcomes)
            final = revise_answers(final, before, outcomes)  # the answer says what ESPN did
        if outcomes and any(o.status == "scheduled" for o in outcomes) and \
                getattr(self.core, "moves", None) is not None:
            # moves dated later: stored before the card closes, made on their day (a
            # recovery finishing the card again reads what the schedule already made)
            real = {o.move_id: o for o in await self.core.moves.schedule(
                card, [o.to_json() for o in outcomes])}
            outcomes = [real.get(o.move_id, o) for o in outcomes]
        mc = self.card_of(card)
        if outcomes is not None:
            mc = mc.set_outcomes(outcomes)
        made = {o.move_id for o in outcomes if o.made} if outcomes is not None else None
        await self.core.db.finish_card(card.card_id, status=mc.status(),
                                  result={"applied": sorted(made) if made is not None
                                          else None,
                                          "outcomes": {k: o.to_json()
                                                       for k, o in mc.outcomes.items()},
                                          "answer": (answer.text[:1000] if answer else "")})
        crash_point("click:card-finished")
        if outcomes and getattr(self.core, "week_plans", None) is not None:
            # the team's one week plan: these moves and the lineups they assume, whose
            # lineups FanVise sets from now on (bot.core.week_plan); where it may not write,
            # the card says which lineup changes the plan's total needs, on which day
            plan = await self.core.week_plans.record(card, outcomes)
            if plan is not None and plan.member_lineups:
                fresh = await self.core.db.get_card(card.card_id) or card
                await self.core.db.finish_card(card.card_id, status=fresh.status, result={
                    **(fresh.result or {}), "lineups": plan.member_lineups})
        await self._audit_moves(card, user, "", made,
                                scheduled={o.move_id for o in outcomes or []
                                           if o.status == "scheduled"})
        fresh = await self.core.db.get_card(card.card_id) or card
        await self.redraw(surface, thread, card_mid, fresh)
        await self.core.db.mark_card_shown(card.card_id)
        await self.core.turns.deliver(surface, thread, user, card.team_id, editor, final)

    async def _audit_moves(self, card: CardRow, user: UserRef, result: str,
                           applied: set[str] | None, *,
                           scheduled: set[str] | frozenset[str] = frozenset()) -> None:
        """One audit row per move of a decided card; a move dated later is "scheduled"
        (bot.core.move_schedule audits it again, `scheduled:<outcome>`, on its day)."""
        for i, move in enumerate(card.moves):
            decision = card.decisions.get(str(i), "decline")
            mid = str(move.get("move_id"))
            if result:
                res = result
            elif decision == "decline":
                res = "declined"
            elif applied is None:
                res = "approved"
            else:
                res = "scheduled" if mid in scheduled else \
                    "applied" if mid in applied else "not-applied"
            await self.core.db.audit(card_id=card.card_id, run_thread_id=card.run_thread_id,
                                platform=user.platform, user_id=user.user_id,
                                user_name=user.name, decision=decision, result=res,
                                move_index=i, move_id=mid, move_label=move_label(move))


def _outcomes(final: list[Any], report: Any) -> list[MoveOutcome] | None:
    """What happened to a decided card's moves: the typed outcomes its run streamed (a
    partial decision pauses the run again with the rest of the plan as a new card), else
    the records of the run's report ("applied_moves", or "applied"); None when neither
    says."""
    for ev in reversed(final):
        if isinstance(ev, MoveOutcomes):
            return list(ev.outcomes)
    records = None
    if isinstance(report, dict):
        records = report.get("applied_moves")
        if records is None:
            records = report.get("applied")
    if not isinstance(records, list):
        return None
    out = []
    for m in records:
        if not isinstance(m, dict):
            continue
        mid = m.get("move_id")
        if mid is None and isinstance(m.get("drop"), dict) and isinstance(m.get("add"), dict):
            mid = f"{m['drop'].get('id')}-{m['add'].get('id')}"
        if mid is not None:
            out.append(MoveOutcome.of({**m, "move_id": str(mid)}))
    return out


def card_thread(card: CardRow) -> ThreadRef:
    return ThreadRef(card.platform, card.workspace_id, card.channel_id, card.thread_id)


def _status_word(status: str) -> str:
    return {"approved": "approved", "declined": "declined", "partial": "partly approved",
            "failed": "approved but not applied"}.get(status, status)


def issued_form(cid: Any) -> bool:
    """Whether a parsed button id has a form a card issues (`bot.core.render`): the
    whole-card actions (approveall / declineall) without a move index; a move's approve,
    decline and pick with its index (an index-less approve / decline is the old cards'
    whole-card button)."""
    if cid.action.endswith("all"):
        return cid.index is None and cid.value is None
    return cid.index is None or cid.index >= 0
