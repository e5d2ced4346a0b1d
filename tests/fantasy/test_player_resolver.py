"""The one player resolver, by class of failure: invented two-word names, a known first name
with a surname typo of another player, English words (and their variants) never read as
players, nicknames, and plural position phrases."""

from __future__ import annotations

import pytest

from agents.understanding.entities import extract_position, fold
from fantasy.models import Player
from fantasy.player_resolver import PlayerResolver, first_names
from storage.minilm import vocabulary

POOL = ["Jalen Brunson", "Jalen Green", "Rudy Gobert", "Dwight Howard", "Donte DiVincenzo",
        "Kentavious Caldwell-Pope", "Devin Booker", "Mikal Bridges", "Marcus Smart",
        "Talen Horton-Tucker", "Nickeil Alexander-Walker", "Tyrese Maxey"]


@pytest.fixture(scope="module")
def resolver() -> PlayerResolver:
    players = [Player(id=100 + i, name=n) for i, n in enumerate(POOL)]
    return PlayerResolver(players, vocabulary=vocabulary(), other_names=["Rim Runners"])


def names(resolver: PlayerResolver, text: str) -> list[tuple[str, str, str | None]]:
    return [(m.words.lower(), m.status, m.player.name if m.player else None)
            for m in resolver.find(text)]


# ------------------------------------------------------------------ invented names

@pytest.mark.parametrize("text, words", [
    ("is trevor blackwood good tonight", "trevor blackwood"),
    ("how did nelson quarrington play", "nelson quarrington"),
    ("garrett pemberly injury update", "garrett pemberly"),
    ("add malik ostrander please", "malik ostrander"),      # a given name + invented surname
    ("should i stash reggie holloman", "reggie holloman"),
    ("marcus thistlewood back yet", "marcus thistlewood"),  # first name of a league player
])
def test_first_name_and_unknown_surname_is_not_found(resolver, text, words):
    found = names(resolver, text)
    assert found == [(words, "not_found", None)]


def test_first_name_and_surname_even_if_the_surname_is_a_rare_word(resolver):
    # "vernon" is a given name no league player has: the next word (an English place name) is his surname
    assert names(resolver, "vernon ashford out?") == [
        ("vernon ashford", "not_found", None)]


def test_unknown_given_name_alone_in_a_players_place(resolver):
    assert names(resolver, "start quincy tonight") == [("quincy", "not_found", None)]


# ------------------------------------------------------------------ surname typo, wrong first

def test_surname_typo_with_a_foreign_first_name_is_not_found_with_suggestions(resolver):
    (m,) = resolver.find("pick up vincent gobertt")
    assert m.status == "not_found" and m.player is None
    assert [p.name for p in m.candidates] == ["Rudy Gobert"]
    assert resolver.resolve("vincent gobertt").status == "not_found"


def test_surname_typo_with_the_right_first_name_still_resolves(resolver):
    assert names(resolver, "rudy gobertt tonight") == [("rudy gobertt", "resolved",
                                                       "Rudy Gobert")]
    assert names(resolver, "is gobertt playing") == [("gobertt", "resolved", "Rudy Gobert")]
    assert names(resolver, "jalen brunsen ok?") == [("jalen brunsen", "resolved",
                                                    "Jalen Brunson")]


def test_league_first_name_then_ordinary_words(resolver):
    assert names(resolver, "is tyrese playin tonight") == [("tyrese", "resolved",
                                                          "Tyrese Maxey")]


# ------------------------------------------------------------------ English words

@pytest.mark.parametrize("text", [
    "i dont want to lose my adds",
    "don't overthink it",
    "cant decide, wont decide",
    "is hoarding bigs a good idea",
    "should i hoard guards",
    "optimizing my lineup for the weekend",
    "help me prioritize streaming",
    "how do i strategize for playoffs",
    "who is on rim runners",
])
def test_english_words_and_variants_are_never_players(resolver, text):
    assert resolver.find(text) == []


# ------------------------------------------------------------------ nicknames

@pytest.mark.parametrize("alias, name", [
    ("kcp", "Kentavious Caldwell-Pope"), ("KCP", "Kentavious Caldwell-Pope"),
    ("tht", "Talen Horton-Tucker"), ("naw", "Nickeil Alexander-Walker"),
])
def test_nicknames(resolver, alias, name):
    (m,) = resolver.find(f"should i add {alias}")
    assert m.resolved and m.player.name == name


def test_first_name_lexicon_has_no_chat_words():
    assert not first_names() & {"the", "is", "start", "drop", "out"}


# ------------------------------------------------------------------ positions

@pytest.mark.parametrize("text, pos", [
    ("best available power forwards?", "PF"), ("need shooting guards", "SG"),
    ("any point guards on waivers", "PG"), ("small forwards with steals", "SF"),
    ("a power forward for tonight", "PF"), ("cheap forwards", "F"), ("guards please", "G"),
])
def test_plural_positions(text, pos):
    assert extract_position(text, fold(text)) == pos


# ------------------------------------------------------------------ one mention, one player

def test_nickname_then_surname_of_one_player_is_one_mention() -> None:
    r = PlayerResolver([Player(id=1, name="Anthony Edwards"), Player(id=2, name="Stephen Curry"),
                        Player(id=3, name="Devin Booker")], vocabulary=vocabulary())
    assert names(r, "is ant edwards good to go tmrw") == [
        ("ant edwards", "resolved", "Anthony Edwards")]
    assert names(r, "steph curry or booker tonight") == [
        ("steph curry", "resolved", "Stephen Curry"), ("booker", "resolved", "Devin Booker")]


# ------------------------------------------------------------------ short nicknames, typos

NICK_POOL = ["Anthony Davis", "Ja Morant", "Kevin Durant", "LeBron James", "Jayson Tatum",
             "Kyrie Irving", "Trae Young", "Thaddeus Young", "De'Aaron Fox"]


@pytest.fixture(scope="module")
def nick_resolver() -> PlayerResolver:
    players = [Player(id=200 + i, name=n) for i, n in enumerate(NICK_POOL)]
    return PlayerResolver(players, vocabulary=vocabulary())


@pytest.mark.parametrize("text", [
    "ja i think that's right", "that ad was so annoying", "an ad popped up lol",
    "any fox news", "sit the guy tonite", "bench someone tmr", "wat do i do rn bro",
])
def test_word_shaped_nicknames_and_chat_words_are_not_players(nick_resolver, text):
    assert names(nick_resolver, text) == []


@pytest.mark.parametrize("text, name", [
    ("will ad suit up friday", "Anthony Davis"),
    ("ja or kd this weekend", "Ja Morant"),
    ("also ad?", "Anthony Davis"),                  # a short follow-up is about him
    ("hmm ja", "Ja Morant"),
])
def test_word_shaped_nicknames_with_a_cue_or_alone(nick_resolver, text, name):
    assert names(nick_resolver, text)[0][2] == name


@pytest.mark.parametrize("typo, name", [
    ("lebrun", "LeBron James"), ("tatim", "Jayson Tatum"), ("kyire", "Kyrie Irving"),
])
def test_one_edit_typos_of_longer_names(nick_resolver, typo, name):
    assert names(nick_resolver, f"how is {typo} doing")[0][1:] == ("resolved", name)


def test_one_edit_typo_close_to_two_names_is_not_guessed() -> None:
    r = PlayerResolver([Player(id=1, name="Jalen Duren"), Player(id=2, name="Jalen Durin")])
    assert all(m.status != "resolved" or m.words.lower() != "durun"
               for m in r.find("is durun playing"))


# ------------------------------------------------------------------ a typo in every word

@pytest.mark.parametrize("text, name", [
    ("should i drop jalan brunsen", "Jalen Brunson"),         # one typo in each word
    ("is rudi gobbert playing", "Rudy Gobert"),
    ("pick up kentavius caldwel pope", "Kentavious Caldwell-Pope"),
    ("tyrease maxxey or devin booker", "Tyrese Maxey"),
])
def test_a_full_name_with_a_typo_in_each_word_is_that_player(resolver, text, name):
    found = [m for m in resolver.find(text)]
    assert found[0].status == "resolved" and found[0].player.name == name, names(resolver, text)
    assert all(m.status == "resolved" for m in found)


def test_two_real_names_side_by_side_stay_two(resolver):
    assert [n for _, _, n in names(resolver, "brunson gobert booker")] == \
        ["Jalen Brunson", "Rudy Gobert", "Devin Booker"]


def test_a_league_surname_before_another_is_two_players():
    pool = [Player(id=1, name="Jalen Brunson"), Player(id=2, name="Bruce Brown"),
            Player(id=3, name="Jaylen Brown")]
    r = PlayerResolver(pool, vocabulary=vocabulary())
    found = r.find("not brunson, brown")
    assert [m.player.name for m in found if m.resolved] == ["Jalen Brunson"]
    assert [m.status for m in found] == ["resolved", "ambiguous"]
