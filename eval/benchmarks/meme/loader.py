"""Read and write MEME episode files: a JSON array of episodes, or a folder of one episode per file.

Every episode is validated on load (:func:`~memsuite.eval.benchmarks.meme.parsing.parse_episode`); a
malformed file raises :class:`~memsuite.memory_systems.errors.DatasetError` naming the file, the episode
id and the field.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path

from memsuite.eval.benchmarks.meme.parsing import parse_episode
from memsuite.eval.benchmarks.meme.schema import Episode
from memsuite.memory_systems.errors import ConfigError, DatasetError
from memsuite.memory_systems.persist import atomic_write_text

logger = logging.getLogger(__name__)


def load_episodes(path: str | Path) -> list[Episode]:
    """Load and validate MEME episodes.

    Args:
        path: A ``.json`` file holding an array of episodes (or one episode object), or a folder whose
            ``*.json`` files (hidden files skipped, read in name order) each hold one episode or an array.

    Returns:
        The episodes in file order.

    Raises:
        DatasetError: The path does not exist, a file is not valid JSON, an episode is malformed, or two
            episodes share an id; the message names the file, the episode id and the field.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.json") if not p.name.startswith("."))
        if not files:
            raise DatasetError(f"{path}: no *.json episode files in this folder")
    elif path.is_file():
        files = [path]
    else:
        raise DatasetError(f"{path}: no such episode file or folder")
    episodes: list[Episode] = []
    origin: dict[str, str] = {}
    for file in files:
        for source, episode in _read_file(file):
            if episode.episode_id in origin:
                raise DatasetError(
                    f"{source}: episode {episode.episode_id!r}: field 'episode_id': duplicate "
                    f"(first in {origin[episode.episode_id]})"
                )
            origin[episode.episode_id] = source
            episodes.append(episode)
    logger.info("loaded %d MEME episodes from %s", len(episodes), path)
    return episodes


def _read_file(file: Path) -> list[tuple[str, Episode]]:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{file}: cannot read: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{file}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from None
    if isinstance(data, dict):
        return [(str(file), parse_episode(data, str(file)))]
    if isinstance(data, list):
        return [(f"{file}[{i}]", parse_episode(item, f"{file}[{i}]")) for i, item in enumerate(data)]
    raise DatasetError(
        f"{file}: expected a JSON array of episodes or one episode object, got {type(data).__name__}"
    )


def save_episodes(episodes: Iterable[Episode], path: str | Path) -> list[Path]:
    """Write episodes in the released layout, atomically per file.

    Args:
        episodes: The episodes to write.
        path: A path ending in ``.json`` gets one JSON array; any other path is a folder that gets one
            ``<episode_id>.json`` per episode.

    Returns:
        The files written.

    Raises:
        ConfigError: The folder already holds ``*.json`` files that are not among the ones being written
            (they would be loaded together with the new episodes).
    """
    path = Path(path)
    episodes = list(episodes)
    if path.suffix == ".json":
        atomic_write_text(path, _dumps([e.to_dict() for e in episodes]))
        return [path]
    names = {f"{e.episode_id}.json" for e in episodes}
    if path.is_dir():
        stale = sorted(
            p.name for p in path.glob("*.json") if p.name not in names and not p.name.startswith(".")
        )
        if stale:
            shown = ", ".join(stale[:3]) + (", ..." if len(stale) > 3 else "")
            raise ConfigError(
                f"{path} already holds other episode files ({shown}); choose an empty folder or a .json path"
            )
    written = []
    for episode in episodes:
        file = path / f"{episode.episode_id}.json"
        atomic_write_text(file, _dumps(episode.to_dict()))
        written.append(file)
    return written


def _dumps(data: object) -> str:
    # Non-ASCII kept as is: the gold strings use an em dash, and a readable file is worth more here.
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
