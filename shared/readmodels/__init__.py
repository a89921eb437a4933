"""The read side: what the projector folds out of the streams and the API serves.

- ``served``: :class:`ReadModels`, the generation being served (what the API reads);
- ``writes``: one generation's keys, written by the projector;
- ``generations``: which generation is served or being built, and dropping one;
- ``scoreboard``: the players' rows, each finished match counted once;
- ``parked``: matches stopped on an event that cannot be folded, or read models that cannot be written;
- ``projection``: the pure step from a folded match to its views, summary and results;
- ``publishing``, ``catching_up``, ``rebuild``: writing them, catching a match up,
  rebuilding every generation from the streams.
"""

from shared.readmodels.served import AUDIENCES, GenerationModels, InvalidAudienceError, Pointer, ReadModels

__all__ = ["AUDIENCES", "GenerationModels", "InvalidAudienceError", "Pointer", "ReadModels"]
