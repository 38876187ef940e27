"""The enumerations and the buffer type that the `lane` and `arena` dialects share.

    #lane<numerics int8>     how a step computes (`model.Numerics`)
    #lane<form quant>        which array of a tensor (`model.Form`)
    #lane<write whole>       how a generic launch writes an operand, where it is no part
    #arena<reason output>    why an array keeps a buffer of its own, outside the arena
    !arena.buffer            bytes: the arena, scratch on it, or a counter's zeroed buffer

In the custom syntax each enumeration is its bare keyword (`numerics(int8)`, `%h(quant)`, `own(plain = output)`)."""

from __future__ import annotations

from enum import auto

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

import lanearena.compat  # noqa: F401  (the workarounds for the pinned xDSL, wherever the dialects are)
from lanearena.model import Form, Numerics


class WriteKind(StrEnum):
    """A generic launch's write of an operand, where it is not a `part<pitch, start, width>`."""

    WHOLE = auto()
    OTHER = auto()


class Reason(StrEnum):
    """Why an array keeps a buffer of its own: what its tensor is (input, weight, state, output, a view whose
    quantized form is its own), that a launch reads it before the step writes all of it (unsafe), or that its
    tensor is not allocated in that form (unallocated)."""

    INPUT = auto()
    WEIGHT = auto()
    STATE = auto()
    OUTPUT = auto()
    VIEW = auto()
    UNSAFE = auto()
    UNALLOCATED = auto()


# xDSL bounds EnumAttribute by its own StrEnum (for Pythons before 3.11); `model`'s enumerations are the standard
# library's (`model` stays free of xDSL), which EnumAttribute handles alike: a str whose value is the keyword.


@irdl_attr_definition
class NumericsAttr(EnumAttribute[Numerics], SpacedOpaqueSyntaxAttribute):  # type: ignore[type-var]  # see above
    """`#lane<numerics int8>`: f32, int8 or int8x2."""

    name = "lane.numerics"


@irdl_attr_definition
class FormAttr(EnumAttribute[Form], SpacedOpaqueSyntaxAttribute):  # type: ignore[type-var]  # see above
    """`#lane<form plain>`: a tensor's f32/i32 array, or its quantized form."""

    name = "lane.form"


@irdl_attr_definition
class WriteAttr(EnumAttribute[WriteKind], SpacedOpaqueSyntaxAttribute):
    """`#lane<write whole>`: a write of the whole array, or of some other shape."""

    name = "lane.write"


@irdl_attr_definition
class ReasonAttr(EnumAttribute[Reason], SpacedOpaqueSyntaxAttribute):
    """`#arena<reason unsafe>`: why an array keeps a buffer of its own."""

    name = "arena.reason"


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """`!arena.buffer`: bytes of device memory; their size is an attribute of the op that makes them."""

    name = "arena.buffer"
