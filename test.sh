#!/usr/bin/env bash
# The tests: pytest with any of its arguments (./test.sh -k flask_gevent, ./test.sh -m reliability),
# on the interpreter setup.sh installed the project into (scripts/project-python.sh).
cd "$(dirname "$0")" || exit 2
source scripts/project-python.sh
exec_project_python -m pytest "$@"
