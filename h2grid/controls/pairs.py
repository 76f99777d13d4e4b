"""Which control pair stands for which attack probe: a build known vulnerable to the attack and one known fixed,
each with the upstream change that makes the difference (what the grid's judge must tell apart).
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

from h2grid.controls import gocontrol


@dataclass(frozen=True)
class Control:
    key: str  # "go-xnet-v0.16.0": a record's and a test id's key
    title: str
    argv: Callable[[], list[str]]  # the command line before --port (builds the control on first use)
    versions: Callable[[], dict[str, str]]  # what it runs, as a record keeps it


@dataclass(frozen=True)
class Pair:
    attack: str  # a key of h2grid.attacks
    vulnerable: Control
    fixed: Control
    change: str  # what the fixed build does that the vulnerable one does not


def go_control(version: str) -> Control:
    return Control(f"go-xnet-{version}", f"golang.org/x/net/http2 {version}",
                   lambda: [str(gocontrol.build(version))],
                   lambda: {"golang.org/x/net": gocontrol.built_with(version)})


def h2_control(fault: str) -> Control:
    """The grid's own server on python-hyper's h2 (controls/faulty.py), with `fault` or none."""
    return Control(f"h2-{fault or 'fixed'}", f"the grid's h2 server ({fault or 'no fault'})",
                   lambda: [sys.executable, "-m", "h2grid.controls.faulty", *(["--fault", fault] if fault else [])],
                   lambda: {"h2": metadata.version("h2"), "fault": fault or "none"})


XNET_2019_BEFORE, XNET_2019_FIXED = "v0.0.0-20190724013045-ca1201d0de80", "v0.0.0-20190813141303-74dc4d7220e7"
_CONTROL_FRAMES = ("x/net 74dc4d7220e7 (2019-08-13, go1.12.8) bounds the control frames queued for a peer that does "
                   "not read (maxQueuedControlFrames, 10,000), then closes the connection (CVE-2019-9512, 9514; "
                   "golang/go#33606); ca1201d0de80 (2019-07-24) queues them without bound")

PAIRS: tuple[Pair, ...] = (
    Pair("rapid-reset", go_control("v0.16.0"), go_control("v0.17.0"),
         "x/net v0.17.0 runs at most MaxConcurrentStreams handlers, queues the rest and ends the connection with "
         "GOAWAY ENHANCE_YOUR_CALM when the queue passes 4 times that (CVE-2023-39325, golang/go#63417); v0.16.0 "
         "starts a handler for every stream, reset or not"),
    Pair("continuation-flood", go_control("v0.22.0"), go_control("v0.23.0"),
         "x/net v0.23.0 stops a header block past the header list limit with a connection error (CVE-2023-45288, "
         "golang/go#65051); v0.22.0 decodes and discards CONTINUATION frames without end"),
    Pair("ping-flood", go_control(XNET_2019_BEFORE), go_control(XNET_2019_FIXED), _CONTROL_FRAMES),
    # (the grid's h2 server made faulty by reading on and queueing every answer did not separate either, tried once
    # by hand: h2 in Python reads SETTINGS too slowly for the queue to grow in 3 s, and both slowed the client alike)
    Pair("settings-flood", go_control(XNET_2019_BEFORE), go_control(XNET_2019_FIXED), _CONTROL_FRAMES),
    Pair("hpack-bomb", h2_control("no-header-list-limit"), h2_control(""),
         "the fixed server keeps h2's decoder bound on the header list (64 KiB, SETTINGS_MAX_HEADER_LIST_SIZE; the "
         "CVE-2016-6581 fix of hpack 2.3.0) and ends the connection past it; the faulty one has it lifted"),
    Pair("reset-flood", go_control(XNET_2019_BEFORE), go_control(XNET_2019_FIXED), _CONTROL_FRAMES),
    # No release the suite can install keeps the allocations (h2 before 4.1.0 let empty names through, but kept
    # nothing): the grid's server made to, as the HTTP/1.1 judge's faulty servers are.
    Pair("zero-length-headers", h2_control("keep-empty-headers"), h2_control(""),
         "the fixed server refuses a header block with an empty field name (h2 4.1.0's _reject_empty_header_names: "
         "a connection error, GOAWAY PROTOCOL_ERROR); the faulty one checks nothing and keeps every request's "
         "fields for the connection's life (CVE-2019-9516)"),
    Pair("empty-frames", h2_control("no-empty-frame-limit"), h2_control(""),
         "the fixed server ends a connection past 1,000 empty DATA frames in 10 s with GOAWAY ENHANCE_YOUR_CALM "
         "(gunicorn 27.0.1's rule); the faulty one reads them without a limit, each handed on as an empty body "
         "chunk (CVE-2019-9518)"),
)
BY_ATTACK: dict[str, Pair] = {p.attack: p for p in PAIRS}
