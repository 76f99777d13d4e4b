#!/usr/bin/env bash
# The benchmark driver: ./bench.sh --help (the logic is the Python package bench/).
cd "$(dirname "$0")" || exit 2
exec python3 -m bench "$@"
