#!/usr/bin/env bash
# The benchmark driver: ./bench.sh --help (the logic is the Python package bench/), on the
# interpreter setup.sh installed the project into (scripts/project-python.sh).
cd "$(dirname "$0")" || exit 2
source scripts/project-python.sh
exec_project_python -m bench "$@"
