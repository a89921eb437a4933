"""Catching a match's read models up with its stream: the projector's one catch-up path.

- ``projector_context``: what a job works with (the event store, the read-model store, the fold cache);
- ``catching_up``: the use cases, ``catch_up`` and ``unpark``;
- ``failures``: the one failure policy every catch-up and rebuild of a match runs under.
"""
