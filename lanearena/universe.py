"""What lanearena adds to `xdsl-opt`: found through the `xdsl.universe` entry point after `pip install -e .`."""

from xdsl.universe import Universe


def _lane():
    from lanearena.dialects.lane import LANE

    return LANE


def _arena():
    from lanearena.dialects.arena import ARENA

    return ARENA


def _place():
    from lanearena.passes.place import LaneArenaPlace

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
    all_dialects={"lane": _lane, "arena": _arena},
    all_passes={
        "lane-arena-place": _place,
        "lane-arena-verify": _verify,
        "memref-arena-place": _memref_place,
    },
    all_targets={"lane-pycuda": _pycuda},
)
