"""fantasy.redact: registered secrets, known secret shapes, logging filter."""

from __future__ import annotations

import io
import logging

from hypothesis import given, settings
from hypothesis import strategies as st

from fantasy.redact import (
    MASK,
    RedactingFilter,
    contains_secret,
    install_log_redaction,
    redact,
    register_secret,
)

S2 = "AEBx9fakeS2cookie%2Bvalue%2Fwith%3Dpadding" + "Q" * 80
SWID = "{0A1B2C3D-1111-2222-3333-444455556666}"
XOXB = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
XAPP = "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef"
XOXP = "xoxp-1111111111-2222222222-3333333333-abcdefabcdefabcdef"
DISCORD = "MTA5ODc2NTQzMjEwOTg3NjU0Mw.GAbCdE.abcdefghijklmnopqrstuvwxyz0123456789AB"
GOOGLE = "AIzaSyA1234567890abcdefghijklmnopqrstuv"


def test_known_patterns_are_masked_without_registration() -> None:
    cases = [
        f"Cookie: espn_s2={S2}; SWID={SWID}",
        f"slack token {XOXB} in text",
        f"app token={XAPP}",
        f"user {XOXP}",
        f"discord login failed with {DISCORD}",
        f"https://generativelanguage.googleapis.com/v1?key={GOOGLE}",
        f"headers={{'Authorization': 'Bot {DISCORD}'}}",
        "Authorization: Bearer abc.def-ghi_jkl",
        f'{{"espn_s2": "{S2}", "swid": "{SWID}"}}',
        f"swid is %7B{SWID[1:-1]}%7D encoded",
    ]
    for text in cases:
        out = redact(text)
        for secret in (S2, SWID, SWID[1:-1], XOXB, XAPP, XOXP, DISCORD, GOOGLE, "abc.def-ghi_jkl"):
            assert secret not in out, (text, out)
        assert MASK in out


def test_plain_text_is_untouched() -> None:
    for text in ["Start Jalen Brunson at PG on Wednesday.", "LeBron James (OUT, ankle)",
                 "fv:approve:0123456789ab:2", "discord:123456789012345678:98765:4321",
                 "ESPN server error (HTTP 500, mTeam,mRoster)", ""]:
        assert redact(text) == text
        assert not contains_secret(text)


def test_registered_secret_and_its_encodings_are_masked() -> None:
    odd = "s3cr3t/with+plus=and space"
    register_secret(odd)
    register_secret(None)
    register_secret("abc")  # too short: ignored, so normal words survive
    assert "abc" in redact("abc def")
    for form in (odd, "s3cr3t%2Fwith%2Bplus%3Dand%20space", "s3cr3t/with%2Bplus%3Dand%20space"):
        out = redact(f"before {form} after")
        assert form not in out and out == f"before {MASK} after"


def test_non_str_input() -> None:
    err = RuntimeError(f"boom {XOXB}")
    assert XOXB not in redact(err) and redact(err).startswith("boom")


def test_logging_filter_redacts_args_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("fanvise.test.redact")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("token %s cookie %s", XOXB, {"espn_s2": S2})
        try:
            raise ValueError(f"bad key {GOOGLE}")
        except ValueError:
            log.exception("failed with %s", DISCORD)
        log.error("bad format %s %s", "only one")  # a broken call must not break logging
    finally:
        log.removeHandler(handler)
    text = stream.getvalue()
    for secret in (XOXB, S2, GOOGLE, DISCORD):
        assert secret not in text
    assert "ValueError: bad key" in text and "Traceback" in text


def test_install_log_redaction_is_idempotent() -> None:
    logger = logging.getLogger("fanvise.test.install")
    handler = logging.StreamHandler(io.StringIO())
    logger.addHandler(handler)
    try:
        f1 = install_log_redaction(logger)
        f2 = install_log_redaction(logger)
        assert f1 is f2 and handler.filters.count(f1) == 1
    finally:
        logger.removeHandler(handler)


@settings(max_examples=150, deadline=None)
@given(prefix=st.text(max_size=60), suffix=st.text(max_size=60),
       secret=st.sampled_from([S2, SWID, XOXB, XAPP, XOXP, DISCORD, GOOGLE]))
def test_secret_never_survives_any_surrounding_text(prefix: str, suffix: str, secret: str) -> None:
    register_secret(secret)
    assert secret not in redact(prefix + secret + suffix)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_redact_is_total_and_idempotent(text: str) -> None:
    once = redact(text)
    assert isinstance(once, str) and redact(once) == once


def test_s2_alias_is_masked_in_text_and_log_lines() -> None:
    """Issue 12 #7: the undocumented `s2=` alias escaped redaction (slack-bolt's DEBUG
    "Received message" line logged it). A short value must go too, not only 60+ AE... ones."""
    short = "q7ZkX2p9w3"
    for text in (f"/fanvise link team=1 s2={short} swid={SWID}",
                 f"text=link+team%3D1 s2={S2}&x=1",
                 f"{{'text': 'link s2={short}'}}", f"S2={short}"):
        out = redact(text)
        assert short not in out and S2 not in out and SWID not in out, (text, out)
        assert MASK in out and contains_secret(text)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("fanvise.test.redact.s2")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.setLevel(logging.DEBUG)
        log.debug("Received message: %s", {"text": f"link team=1 s2={short}"})
    finally:
        log.removeHandler(handler)
    assert "Received message" in stream.getvalue() and short not in stream.getvalue()


def test_langsmith_api_key_from_the_environment_is_masked(monkeypatch) -> None:
    """Issue 12 #7: LANGSMITH_API_KEY was not redacted. Its value is masked wherever it
    appears (registered from the environment), and as a `LANGSMITH_API_KEY=` assignment."""
    from fantasy.redact import register_environment_secrets

    key = "lsv2_pt_0123456789abcdef0123456789abcdef_0a1b2c3d4e"
    custom = "my-own-langsmith-key-7f3a9c"  # not lsv2-shaped: only registration catches it
    monkeypatch.setenv("LANGSMITH_API_KEY", custom)
    register_environment_secrets()
    for text in (f"LANGSMITH_API_KEY={key}", f"langsmith error for key {key}",
                 f"x-api-key: {custom}", f"client created with {custom} as key"):
        out = redact(text)
        assert key not in out and custom not in out, (text, out)
        assert MASK in out
