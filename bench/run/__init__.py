"""Carrying out a plan: runner.Runner is the entry. It brings backends up, starts each entry, checks
its answer (verify.py, fortunes_check.py), warms up and measures by steps.py (closed-loop runs and
constant-rate steps, sampled by sampler.py), ramps capacities (ramper.py), runs the backend's own
ceiling beside (ceiling.py), says where the pieces were (hosts.py) and shows progress (progress.py);
anatomy.py runs the anatomy of a finished run's stacks."""
