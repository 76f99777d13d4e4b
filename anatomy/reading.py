"""A server page's "Reading the numbers" figures, generated from its stored anatomy
(docs/data/anatomy/ENTRY-OP.json, written when `python -m anatomy --docs` measures the page's example)
and its stored wire trace: the threads, the top on-CPU and held rows, the latency tail, the accept
queue, how the connections split over the workers, and who writes. The page's prose under them explains
them without restating a number, so a re-measurement cannot leave it stale.
"""
from __future__ import annotations

from anatomy import tracerender


def _threads(anatomy: dict) -> str:
    workers = [p for p in anatomy["processes"] if p["role"] == "worker"]
    counts = sorted({p["threads"] for p in workers})
    count = "/".join(map(str, counts)) or "?"
    return (f"{len(workers)} worker process{'es' if len(workers) != 1 else ''}, {count} thread"
            f"{'s' if counts != [1] else ''} each (the most seen while loaded)")


def _split(anatomy: dict) -> str:
    per = anatomy["connections"]["per_process"]
    workers = [p["pid"] for p in anatomy["processes"] if p["role"] == "worker"]
    means = [per.get(str(pid), per.get(pid, {})).get("client_mean", 0) for pid in workers]
    cpu = [p["cpu_percent"] for p in anatomy["processes"] if p["role"] == "worker"]
    return ("client connections per worker (mean): " + ", ".join(f"{m:g}" for m in means)
            + f" of {anatomy['clients']}; worker CPU: " + ", ".join(f"{c:g}%" for c in cpu))


def notes(anatomy: dict | None, trace: dict | None) -> str:
    lines = []
    if anatomy:
        load, cpu, conns = anatomy["load"], anatomy["cpu"], anatomy["connections"]
        lat = load.get("latency_ms") or {}
        lines.append(f"- threads: {_threads(anatomy)}")
        lines.append(f"- {_split(anatomy)}")
        lines.append(f"- accept queue: max {conns['accept_queue_max']}, mean {conns['accept_queue_mean']:g}, "
                     f"of a backlog of {conns['backlog']} ({conns['listen']})")
        if lat.get("p50") is not None and lat.get("p99") is not None:
            lines.append(f"- latency: p50 {lat['p50']:g} ms, p99 {lat['p99']:g} ms "
                         f"({lat['p99'] / lat['p50']:.0f} times the p50)" if lat["p50"] else "")
        if cpu.get("top"):
            top = cpu["top"][0]
            shares = ", ".join(f"{k} {v:.1f}%" for k, v in cpu["shares"].items())
            lines.append(f"- on-CPU: by layer {shares}; the top row `{top['function']}` ({top['layer']}) "
                         f"{top['percent']:.1f}%")
        elif cpu.get("why"):
            lines.append(f"- on-CPU: not profiled ({cpu['why']})")
        if cpu.get("top_held"):
            held = cpu["top_held"][0]
            lines.append(f"- held (off CPU): {cpu['held_s']:g} thread-seconds over the window, the most in "
                         f"`{held['function']}` ({held['seconds']:g} s)")
    if trace:
        every = tracerender.requests(trace)
        accepting = dict.fromkeys(t for r in every for t in r.get("accept", {}).get("threads", []))
        writing = dict.fromkeys(t for r in every for t in r.get("write", {}).get("threads", []))
        writes = next(row for row in tracerender.rows(trace) if row.id == "writes")
        count = len(tracerender.runs(trace))
        lines.append(f"- the wire trace (one worker, {len(every)} requests over {count} run{'s' if count != 1 else ''}): "
                     f"accepted by {' and '.join(accepting) or '?'}, "
                     f"[{tracerender.count_words(writes)} write syscalls per response](#trace-writes) by "
                     f"{' and '.join(writing) or '?'}")
    source = []
    if anatomy:
        source.append(f"the anatomy above ({anatomy['entry']} {anatomy['op']}, {anatomy['seconds']:g} s of wrk "
                      f"with {anatomy['clients']} connections, under the profiler, on a busy 2-core machine)")
    if trace:
        source.append("the wire trace")
    head = "Generated from " + " and ".join(source) + ":" if source else "Nothing measured yet."
    return "\n".join([head, "", *[l for l in lines if l]]) + "\n"
