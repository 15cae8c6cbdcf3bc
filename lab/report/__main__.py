"""python -m lab.report: rewrite the README's headline and the results pages."""
import argparse
import sys
from pathlib import Path

from .common import ReportError
from .pages import write


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.report", description=__doc__)
    parser.add_argument("--metrics", type=Path, default=Path("metrics"),
                        help="folder of the metrics files the project wrote")
    parser.add_argument("--readme", type=Path, default=Path("README.md"),
                        help="rewrite this file's headline block")
    parser.add_argument("--docs", type=Path, default=Path("docs"),
                        help="write <docs>/results/*.md and their plots")
    parser.add_argument("--no-plots", action="store_true", help="leave the PNG files as they are")
    args = parser.parse_args(argv)
    try:
        write(args.metrics, args.readme, args.docs, plots=not args.no_plots)
    except (ReportError, OSError) as err:
        print(f"lab.report: {err}", file=sys.stderr)
        return 1
    print(f"updated {args.readme} and {args.docs / 'results'}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
