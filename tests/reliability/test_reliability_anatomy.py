"""Flask's CPU per request on a hello, measured by the anatomy on four servers, stays in one band.

Its share of the on-CPU time times the workers' CPU per request is the same Flask code on every
server: with waiting threads counted as work (py-spy's idle detection alone), it read 0 to 2 µs on
waitress and gthread (their parked pools took the samples) against 30 to 160 µs elsewhere. The band
is wide (a factor of 4 either side of the median) because the machine is shared and each run is a
few seconds under a profiler; a parked pool or a mis-placed layer moves it by far more.
"""
from __future__ import annotations

import shutil
import statistics

import pytest

from anatomy import layers, pyspy, session

pytestmark = pytest.mark.reliability
SERVERS = ["flask_gunicorn", "flask_gunicorn_gthread", "flask_gunicorn_gevent", "flask_waitress"]
BAND = 4.0


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed")
@pytest.mark.alone  # CPU per request, compared across servers
def test_flask_costs_the_same_cpu_per_request_on_every_server(tmp_path):
    if pyspy.unavailable():
        pytest.skip(pyspy.unavailable())
    flask_us = {}
    for name in SERVERS:
        result = session.run(session.Settings(name=name, op="hello", seconds=6, connections=16, workdir=tmp_path))
        cpu = result["cpu"]
        assert not cpu["why"], cpu["why"]
        flask_us[name] = cpu["layer_us_per_request"].get(layers.FRAMEWORK, 0.0)
    median = statistics.median(flask_us.values())
    assert all(median / BAND <= us <= median * BAND for us in flask_us.values()), flask_us
