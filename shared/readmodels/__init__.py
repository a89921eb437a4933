"""The read side: what the projector folds out of the streams and the API serves.

- ``port``: the read-model store's port (:class:`~shared.readmodels.port.ReadSide`, every generation
  with the pointer, feeds, clocks and parked registry; ``ReadModelStore``, one generation);
- ``served``: :class:`ReadModels`, its Redis adapter (the generation being served, what the API reads);
- ``writes``: one generation's keys, written by the projector;
- ``memory_served``, ``memory``: the in-memory adapters of the whole read side and of one generation;
- ``generations``: which generation is served or being built (the pointer, as read);
- ``scoreboard``: the players' rows, each finished match counted once;
- ``parked``: the registry of matches stopped on an event that cannot be folded, or read models
  that cannot be written;
- ``projection``: the pure step from a folded match to its views, summary and results (the shapes);
- ``player_feeds``, ``clocks``, ``changes``: the players' feeds, the timer's index, waiting for a write.

What writes them (catching a match up, parking it, rebuilding, publishing) is the
projector's: :mod:`services.projector`.
"""

from shared.readmodels.served import AUDIENCES, GenerationModels, InvalidAudienceError, Pointer, ReadModels

__all__ = ["AUDIENCES", "GenerationModels", "InvalidAudienceError", "Pointer", "ReadModels"]
