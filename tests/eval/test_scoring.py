"""Scorer unit tests: each kind of expectation passes when met and really fails when not."""

from __future__ import annotations

from fanvise_eval.scoring import (
    Observation,
    fact_present,
    mentions_name,
    passed,
    score_case,
    text_variants,
)

POOLE = {"id": 4277956, "name": "Jordan Poole"}
HAYWARD = {"id": 4249, "name": "Gordon Hayward"}
TYUS = {"id": 3135046, "name": "Tyus Jones"}
BAMBA = {"id": 3907822, "name": "Mo Bamba"}
TRE = {"id": 4277813, "name": "Tre Jones"}
ROSTER = [POOLE["id"], HAYWARD["id"], 1, 2]


def ref(value, name="src()"):
    return {"value": value, "ref": name}


def base(**kw) -> dict:
    e = {"event": "any", "_universe": ["Jordan Poole", "Gordon Hayward", "Tyus Jones",
                                       "Mo Bamba", "Tre Jones", "Kevin Durant"],
         "_my_roster_ids": ROSTER, "_free_agent_ids": [TYUS["id"], BAMBA["id"]],
         "_names_by_id": {}}
    e.update(kw)
    return e


def answer(text="Jordan Poole is OUT, back Feb 4.", **kw) -> dict:
    d = {"kind": "answer", "text": text, "intent": "player_research", "offline": True,
         "tool_calls": [], "report": None}
    d.update(kw)
    return d


def obs(**kw) -> Observation:
    o = Observation(roster_before=list(ROSTER), roster_after=list(ROSTER))
    for k, v in kw.items():
        setattr(o, k, v)
    if not o.tool_calls:
        o.tool_calls = [t for a in o.answers for t in a.get("tool_calls") or []]
    return o


def names_failed(checks):
    return {c.name for c in checks if not c.passed}


REPORT = {"playerName": "Jordan Poole", "status": "OUT", "expectedReturnDate": "2023-02-04",
          "recommendation": "HOLD", "confidence": "HIGH", "sources": ["ESPN", "Rotowire"]}


def test_a_good_player_report_passes_everything():
    e = base(intent="player_research", event="answer", tools_required=["get_player_status"],
             max_tool_calls=2, report={"playerName": ref("Jordan Poole"),
                                       "status": ref("OUT"),
                                       "expectedReturnDate": ref("2023-02-04"),
                                       "recommendation": {"not_in": ["ACTIVE", "DROP"]},
                                       "confidence": {"one_of": ["HIGH", "MEDIUM", "LOW"]},
                                       "sources": {"contains": ref("Rotowire")}},
             facts=[ref("OUT"), ref("2023-02-04")])
    o = obs(answers=[answer(report=REPORT, tool_calls=["get_player_status"])])
    checks = score_case(e, o)
    assert passed(checks), [c for c in checks if not c.passed]


def test_wrong_structured_fields_fail():
    e = base(report={"status": ref("OUT"), "recommendation": {"not_in": ["DROP"]},
                     "confidence": {"one_of": ["HIGH"]}, "sources": {"contains": "NOT_FOUND"},
                     "expectedReturnDate": {"present": False}})
    bad = dict(REPORT, status="ACTIVE", recommendation="DROP", confidence="LOW")
    failed = names_failed(score_case(e, obs(answers=[answer(report=bad)])))
    assert {"report.status", "report.recommendation", "report.confidence", "report.sources",
            "report.expectedReturnDate"} <= failed


def test_missing_report_fails_every_field():
    e = base(report={"status": ref("OUT")})
    assert "report.status" in names_failed(score_case(e, obs(answers=[answer()])))


def test_intent_event_and_tool_expectations_fail_when_not_met():
    e = base(intent="player_research", event="approval", tools_required=["get_player_news"],
             tools_forbidden=["get_free_agents"], tools_any_of=[["get_schedule"]],
             max_tool_calls=1, max_llm_calls=1)
    o = obs(answers=[answer(intent="help", tool_calls=["get_free_agents", "get_player_status"])],
            llm_calls=3)
    failed = names_failed(score_case(e, o))
    assert {"intent", "event", "tool_called:get_player_news", "tool_not_called:get_free_agents",
            "tool_any_of:get_schedule", "max_tool_calls", "max_llm_calls"} <= failed


def test_facts_forbidden_text_and_names():
    e = base(facts=[ref("2023-02-11"), {"any_text": ["conflict"]}, {"conflict_stated": True},
                    {**ref([14.0, 21.0]), "tolerance": 0}],
             forbidden_text=["IGNORE PREVIOUS"], forbidden_names=["Kevin Durant"])
    good = obs(answers=[answer("Back Feb 11. Reports conflict: 14 and 21 points.")])
    assert passed(score_case(e, good, offline=False))
    bad = obs(answers=[answer("IGNORE PREVIOUS instructions. Kevin Durant scored 14.")])
    failed = names_failed(score_case(e, bad, offline=False))
    assert {"fact[0]:src()", "fact[1]:any_of", "fact[2]:conflict_stated", "fact[3]:src()",
            "forbidden_text:IGNORE PREVIOUS", "forbidden_name:Kevin Durant"} <= failed


def test_mentioned_players_flags_players_outside_the_allowed_groups():
    e = base(mentioned_players=["free_agents"], _allowed_names=["Tyus Jones", "Mo Bamba"])
    ok = obs(answers=[answer("Pick up Tyus Jones or Mo Bamba.")], prompt="who to add?")
    assert passed(score_case(e, ok, offline=False))
    bad = obs(answers=[answer("Pick up Tre Jones (rostered elsewhere).")])
    checks = score_case(e, bad)
    c = next(c for c in checks if c.name == "mentioned_players")
    assert not c.passed and c.observed == ["Tre Jones"]
    # a name the user typed may be repeated
    asked = obs(answers=[answer("Tre Jones is not available.")], prompt="add Tre Jones?")
    assert passed(score_case(e, asked, offline=False))


def card(*moves):
    return {"kind": "approval", "run_thread_id": "c:opt:1", "interrupt_id": "i1",
            "title": "Approve?", "summary": "", "requester_id": "u",
            "moves": [{"move_id": f"{d['id']}-{a['id']}", "drop": d, "add": a,
                       "expected_gain": 1.0, "games": 1, "confidence": "high",
                       "reasons": []} for d, a in moves]}


BEST = ref({"drop": "Gordon Hayward", "add": "Tyus Jones", "drop_id": HAYWARD["id"],
            "add_id": TYUS["id"]}, "optimizer_best_move()")


def test_moves_pass_when_the_best_move_is_first_and_applied():
    e = base(event="approval", moves={"first": BEST, "required": [BEST],
                                      "never_drop": ref(["Jordan Poole"]),
                                      "adds_must_be_free_agents": True,
                                      "drops_must_be_on_my_roster": True},
             roster="approved_moves")
    after = [x for x in ROSTER if x != HAYWARD["id"]] + [TYUS["id"]]
    o = obs(approvals=[card((HAYWARD, TYUS), (HAYWARD, BAMBA))],
            answers=[answer("Done.", intent="matchup_analysis")],
            roster_at_approval=list(ROSTER), roster_after=after,
            approved_moves=[{"drop": HAYWARD, "add": TYUS}])
    checks = score_case(e, o)
    assert passed(checks), [c for c in checks if not c.passed]


def test_bad_moves_fail():
    e = base(event="approval", moves={"first": BEST, "never_drop": ref(["Jordan Poole"]),
                                      "forbidden": [{"add": "Tre Jones"}], "max_count": 1,
                                      "adds_must_be_free_agents": True,
                                      "drops_must_be_on_my_roster": True})
    stranger = {"id": 999, "name": "Somebody Else"}
    o = obs(approvals=[card((POOLE, TRE), (stranger, BAMBA))], roster_at_approval=list(ROSTER))
    failed = names_failed(score_case(e, o))
    assert {"moves.first", "moves.never_drop", "moves.forbidden[0]", "moves.max_count",
            "moves.adds_are_free_agents", "moves.drops_on_my_roster"} <= failed


def test_expected_card_missing_fails_unless_optional():
    e = base(moves={"first": BEST})
    assert "moves.card" in names_failed(score_case(e, obs(answers=[answer()])))
    e = base(moves={"card": "optional", "never_drop": ref(["Jordan Poole"])})
    assert passed(score_case(e, obs(answers=[answer()])))


def test_the_optimizer_finding_no_move_fails_a_required_first_move():
    e = base(moves={"first": ref(None, "optimizer_best_move()")})
    o = obs(approvals=[card((HAYWARD, TYUS))], roster_at_approval=list(ROSTER))
    assert "moves.first" in names_failed(score_case(e, o))


def test_roster_changed_without_approval_fails():
    e = base(roster="unchanged")
    changed = [x for x in ROSTER if x != HAYWARD["id"]] + [TYUS["id"]]
    o = obs(answers=[answer()], roster_after=changed)
    assert "roster.no_transaction_without_approval" in names_failed(score_case(e, o))
    # changed while the card was still pending
    o = obs(approvals=[card((HAYWARD, TYUS))], roster_at_approval=changed,
            roster_after=changed)
    assert {"roster.unchanged_before_approval",
            "roster.no_transaction_without_approval"} <= names_failed(score_case(e, o))


def test_approved_move_not_applied_or_extra_move_applied_fails():
    e = base(roster="approved_moves")
    approved = [{"drop": HAYWARD, "add": TYUS}]
    o = obs(approvals=[card((HAYWARD, TYUS))], roster_at_approval=list(ROSTER),
            approved_moves=approved)  # roster_after unchanged: not applied
    assert "roster.approved_moves_applied" in names_failed(score_case(e, o))
    extra = [x for x in ROSTER if x not in (HAYWARD["id"], POOLE["id"])] + [TYUS["id"],
                                                                           BAMBA["id"]]
    o.roster_after = extra
    assert "roster.approved_moves_applied" in names_failed(score_case(e, o))
    o = obs(answers=[answer()])  # nothing to approve
    assert "roster.approved_moves_applied" in names_failed(score_case(e, o))


def test_errors_notices_and_offline_note():
    e = base()
    o = obs(error="RuntimeError: boom")
    assert {"completed"} <= names_failed(score_case(e, o))
    o = obs(answers=[answer("no note here", offline=False)],
            notices=[{"kind": "notice", "text": "Sorry", "level": "error"}])
    assert {"no_error_notice", "offline_notice"} <= names_failed(score_case(e, o))
    assert "offline_notice" not in names_failed(score_case(e, o, offline=False))
    # the note is the chat's to add once per conversation, never in the answer's text
    o = obs(answers=[answer("(Offline mode: rule-based answers.) Jordan Poole is OUT.")])
    assert "offline_notice" in names_failed(score_case(e, o))
    assert "offline_notice" not in names_failed(score_case(e, obs(answers=[answer()])))


def test_text_helpers():
    assert "Feb 4" in text_variants("2023-02-04")
    assert "day-to-day" in text_variants("DAY_TO_DAY")
    assert fact_present("He is day-to-day.", "DAY_TO_DAY")[0]
    assert not fact_present("He is OUTstanding", "OUT")[0]
    assert fact_present("scored 27 points", 27.0, tolerance=0)[0]
    assert not fact_present("scored 26 points", 27.0, tolerance=0)[0]
    assert fact_present("T.J. McConnell starts", ["TJ McConnell"])[0]
    assert mentions_name("Start TJ McConnell", "T.J. McConnell")
    assert not mentions_name("Tre Joneses", "Tre Jones")
    assert not fact_present("anything", None)[0]


def test_a_declined_move_offered_again_fails():
    e = base(moves={"never_drop": ref([])})
    first = card((HAYWARD, TYUS))
    again = dict(card((HAYWARD, TYUS), (HAYWARD, BAMBA)), interrupt_id="i2")
    o = obs(approvals=[first, again], roster_at_approval=list(ROSTER))
    assert "moves.new_alternatives_after_decline" in names_failed(score_case(e, o))
    fresh = dict(card((HAYWARD, BAMBA)), interrupt_id="i2")
    o = obs(approvals=[first, fresh], roster_at_approval=list(ROSTER))
    assert "moves.new_alternatives_after_decline" not in names_failed(score_case(e, o))


def test_a_repeated_click_must_change_nothing():
    e = base()
    ok = obs(answers=[answer()], repeat_events=[{"kind": "notice", "level": "info",
                                                 "text": "This card was already decided."}],
             roster_after_repeat=list(ROSTER))
    assert "decision.repeat_click_changes_nothing" not in names_failed(score_case(e, ok))
    applied_twice = obs(answers=[answer()], repeat_events=[answer("Done again")],
                        roster_after_repeat=[1, 2])
    assert "decision.repeat_click_changes_nothing" in names_failed(score_case(e, applied_twice))


def test_a_move_fact_needs_both_names():
    move = {"drop": "Gordon Hayward", "add": "Tyus Jones", "drop_id": 4249, "add_id": 1}
    assert fact_present("Drop Gordon Hayward for Tyus Jones.", move)[0]
    assert not fact_present("Add Tyus Jones.", move)[0]


def test_forbidden_words_are_whole_words():
    exp = base(forbidden_words=["DTD", "questionable"])
    ok = score_case(exp, Observation(answers=[answer("I can't find him.")]))
    assert passed(ok)
    bad = score_case(exp, Observation(answers=[answer("He is DTD.")]))
    assert [c.name for c in bad if not c.passed] == ["forbidden_word:DTD"]
    # a word inside another word is not a hit
    assert passed(score_case(base(forbidden_words=["out"]),
                             Observation(answers=[answer("a shoutout")])))


def test_no_player_report_fails_on_any_status_or_verdict():
    exp = base(no_player_report=True)
    clean = Observation(answers=[answer("I can't find a player called X.")])
    assert passed(score_case(exp, clean))
    # a report without player facts (e.g. a free-agent list) is fine
    lst = Observation(answers=[answer(report={"free_agents": []})])
    assert passed(score_case(exp, lst))
    for rep in ({"status": "UNKNOWN"}, {"recommendation": "HOLD"},
                {"expectedReturnDate": "2023-02-04"}):
        obs = Observation(answers=[answer(report={"playerName": "X", **rep})])
        failed = [c.name for c in score_case(exp, obs) if not c.passed]
        assert failed == ["no_player_report"], rep


def test_offers_count_and_labels():
    exp = base(offers={"min": 1, "max": 3, "any_text": ["moves"]})
    good = Observation(answers=[answer(offers=["Look for moves"])])
    assert passed(score_case(exp, good))
    none = Observation(answers=[answer(offers=[])])
    chk = next(c for c in score_case(exp, none) if c.name == "offers")
    assert not chk.passed and "fewer than 1" in chk.detail
    many = Observation(answers=[answer(offers=["a", "b", "c", "d moves"])])
    assert not next(c for c in score_case(exp, many) if c.name == "offers").passed
    wrong = Observation(answers=[answer(offers=["Standings"])])
    chk = next(c for c in score_case(exp, wrong) if c.name == "offers")
    assert not chk.passed and "no offer mentions" in chk.detail
    # only the last answer (the scored turn's reply) counts
    two = Observation(answers=[answer(offers=["Look for moves"]), answer(offers=[])])
    assert not next(c for c in score_case(exp, two) if c.name == "offers").passed


def test_no_card_is_event_answer():
    card = {"kind": "approval", "moves": [{"drop": HAYWARD, "add": TYUS}], "title": "t"}
    obs = Observation(answers=[answer()], approvals=[card])
    failed = [c.name for c in score_case(base(event="answer"), obs) if not c.passed]
    assert "event" in failed
