"""fantasy.move_card.MoveCard: what a click means, chains, the steps made and the wording of
outcomes, decided once on a card built from a real optimizer plan (seeded leagues)."""

from __future__ import annotations

import pytest

from fantasy.move_card import MoveCard, MoveOutcome
from fantasy.optimizer.service import OptimizerService
from tests.optimizer.league_builder import TODAY, make_snapshot


def _card(seed: int) -> MoveCard:
    league, schedule, fas = make_snapshot(seed)
    plan = OptimizerService(league, schedule, fas, today=TODAY).move_plan(1)
    assert len(plan.moves) >= 2
    return MoveCard.from_plan(plan, title="t", summary="s", requester_id="u1")


def _apply(card: MoveCard, res) -> MoveCard:
    d = dict(card.decisions)
    if res.pick:
        d[f"pick:{res.pick[0]}"] = str(res.pick[1])
    for k, v in res.record.items():
        d.setdefault(k, v)
    for j in res.auto_declined:
        d.setdefault(str(j), "decline")
    if res.closes:
        d.update(res.decisions)
    return card.with_state(d)


def test_a_card_round_trips_through_json() -> None:
    card = _card(0)
    again = MoveCard.model_validate(card.to_json())
    assert again == card
    assert MoveCard.from_moves(card.move_dicts()).spots() == card.spots()


def test_a_menu_chooses_and_never_approves() -> None:
    card = _card(0)
    spot = card.spots()[0]
    alt = spot.alternatives[0]
    res = card.click("pick", spot.index, alt)
    assert res.ok and res.pick == (spot.index, alt) and not res.record and not res.closes
    card = _apply(card, res)
    assert card.spot_state(spot) == ("open", None)  # still open: Approve and Skip stay
    assert card.pick(spot) == alt
    # another choice for the same spot replaces it
    res = card.click("pick", spot.index, spot.alternatives[1])
    card = _apply(card, res)
    assert card.pick(spot) == spot.alternatives[1]
    # a player that is not a choice of this spot
    assert card.click("pick", spot.index, card.spots()[1].index).refusal
    # a player already chosen for another spot cannot be chosen again
    a, b, i, j = next((a, b, i, j) for a in card.spots() for b in card.spots()
                      if a.index < b.index for i in a.alternatives for j in b.alternatives
                      if card.moves[i].add.id == card.moves[j].add.id)
    both = _apply(card, card.click("pick", a.index, i))
    assert f"already the choice for #{a.number}" in both.click("pick", b.index, j).refusal
    # approving the spot approves the chosen player, the others of the spot are declined
    res = card.click("approve", spot.index)
    assert res.record == {str(spot.alternatives[1]): "approve"}
    assert set(res.auto_declined) >= {spot.index, spot.alternatives[0]}
    assert not res.closes
    card = _apply(card, res)
    assert card.spot_state(spot) == ("approved", spot.alternatives[1])
    # a decided spot takes no more choice
    assert card.click("pick", spot.index, spot.alternatives[0]).already


def test_approve_then_decline_the_rest_closes_with_exact_decisions() -> None:
    card = _card(1)
    first = card.spots()[0]
    card = _apply(card, card.click("approve", first.index))
    res = card.click("declineall")
    assert res.closes
    resume = card.resume_decisions(res.decisions)
    approved = [mid for mid, d in resume.items() if d == "approve"]
    assert approved == [card.moves[first.index].move_id]
    steps = card.steps(resume)
    assert [s.move is not None for s in steps] == [True] + [False] * (len(steps) - 1)


def test_confirmation_says_what_the_click_does() -> None:
    card = _card(0)
    first = card.spots()[0]
    text = card.confirm_text("approve", first.index)
    assert text.startswith("Marks #1") and "nothing is made until every move" in text
    assert card.confirm_text("approveall").startswith("Decides the card: makes ")
    # a plan is a schedule: a later day's move is scheduled, not made now
    later = card.confirm_text("approveall", schedule_later=True)
    assert "schedules" in later and "re-checked that morning" in later
    assert "does not change your ESPN roster" in card.confirm_text("approveall", live=True)
    assert "on your ESPN team now" in card.confirm_text("approveall", live=True, writes=True)
    # the last open spot: approving it decides the card and makes the moves
    for s in card.spots()[1:]:
        card = _apply(card, card.click("decline", s.index))
    last = card.confirm_text("approve", first.index)
    assert last.startswith("Decides the card: makes ") and " now (" in last
    assert card.confirm_text("decline", first.index) == ""


@pytest.mark.parametrize("seed", [3])
def test_a_chain_follows_the_choice_and_is_blocked_by_a_skip(seed: int) -> None:
    card = _card(seed)
    chains = card.chains()
    assert chains, "seed 3 plans a streaming chain"
    ch = chains[0]
    earlier = card.spot_of(ch.earlier)
    # another player chosen for the earlier spot: the later move drops him instead
    alt = earlier.alternatives[0]
    chosen = _apply(card, card.click("pick", earlier.index, alt))
    assert chosen.swaps()[ch.later][1] == alt
    resume = chosen.resolve("approve")
    later_step = next(s for s in chosen.steps(resume) if s.spot.move_id ==
                      card.moves[ch.later].move_id)
    assert later_step.move is not None and later_step.move.drop.id == card.moves[alt].add.id
    # the earlier spot skipped: the later one is skipped with it
    res = card.click("decline", earlier.index)
    assert ch.later in res.auto_declined


def test_resolve_refuses_two_moves_for_one_player() -> None:
    card = _card(0)
    spot = card.spots()[0]
    ids = {card.moves[spot.index].move_id: "approve",
           card.moves[spot.alternatives[0]].move_id: "approve"}
    with pytest.raises(ValueError, match="approve only one"):
        card.resolve(ids)
    with pytest.raises(ValueError, match="Unknown move"):
        card.resolve({"nope": "approve"})


def test_outcome_wording_and_footer() -> None:
    card = _card(1)
    spots = card.spots()
    decisions = {str(spots[0].index): "approve"}
    decisions.update({str(i): "decline" for s in spots[1:] for i in s.indexes})
    decisions.update({str(i): "decline" for i in spots[0].alternatives})
    card = card.with_state(decisions)
    m0 = card.moves[spots[0].index]
    oc = [MoveOutcome(move_id=m0.move_id, status="applied", drop=m0.drop, add=m0.add)]
    oc += [MoveOutcome(move_id=card.moves[s.index].move_id, status="skipped")
           for s in spots[1:]]
    card = card.set_outcomes(oc)
    assert card.footer("partial", "Ana") == \
        f"Decided by Ana: 1 applied, {len(spots) - 1} skipped by you"
    assert card.status() == "partial"
    assert MoveOutcome.of({"move_id": "x", "status": "failed", "note": "taken"}).text() == \
        "Not possible: taken."
    assert MoveOutcome.of({"move_id": "x", "status": "declined"}).status == "skipped"
    sched = MoveOutcome(move_id="x", status="scheduled", day=TODAY)
    assert sched.text().startswith("Scheduled for ")


def test_a_single_move_dated_later_says_approve_schedules_it() -> None:
    """A card whose only move is on a later day: its line and its confirmation both say the
    click schedules the move for that day (the click does), never 'makes the move now'."""
    league, schedule, fas = make_snapshot(0)
    plan = OptimizerService(league, schedule, fas, today=TODAY).move_plan(1)
    later = next(m for m in plan.moves if m.day > plan.dates[0])
    one = plan.model_copy(update={"moves": [later]})
    card = MoveCard.from_plan(one, title="t", summary="s", requester_id="u1")
    how = card.how_text(schedule_later=True)
    assert "schedules the move for" in how and "makes the move now" not in how
    confirm = card.confirm_text("approve", card.spots()[0].index, schedule_later=True)
    assert "schedules the move" in confirm and " now (" not in confirm


def test_menu_alternatives_say_what_they_are_relative_to() -> None:
    """A spot's other players carry the difference to the plan's pick, named."""
    card = _card(0)
    alts = [m for m in card.moves if m.alternative_of]
    assert alts
    picks = {m.move_id: m.add.name for m in card.moves if not m.alternative_of}
    for a in alts:
        assert a.vs_pick_text.startswith(f"vs {picks[a.alternative_of]}: ")


@pytest.mark.parametrize("seed", [3])
def test_after_a_menu_pick_the_chain_line_totals_and_confirmations_follow_it(seed: int
                                                                            ) -> None:
    card = _card(seed)
    ch = card.chains()[0]
    earlier, later = card.spot_of(ch.earlier), card.spot_of(ch.later)
    alt = earlier.alternatives[0]
    pick, chosen_add = card.moves[earlier.index], card.moves[alt].add
    summary = f"{card.plan.totals_line()} Exact optimizer."
    assert card.summary_text(summary) == summary  # nothing chosen: the plan's totals
    chosen = _apply(card, card.click("pick", earlier.index, alt))
    # the chain move drops the chosen player, in its line and in its confirmation
    shown = chosen.shown(later)
    assert shown.drop.id == chosen_add.id
    assert f"drop {chosen_add.name}" in shown.line
    assert f"drop {pick.add.name}," not in shown.line
    mark = chosen.confirm_text("approve", later.index)
    assert mark.startswith(f"Marks #{later.number} (drop {chosen_add.name},"), mark
    assert f"add {chosen_add.name}" in chosen.confirm_text("approve", earlier.index)
    # the header's total follows the pick: the plan's total moved by the menu's difference
    picked = chosen.picked_plan()
    delta = card.moves[alt].expected_gain - pick.expected_gain
    assert picked.planned_value == pytest.approx(card.plan.planned_value + delta)
    text = chosen.summary_text(summary)
    assert text == f"{picked.totals_line()} Exact optimizer." and text != summary
