"""`python -m bench`: the benchmark driver's command line (see bench.cli)."""
from bench.cli import main

if __name__ == "__main__":
    main()
