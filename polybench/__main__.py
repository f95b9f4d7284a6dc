"""``python -m polybench``: the evaluation harness (same as ``s2s bench``)."""
import sys

from polybench.harness.cli import main

if __name__ == "__main__":
    sys.exit(main())
