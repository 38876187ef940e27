"""What lanearena adds to `xdsl-opt`: found through the `xdsl.universe` entry point after `pip install -e .`; with
the dialects of the kinds registered in the `lanearena.kinds` entry-point group (`plugins`), each loaded when a
module names it."""

import functools

from xdsl.universe import Universe

from lanearena.plugins import kind_entry_points, load_dialect


def _lane():
    from lanearena.dialects.lane import LANE

    return LANE


def _arena():
    from lanearena.dialects.arena import ARENA

    return ARENA


def _fuse():
    from lanearena.passes.fuse import LaneFuse

    return LaneFuse


def _place():
    from lanearena.passes.arena_place import LaneArenaPlace

    return LaneArenaPlace


def _verify():
    from lanearena.passes.verify import LaneArenaVerify

    return LaneArenaVerify


def _memref_place():
    from lanearena.memref.place import MemrefArenaPlace

    return MemrefArenaPlace


def _pycuda():
    from lanearena.lowering.target import LanePycuda

    return LanePycuda


LANEARENA_UNIVERSE = Universe(
    all_dialects={
        "lane": _lane,
        "arena": _arena,
        **{ep.name: functools.partial(load_dialect, ep) for ep in kind_entry_points()},
    },
    all_passes={
        "lane-fuse": _fuse,
        "lane-arena-place": _place,
        "lane-arena-verify": _verify,
        "memref-arena-place": _memref_place,
    },
    all_targets={"lane-pycuda": _pycuda},
)
