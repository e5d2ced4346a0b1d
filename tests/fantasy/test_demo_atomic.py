"""Issue 12 #10 and a minor: a demo move whose save fails changes nothing (memory and disk
agree, all or nothing) and the user reads a clear message without internal paths; refusal
messages name players and teams, not raw ids. Real demo league, real files, real client."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fantasy.constants import SLOT_BENCH
from fantasy.demo import DemoError, DemoLeague, open_demo_client
from storage.cache import TTLCache
from storage.db import Database


async def _pick(client) -> tuple[int, int]:
    lg = await client.get_league()
    drop = next(e.player for e in lg.team(1).roster if e.lineup_slot_id == SLOT_BENCH)
    add = (await client.get_free_agents(slot=0, size=1))[0]
    return drop.id, add.id


async def _assert_failed_save_changes_nothing(client, state: Path, drop: int, add: int,
                                              hidden: list[str]) -> None:
    demo = client.demo
    before_roster = dict(demo.roster_now(1))
    before_ns, before_changes = client.cache_namespace, len(demo.changes)
    with pytest.raises(DemoError) as ei:
        demo.apply_move(1, drop, add)
    msg = str(ei.value)
    assert "not applied" in msg.lower() and "Errno" not in msg
    assert not any(h in msg for h in hidden), msg
    # memory: nothing changed, the next read (through the cache) shows the old roster
    assert demo.roster_now(1) == before_roster and len(demo.changes) == before_changes
    assert client.cache_namespace == before_ns
    lg = await client.get_league()
    assert drop in lg.team(1).player_ids and add not in lg.team(1).player_ids
    used, _ = demo.acquisitions(1)
    assert used == 2


async def test_save_into_a_directory_applies_nothing(tmp_path: Path) -> None:
    state = tmp_path / "data" / "demo-state-points.json"
    db = await Database.open(tmp_path / "c.sqlite")
    client = open_demo_client("points", cache=TTLCache(db), state_path=state)
    drop, add = await _pick(client)
    client.demo.set_lineup(1, {})  # a first change is saved normally
    assert state.is_file()
    saved = state.read_bytes()
    state.unlink()
    state.mkdir()  # the state path is now a directory: every save fails
    await _assert_failed_save_changes_nothing(client, state, drop, add,
                                              [str(tmp_path), "demo-state", ".tmp"])
    state.rmdir()
    state.write_bytes(saved)
    # disk agrees with memory after a restart
    again = DemoLeague("points", state_path=state)
    assert again.roster_now(1) == client.demo.roster_now(1)
    # and once the disk is fine the same move applies and persists
    client.demo.apply_move(1, drop, add)
    assert add in DemoLeague("points", state_path=state).roster_now(1)
    assert [p.name for p in state.parent.iterdir()] == [state.name]  # no temp files left
    await client.aclose()
    await db.close()


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs")
    where = tmp_path / "mnt"
    where.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(where)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({res.stderr.strip()})")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 1024)
        except OSError:
            pass
    return filler


async def test_full_disk_applies_nothing_then_recovers(tmp_path: Path, small_disk: Path) -> None:
    state = small_disk / "demo-state-points.json"
    client = open_demo_client("points", state_path=state)
    drop, add = await _pick(client)
    client.demo.set_lineup(1, {})
    saved = state.read_bytes()
    filler = _fill(small_disk)
    await _assert_failed_save_changes_nothing(client, state, drop, add,
                                              [str(small_disk), "demo-state"])
    assert state.read_bytes() == saved  # the old file is intact, not truncated
    assert sorted(p.name for p in small_disk.iterdir()) == sorted([state.name, filler.name])
    filler.unlink()
    client.demo.apply_move(1, drop, add)
    assert add in DemoLeague("points", state_path=state).roster_now(1)
    await client.aclose()


async def test_refusals_name_players_and_teams(tmp_path: Path) -> None:
    client = open_demo_client("points")
    lg = await client.get_league()
    drop = next(e.player for e in lg.team(1).roster if e.lineup_slot_id == SLOT_BENCH)
    theirs = lg.team(2).roster[0].player
    with pytest.raises(DemoError) as ei:
        client.demo.apply_move(1, drop.id, theirs.id)
    msg = str(ei.value)
    assert theirs.name in msg and lg.team(2).name in msg and str(theirs.id) not in msg
    with pytest.raises(DemoError) as ei:
        client.demo.apply_move(1, theirs.id, drop.id)
    msg = str(ei.value)
    assert theirs.name in msg and lg.team(1).name in msg and str(theirs.id) not in msg
    with pytest.raises(DemoError) as ei:
        client.demo.set_lineup(1, {theirs.id: SLOT_BENCH})
    assert theirs.name in str(ei.value) and str(theirs.id) not in str(ei.value)
    await client.aclose()
