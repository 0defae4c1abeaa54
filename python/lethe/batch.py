"""Batch audits: a manifest of analyses (one JSON object a line: ``command``, ``id``, ``inputs``, ``rows``,
``options``), each line a cell computed by a pure function of its text, merged into one table ordered by cell.

The cells and the table are the analysis layer's (``lethe batch`` / ``lethe merge`` call the same functions), so the
table is the same whether the cells ran in one process, as Slurm array tasks, or on a Dask cluster with any number
of workers. See docs/python.md for the Slurm and Dask recipes (and Ray).
"""

from __future__ import annotations

import os
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from . import _lethe

__all__ = ["cells", "run_cell", "run_shard", "merge", "run_dask"]


def _text(manifest: Union[str, os.PathLike, Sequence[str]]) -> str:
    if isinstance(manifest, (list, tuple)):
        return "\n".join(manifest)
    if isinstance(manifest, os.PathLike) or (isinstance(manifest, str) and "\n" not in manifest
                                            and not manifest.lstrip().startswith("{")):
        with open(manifest, encoding="utf-8") as f:
            return f.read()
    return str(manifest)


def cells(manifest: Union[str, os.PathLike, Sequence[str]]) -> List[Tuple[int, str]]:
    """The cells of a manifest (a path, its text, or a list of lines): ``(number, line)``; blank and ``#`` lines
    are skipped but counted, as ``lethe batch`` counts them."""
    return [tuple(c) for c in _lethe.manifest_cells(_text(manifest))]


def run_cell(number: int, line: str, threads: int = 1) -> str:
    """Cell ``number`` from its manifest ``line``: the cell's JSON (its report, or its error), as ``lethe batch``
    writes it. Pure: the same line gives the same cell on every machine."""
    return _lethe.run_cell(number, line, threads)


def run_shard(manifest, shard: Tuple[int, int] = (0, 1), threads: int = 1) -> List[str]:
    """Shard ``i`` of ``n`` (the cells whose number modulo ``n`` is ``i``) in this process: ``lethe batch
    --shard i/n``."""
    i, n = shard
    return [run_cell(k, line, threads) for k, line in cells(manifest) if k % n == i]


def merge(cell_outputs: Iterable[str], format: str = "csv") -> str:
    """One table (``csv`` or ``json`` text) from cells (each a JSON line, or a whole ``lethe batch`` output),
    ordered by cell number: ``lethe merge``."""
    return _lethe.merge(list(cell_outputs), format)


def run_dask(manifest, client=None, format: str = "csv", threads: int = 1) -> str:
    """Every cell of ``manifest`` as a task on a ``dask.distributed`` cluster (``client``: a
    ``distributed.Client``; default: the current one), then :func:`merge`. Each task is ``run_cell(number, line)``,
    marked pure (Dask may reuse a result for the same line), so the table does not depend on the workers."""
    from distributed import default_client

    client = client or default_client()
    todo = cells(manifest)
    futures = client.map(run_cell, [k for k, _ in todo], [line for _, line in todo], threads=threads, pure=True)
    return merge(client.gather(futures), format)
