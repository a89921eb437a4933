"""``python -m services.projector [worker | health | unpark MATCH]``: the projector's one launcher.

- ``worker`` (the default): run a projector worker until SIGTERM/SIGINT;
- ``health``: exit 0 if a worker of this host is registered (the container health check);
- ``unpark MATCH``: retry a parked match now, e.g. after a deploy that reads its event.
"""
from __future__ import annotations

import argparse
import sys

from services.projector import health, jobs, worker
from shared.keys import InvalidMatchIdError, validate_match_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.projector", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("worker", help="run a projector worker (the default)")
    commands.add_parser("health", help="exit 0 if a projector worker of this host is registered")
    unpark = commands.add_parser("unpark", help="retry a parked match now")
    unpark.add_argument("match")
    args = parser.parse_args(argv)
    if args.command == "health":
        return health.main()
    if args.command == "unpark":
        return _unpark(args.match)
    worker.main()
    return 0


def _unpark(match: str) -> int:
    try:
        match_id = validate_match_id(match)
    except InvalidMatchIdError:
        print("Not a match id.", file=sys.stderr)
        return 2
    record = jobs.unpark(match_id)
    if record is None:
        print(f"Match {match_id} is caught up.")
        return 0
    print(f"Match {match_id} is still parked at event {record.version}: {record.error}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
