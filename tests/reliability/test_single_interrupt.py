"""Why a run never has two pending approvals (agents/runtime.py shows pending[0] only).

LangGraph can hold several interrupts at once only when nodes run in parallel in one step
(fan-out: two static edges from a node, a router returning a list or Send) and more than
one of them calls interrupt(), or a subgraph interrupts alongside its parent. In FanVise
only matchup_optimizer's `present_and_confirm` calls interrupt(), once per execution, and
the optimizer graph is a chain whose routers each return ONE node name; asking again
(after_present -> present_and_confirm) happens only after the previous resume. These tests
fail as soon as a change could break that, so the runtime would have to surface every
pending interrupt (one card each) instead.
"""

from __future__ import annotations

import ast
import inspect
from collections import Counter
from pathlib import Path

from agents.matchup_optimizer.graph import build_matchup_optimizer_graph

AGENTS = Path(__file__).resolve().parents[2] / "agents"


def test_only_present_and_confirm_interrupts():
    """Calls of interrupt() / Send() anywhere in agents/, with their enclosing function."""
    found = []
    for path in sorted(AGENTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                    if name in ("interrupt", "Send"):
                        found.append((path.relative_to(AGENTS).as_posix(), fn.name, name))
    # nested functions would be walked twice (their own def and the enclosing one's): dedupe
    assert sorted(set(found)) == [("matchup_optimizer/graph.py", "present_and_confirm",
                                   "interrupt")]
    assert Counter(f for f in found if f[1] == "present_and_confirm")[
        ("matchup_optimizer/graph.py", "present_and_confirm", "interrupt")] == 1


def test_optimizer_graph_never_runs_two_nodes_in_one_step():
    builder = build_matchup_optimizer_graph().builder
    sources = Counter(src for src, _ in builder.edges)
    assert max(sources.values()) == 1, sources  # no static fan-out
    assert not builder.waiting_edges  # no joins (they only exist after a fan-out)
    for node, branches in builder.branches.items():
        assert len(branches) == 1 and node not in sources, node  # one router, no extra edge
        for spec in branches.values():
            ret = inspect.signature(spec.path.func).return_annotation
            assert ret in ("str", str), f"{node}: a router must return one node name"
    assert not any(getattr(n, "subgraphs", None) for n in builder.nodes.values())
