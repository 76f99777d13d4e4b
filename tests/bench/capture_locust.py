"""Capture real locust outputs for the parser tests: `python tests/bench/capture_locust.py`.

capture_data.py's way (its servers, its capture()) for bench's locust tool, one process and the
distributed mode: nethttp /json ("ok"), nethttp / with a master and 2 workers ("distributed"),
nethttp with its Redis down (503 answers: "non2xx"), the flaky http.server (connections dropped
unanswered, answers after the timeout: "errors"). Adds tests/bench/data/locust_<case>.* and their
entries to MANIFEST.json.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from capture_data import DATA, ROOT, capture, flaky_server  # noqa: E402

from harness.entry import EntryProcess  # noqa: E402
from processes.ports import free_port  # noqa: E402
from loadtools import LoadSpec  # noqa: E402


def main() -> None:
    manifest_file = DATA / "MANIFEST.json"
    manifest = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
    work = Path(tempfile.mkdtemp(prefix="bench-capture-locust-"))

    def spec(url: str, path: str, **kw) -> LoadSpec:
        defaults = dict(connections=10, duration_s=2, timeout_s=2, users=1000, workdir=work, stem="locust")
        return LoadSpec(base_url=url, path=path, **{**defaults, **kw})

    dead_redis = f"redis://127.0.0.1:{free_port()}/0"
    fast = EntryProcess("nethttp", ["--port", str(free_port()), "--redis-url", dead_redis], work / "nethttp.log")
    try:
        fast.start()
        flaky, flaky_url = flaky_server()
        capture("locust", "ok", spec(fast.url, "/json"), manifest)
        capture("locust", "distributed", spec(fast.url, "/", load_workers=2), manifest)
        capture("locust", "non2xx", spec(fast.url, "/redis/pooled", connections=4), manifest)
        capture("locust", "errors", spec(flaky_url, "/", timeout_s=1), manifest)
        flaky.shutdown()
    finally:
        fast.stop()
    for stem, item in manifest.items():  # paths of this checkout, not of the machine that captured
        if stem.startswith("locust_"):
            item["argv"] = [a.replace(str(ROOT), "ROOT") for a in item["argv"]]
    manifest_file.write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
