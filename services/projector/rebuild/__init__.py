"""Rebuilding the read models from the streams into a new generation, with no downtime.

- ``rebuild``: the operator's rebuild, start to switch (:class:`Rebuild`);
- ``matches``: the work of its jobs, a match folded from version 0 into a generation;
- ``lock_and_switch``: the rebuild's writes to the generation pointer, and dropping a generation.
"""
