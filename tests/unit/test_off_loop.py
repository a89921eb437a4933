"""A long fold runs off gevent's event loop (shared/offloop.py): the loop's other greenlets go on
while a replay or a cold fold of the longest match folds, in a process gevent patched as gunicorn's
worker does; without gevent (these tests, the workers, the CLI) the work runs in the caller's thread."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from shared.offloop import off_loop, on_gevent

ROOT = Path(__file__).resolve().parents[2]

# Patched first, as gunicorn's gevent worker does. A greenlet ticks every millisecond; the
# ticks counted while each fold runs say whether the loop went on meanwhile. The store is in
# memory: its reads never yield, so a fold on the loop lets no tick in at all.
PATCHED = """
import gevent.monkey; gevent.monkey.patch_all()
import json, gevent
from shared.checkpoints import Checkpoints
from shared.codec import encode
from shared.eventstore.memory import InMemoryEventStore
from shared.fold import FoldCache, FoldedMatch, fold
from shared.offloop import on_gevent
from shared.rules.void_rounds import void_match

events = void_match("long", rounds=400)
store = InMemoryEventStore()
for start in range(0, len(events), 500):
    store.append("long", [encode(event) for event in events[start:start + 500]], start)
ticks = []
def tick():
    while True:
        gevent.sleep(0.001)
        ticks.append(1)
gevent.spawn(tick)
gevent.sleep(0.02)

def ticks_during(work):
    before = len(ticks)
    result = work()
    assert result.version == len(events), result.version
    return len(ticks) - before

print(json.dumps({
    "patched": on_gevent(),
    "on_the_loop": ticks_during(lambda: fold(FoldedMatch("long"), store.read("long"))),
    "replay": ticks_during(lambda: Checkpoints().at(store, "long", len(events))),
    "latest": ticks_during(lambda: FoldCache().latest(store, "long")),
}))
"""


def test_a_long_fold_leaves_the_event_loop_serving() -> None:
    done = subprocess.run([sys.executable, "-c", PATCHED], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    ticks = json.loads(done.stdout)
    assert ticks["patched"]
    assert ticks["on_the_loop"] == 0  # the plain fold of before: the loop waited for all of it
    assert ticks["replay"] > 0 and ticks["latest"] > 0  # the loop ran between the pool thread's slices


def test_without_gevent_the_work_runs_in_the_callers_thread() -> None:
    assert not on_gevent()
    assert off_loop(threading.get_ident) == threading.get_ident()
    assert off_loop(divmod, 7, 2) == (3, 1)
