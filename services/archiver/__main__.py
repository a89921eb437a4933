"""``python -m services.archiver``: run an archiver worker until SIGTERM/SIGINT."""
from __future__ import annotations

from services.archiver import archiving_worker

if __name__ == "__main__":
    archiving_worker.main()
