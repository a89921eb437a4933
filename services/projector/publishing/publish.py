"""Writing one match's read models, in the order that keeps them crash-safe."""

from __future__ import annotations

from shared import keys
from shared.fold import FoldedMatch
from shared.identity import validate_player_id
from shared.ratings.rating_fold import RatedResult
from shared.readmodels.player_feeds import notices_of
from shared.readmodels.port import ReadSide
from shared.readmodels.projection import MatchReadModels, read_models_of, seated_ids
from shared.readmodels.rated_results import rated_result_of
from shared.readmodels.read_along import ReadAlong
from shared.rules import deadline


def publish_live(
    readmodels: ReadSide, projection: FoldedMatch, *, relist: bool, replace_same_version: bool = False,
    along: ReadAlong | None = None,
) -> None:
    """Write the projection to the generation reads use and, during a rebuild, the one being built.

    The pointer is read after the events were read: a rebuild that starts later enqueues
    its jobs later, and they fold these events themselves. ``along``: the pointer, and the
    names of the players seated before the fold, as a catch-up read them in the round trip of
    the events' last read (None: read here, as are the names of players seated since). The
    generation being built is written first and never clears the mark, so the mark is
    cleared only once the generation being served holds the events, and a served view is
    never newer than the one that is about to replace it. It is always relisted: its lobby
    may not list the match yet. The players' feeds are told of what the served write
    changed, after it (``player_feeds``).
    """
    pointer = readmodels.pointer() if along is None else along.pointer
    names = None if along is None else along.names_of(seated_ids(projection.state))
    models = named_read_models(readmodels, projection, names)  # once, for both generations
    if pointer.building is not None:
        _write(readmodels, projection, models, relist=True, replace_same_version=replace_same_version,
               generation=pointer.building, clear_mark=False)
    wrote, was = _write(readmodels, projection, models, relist=relist, replace_same_version=replace_same_version,
                        generation=pointer.generation, clear_mark=True, read_status=True)
    changed = relist and was != models.summary["status"]
    notices = notices_of(projection, status_changed=changed) if wrote else []  # never for an older fold than served
    finished_at = projection.at if projection.status.over else None  # then it waits for the archive
    readmodels.tell(projection.match_id, deadline(projection.state), notices, finished_at)  # feeds, timer, archive


def publish(
    readmodels: ReadSide, projection: FoldedMatch, *, relist: bool,
    replace_same_version: bool = False, generation: int | None = None, clear_mark: bool = True,
) -> bool:
    """Write the projection's read models in the crash-safe order; True if the views were written.

    ``relist``: the match's status may have changed, so its lobby listing must follow.
    ``generation``: where to write (None: the generation reads use, resolved once).
    ``clear_mark``: clear the match's unprojected mark up to the projection's version.
    """
    generation = readmodels.generation() if generation is None else generation
    return _write(readmodels, projection, named_read_models(readmodels, projection), relist=relist,
                  replace_same_version=replace_same_version, generation=generation, clear_mark=clear_mark)[0]


def named_read_models(
    readmodels: ReadSide, projection: FoldedMatch, names: dict[str, str] | None = None,
) -> MatchReadModels:
    """The match's read models, its players named as the directory names them now (``names``:
    as read just now; None: read here)."""
    return read_models_of(projection, readmodels.names(seated_ids(projection.state)) if names is None else names)


def _write(
    readmodels: ReadSide, projection: FoldedMatch, models: MatchReadModels, *, relist: bool,
    replace_same_version: bool, generation: int, clear_mark: bool, read_status: bool = False,
) -> tuple[bool, str | None]:
    """``publish`` with the read models already computed and the generation resolved; and, with
    ``relist`` and ``read_status``, the status the stored summary held before (read as the match
    is placed; None: none, or not asked)."""
    match_id, created_at = projection.match_id, projection.created_at or 0
    _record_results(readmodels, projection, models, generation, fold=clear_mark)
    was = None
    if relist:
        players = [seat["id"] for seat in models.summary["players"].values() if seat]
        was = readmodels.place_in_lobby(match_id, models.summary["status"], created_at, players,
                                        generation=generation, read_status=read_status)
    wrote = readmodels.write_match(
        match_id, models.version, models.views, models.summary,
        replace_same_version=replace_same_version, generation=generation, clear_mark=clear_mark,
    )
    if relist:  # what it wrote is the stored summary, unless a newer one was there or came since
        readmodels.settle_lobby(match_id, created_at, generation=generation, written=models.summary if wrote else None)
    return wrote, was


def publish_archived(readmodels: ReadSide, projection: FoldedMatch, *, generation: int | None = None) -> None:
    """An archived match's share of a generation: its players' results and its listings.

    Its views left Redis with it and are rendered from the archive when read, so none is
    written back: a rebuild must not undo what archiving freed.
    """
    live, generation = generation is None, readmodels.generation() if generation is None else generation
    models = read_models_of(projection, readmodels.names(seated_ids(projection.state)))
    rated = _record_results(readmodels, projection, models, generation, fold=False)  # folded by the chill's settle
    players = [seat["id"] for seat in models.summary["players"].values() if seat]
    created_at = projection.created_at or 0
    readmodels.place_in_lobby(projection.match_id, models.summary["status"], created_at, players, generation=generation)
    readmodels.retire_archived(projection.match_id, created_at, players, generation=generation)
    if rated is not None:
        readmodels.ratings(generation).chill(rated.match_id, rated.ended_at, [rated.player_a, rated.player_b],
                                             fold=live)


def _record_results(
    readmodels: ReadSide, projection: FoldedMatch, models: MatchReadModels, generation: int, *, fold: bool,
) -> RatedResult | None:
    """Each player's result of a finished match (none before), ids checked before the first write;
    and a rated one's result for the ratings, folded in their own order (``fold``: now; a
    generation being built, which never clears the marks, folds all of them at its end): that
    result, if rated."""
    match_id = projection.match_id
    _check_ids(match_id, models)
    for result in models.results:
        readmodels.record_result(
            match_id, result.player_id, result.name, result.won,
            result.rounds_won, result.points_for, result.points_against, projection.created_at or 0,
            generation=generation,
        )
    rated = rated_result_of(projection)
    if rated is not None:
        readmodels.ratings(generation).record(rated, fold=fold)
    return rated


def _check_ids(match_id: str, models: MatchReadModels) -> None:
    """Every id the writes put into a key, checked before the first write.

    A match seating a player whose id no key may hold is refused whole: were it checked
    key by key, the results of the players before that one would be counted already.
    """
    keys.validate_match_id(match_id)
    seated = [seat["id"] for seat in models.summary["players"].values() if seat]
    for player_id in [*(result.player_id for result in models.results), *seated]:
        validate_player_id(player_id)
