#!/usr/bin/env bash
# The tests: pytest with any of its arguments (./test.sh -k flask_gevent, ./test.sh -m reliability),
# on the interpreter setup.sh installed the project into (scripts/project-python.sh).
cd "$(dirname "$0")" || exit 2
source scripts/project-python.sh
# Bytecode caches on: pytest keeps each test module's rewritten asserts there, else every parallel worker
# rewrites every module again (8 s of CPU a worker here), and each server started recompiles the project.
export PYTHONDONTWRITEBYTECODE=
exec_project_python -m pytest "$@"
