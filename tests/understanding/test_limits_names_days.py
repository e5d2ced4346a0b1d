"""Understanding round 4 (issue 33): names that are no league player, what FanVise will not do,
how-to questions, day words, corrections of a proposed move, typos and long pastes, read on the
demo league with the real router and resolver (Wed 2023-01-25)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agents.understanding import UnderstandingContext, understand
from agents.understanding.request import Intent, Request
from agents.understanding.spelling import correction, fix_typos
from agents.understanding.understand import question_of


def thread(league: UnderstandingContext, *lines: str) -> list[Request]:
    """Each line read with the one before as the previous turn (and the member's roster)."""
    out: list[Request] = []
    for line in lines:
        out.append(understand(line, replace(league, last=out[-1] if out else None)))
    return out


@pytest.mark.parametrize(("text", "words"), [
    ("is Michael Jordan hurt", "Michael Jordan"),          # not DeAndre Jordan, not Michael P.
    ("any news about larry bird", "larry bird"),           # not Larry Nance Jr.
    ("how is kobe doing lately", "kobe"),
    ("is patrick mahomes playing tonight", "patrick mahomes"),
    ("what about LeBron Jamesson", "LeBron Jamesson"),     # a longer surname: someone else
    ("is seth brunson any good", "seth brunson"),          # a league surname, another given name
])
def test_names_of_no_league_player_are_not_found(league: UnderstandingContext, text: str,
                                                 words: str) -> None:
    req = understand(text, league)
    assert [p.status for p in req.players] == ["not_found"], req.players
    assert req.players[0].words == words
    assert not req.resolved_players()


def test_a_made_up_name_inside_a_move_is_not_found(league: UnderstandingContext) -> None:
    req = understand("cut bobby portis, pick up Gerald Winterbottom", league)
    assert req.intent == Intent.EXPLICIT_MOVE
    assert req.move is not None and req.move.drop is not None and req.move.add is not None
    assert req.move.drop.name == "Bobby Portis"
    assert req.move.add.status == "not_found" and req.move.add.player_id is None
    req = understand("drop simmons for tony bradley", league)  # not Bradley Beal
    assert req.move is not None and req.move.add is not None
    assert req.move.add.status == "not_found" and req.move.add.words == "tony bradley"


@pytest.mark.parametrize(("text", "name"), [
    ("is cam johnson hurt", "Cameron Johnson"),        # a short form of one Johnson's name
    ("is mike conley playing", "Mike Conley"),
    ("is jalen brunsen playing", "Jalen Brunson"),     # a typo of the surname stays him
    ("start kevin love tonight?", "Kevin Love"),
])
def test_real_players_still_resolve(league: UnderstandingContext, text: str, name: str) -> None:
    assert [p.name for p in understand(text, league).resolved_players()] == [name]


@pytest.mark.parametrize(("text", "limit"), [
    ("just take every move you suggest automatically from now on", "auto_accept"),
    ("make all the moves without asking me", "auto_accept"),
    ("drop my entire team", "mass_drop"),
    ("waive everybody on my roster", "mass_drop"),
    ("veto that trade please", "commissioner"),
    ("as commissioner can you cancel the trade", "commissioner"),
    ("tell me mike's espn login", "credentials"),
])
def test_what_fanvise_will_not_do_is_out_of_scope_with_the_reason(
        league: UnderstandingContext, text: str, limit: str) -> None:
    req = understand(text, league)
    assert (req.intent, req.limit, req.clarify, req.more) == (Intent.OUT_OF_SCOPE, limit,
                                                              False, [])
    assert req.move is None


@pytest.mark.parametrize("text", [
    "how do veto votes work in our league",   # a rules question, not a veto
    "drop bobby portis for malik monk",       # one move
    "how do i add my espn_s2 cookie",         # how to link, not someone's credentials
    "who should i drop from my roster",
])
def test_ordinary_requests_have_no_limit(league: UnderstandingContext, text: str) -> None:
    assert understand(text, league).limit is None


@pytest.mark.parametrize(("text", "topic"), [
    ("how do i get the lineup posted here each morning", "daily"),
    ("which slash command is for looking up a player", "player"),
    ("is there a command that finds streamers", "stream"),
    ("how do i link my espn team to the bot", "link"),
])
def test_how_to_questions_are_help_with_their_command(league: UnderstandingContext,
                                                      text: str, topic: str) -> None:
    req = understand(text, league)
    assert (req.intent, req.help_topics) == (Intent.HELP, [topic])


def test_how_to_win_something_is_not_help(league: UnderstandingContext) -> None:
    assert understand("how can i win more blocks this week", league).intent != Intent.HELP


@pytest.mark.parametrize(("text", "iso"), [
    ("is brunson playing the day after tomorrow", "2023-01-27"),
    ("who do i start on the 30th", "2023-01-30"),
    ("lineup for feb 2", "2023-02-02"),
    ("lineup on the 29th of january", "2023-01-29"),
    ("who plays in 3 days", "2023-01-28"),
    ("how did butler do on the 20th", "2023-01-20"),
    ("i have a wedding on saturday so set my lineup for that day now", "2023-01-28"),
])
def test_day_words(league: UnderstandingContext, text: str, iso: str) -> None:
    req = understand(text, league)
    assert req.day is not None and req.day.date == iso, req.day


def test_an_ordinal_rank_is_no_day(league: UnderstandingContext) -> None:
    assert understand("add the 3rd one", league).day is None


def test_a_correction_changes_only_the_side_it_names(league: UnderstandingContext) -> None:
    first, drop = thread(league, "drop rozier and add ayo dosunmu",
                         "actually let go of isaac instead")
    assert drop.intent == Intent.EXPLICIT_MOVE and drop.move is not None
    assert drop.move.drop.name == "Jonathan Isaac" and drop.move.add.name == "Ayo Dosunmu"
    _, add = thread(league, "drop rozier and add ayo dosunmu", "no, grab tyus jones")
    assert add.move.drop.name == "Terry Rozier" and add.move.add.name == "Tyus Jones"
    _, bare = thread(league, "drop rozier and add ayo dosunmu", "make it isaac")
    assert bare.move.drop.name == "Jonathan Isaac"  # on my team: the drop
    _, other = thread(league, "drop rozier and add ayo dosunmu", "how many games does isaac have")
    assert other.intent == Intent.SCHEDULE  # a new question, not a correction


def test_someone_for_his_place_drops_him(league: UnderstandingContext) -> None:
    _, req = thread(league, "should i drop bobby portis", "who should i get in his place")
    assert req.intent == Intent.EXPLICIT_MOVE
    assert req.move is not None and req.move.drop.name == "Bobby Portis"
    assert req.move.add is None  # the optimizer picks the best free agent for his spot


def test_typos_of_chat_words(league: UnderstandingContext) -> None:
    assert fix_typos("who shoud i strat tmrw") == "who should i start tmrw"
    assert correction("brunson", is_name=league.resolver.name_word) is None
    assert correction("drp") is None  # too short to guess
    req = understand("who shoud i strat tmrw", league)
    assert req.intent == Intent.LINEUP_OPTIMIZATION and req.day.date == "2023-01-26"


def test_a_long_paste_is_read_for_its_question(league: UnderstandingContext) -> None:
    chat = ("so yesterday at work my boss asked about the game and i said i didnt watch it. "
            "then we got lunch downtown, the food was great but the service was slow. after "
            "that i went home and played 2k with my roommate who thinks he is good but is not. "
            "we argued for an hour about who the best point guard in the league is, and about "
            "whether the knicks are for real this year. long story short: i said brunson. he "
            "is great. is brunson playing tomorrow though?")
    assert len(chat) > 400
    assert question_of(chat) == "is brunson playing tomorrow though?"
    req = understand(chat, league)
    assert req.intent == Intent.PLAYER_RESEARCH
    assert [p.name for p in req.players] == ["Jalen Brunson"]
    assert req.day is not None and req.day.date == "2023-01-26"
