"""``truc duel A B``: whole matches between two strategies, on the engine alone (no server).

An operator's and a developer's measuring tool (plain English, like the audit): the win
rate of A with its Wilson 95 % interval, points per match, raises, bluffs and folds per
round, and CPU milliseconds per decision (p50/p99). Results are saved as each match ends
(``--results``, default under DATA_DIR/duels), and a duel run again with the same
strategies, seed and file resumes there. See docs/bot.md.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from shared.botplay.duel import run, summary
from shared.botplay.levels import UnknownStrategyError, strategy_for, strategy_names
from shared.config import Config


def _strategy(ctx: click.Context, param: click.Parameter, name: str) -> str:
    try:
        strategy_for(name)
    except UnknownStrategyError:
        names = ", ".join(strategy_names())
        raise click.BadParameter(f"{name!r}: one of {names} or search:N, sharp:N, pimc:N") from None
    return name


@click.command()
@click.argument("first", callback=_strategy)
@click.argument("second", callback=_strategy)
@click.option("--matches", default=100, show_default=True, type=click.IntRange(1, 1_000_000))
@click.option("--seed", default=1, show_default=True, type=int, help="Fixes every deal and every random draw.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="Processes in parallel.")
@click.option("--results", type=click.Path(dir_okay=False, path_type=Path),
              help="The results file (JSON lines); default DATA_DIR/duels/FIRST-vs-SECOND-seedSEED.jsonl.")
def duel(first: str, second: str, matches: int, seed: int, workers: int, results: Path | None) -> None:
    """Play MATCHES whole matches of FIRST against SECOND and print how FIRST fared."""
    path = results or default_results(first, second, seed)
    try:
        records = run(first, second, matches, seed, workers, path)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    click.echo(report(first, second, summary(records)))


def default_results(first: str, second: str, seed: int) -> Path:
    stem = f"{first}-vs-{second}-seed{seed}".replace(":", "_")
    return Config.from_env().data_dir / "duels" / f"{stem}.jsonl"


def report(first: str, second: str, result: dict[str, Any]) -> str:
    low, high = result["wilson95"]
    lines = [f"{first} vs {second}: {result['matches']} matches, {first} won {result['wins']} "
             f"({result['win_rate']:.1%}, Wilson 95% {low:.1%}..{high:.1%})"]
    for name, side in zip((first, second), result["sides"]):
        lines.append(
            f"  {name:<12} {side['points_per_match']:5.2f} points/match  per round: "
            f"{side['raises_per_round']:.2f} raises, {side['bluffs_per_round']:.2f} bluffs, "
            f"{side['folds_per_round']:.2f} folds  ms/decision p50 {side['ms_p50']:.1f} p99 {side['ms_p99']:.1f}"
        )
    return "\n".join(lines)
