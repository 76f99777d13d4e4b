"""In which order the runs of a plan go: interleaved rounds (the default) or each stack's repeats back to back.

On a shared machine the speed drifts over minutes. With all repeats of stack A and then all of B
(sequential), a slow minute lands on one stack and reads as a difference between stacks. Interleaved,
round 1 runs every configuration once, round 2 runs them all again in the reverse order, round 3 in
the first order again, and so on (A B C, C B A, A B C, ...): drift spreads over every stack, and a
linear drift cancels over each pair of rounds.

Each stint is one server start: interleaved, a stack's server is started fresh for every round (and
warmed up again), which fits the runner (one server process at a time, on the pinned core, with its
CPU and memory sampled alone) and makes the repeats independent samples of start + warm-up + load,
which is what the bootstrap interval of bench/report/significance.py assumes. Sequential keeps one server
per stack for all its repeats, as before.
"""
from __future__ import annotations

from dataclasses import dataclass

from bench.planning.plan import EntryPlan, Plan, RunSpec

ORDERS = ("interleaved", "sequential")


@dataclass(frozen=True)
class Stint:
    """One server start: the entry, the runs it serves, and the round (None: all rounds, sequential)."""

    group: EntryPlan
    runs: list[RunSpec]
    round: int | None = None


def round_order(groups: list[EntryPlan], round_index: int) -> list[EntryPlan]:
    """Round 0 in the plan's order, round 1 reversed, round 2 as round 0, ..."""
    return list(groups) if round_index % 2 == 0 else list(reversed(groups))


def schedule(plan: Plan) -> list[Stint]:
    s = plan.settings
    if s.rounds_order not in ORDERS:
        raise ValueError(f"rounds order {s.rounds_order!r}: expected one of {', '.join(ORDERS)}")
    if s.rounds_order == "sequential" or s.repeat < 2:
        return [Stint(group, list(group.runs)) for group in plan.entries]
    stints = []
    for index in range(s.repeat):
        for group in round_order(plan.entries, index):
            runs = [run for run in group.runs if run.repeat == index]
            if runs:
                stints.append(Stint(group, runs, index))
    return stints


def describe(order: str, repeats: int) -> str:
    """The report's line on the scheme."""
    if repeats < 2:
        return "one run per configuration (no repeats)"
    if order == "interleaved":
        return (f"{repeats} interleaved rounds: each round runs every configuration once, in alternating "
                f"order (A B C, C B A, ...); every server is started afresh and warmed up in each round")
    if order == "sequential":
        return (f"{repeats} repeats run back to back per configuration, one server start per stack "
                f"(sequential: drift over the session can read as a difference between stacks)")
    return f"{repeats} repeats"
