"""A step as plain data: its tensors, views and launches with the arrays each touches and how, and the scratch each
asks for. The analyses, the placement and the runtimes work on this; the IR is turned into it and back."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum, auto

QBLOCK = 32
"""Values per scale of a quantized array (GGML's Q8_0)."""

ALIGN = 256
"""Every array's alignment in the arena: cudaMalloc's, past every vector load the kernels make."""


DEVICE_BYTES = 1 << 48
"""The most bytes one array may take: 256 TiB, past every GPU's memory and within the 48-bit virtual addresses
CUDA's unified address space gives a device; larger sizes are refused, never wrapped."""


class Form(StrEnum):
    """The array of a tensor that a launch touches: its f32/i32 buffer, or its quantized form."""

    PLAIN = "plain"
    QUANT = "quant"


class Numerics(StrEnum):
    """How a step computes: f32 activations and weights; f32 activations with bf16 weight matrices (as a bf16
    checkpoint stores them), summed in f32; int8 activations with a scale a block and Q8_0 weights; or int8 in two
    words."""

    F32 = "f32"
    BF16 = "bf16"
    INT8 = "int8"
    INT8X2 = "int8x2"

    @property
    def two_words(self) -> bool:
        return self is Numerics.INT8X2

    @property
    def quantized(self) -> bool:
        """Whether activations have a quantized form (int8 words and scales) that projections read."""
        return self in (Numerics.INT8, Numerics.INT8X2)


class Role(StrEnum):
    """Where a tensor comes from. Only `computed` tensors that are no output may live in the arena; `state` is
    memory kept across steps (a key/value cache) that the step reads and writes."""

    INPUT = "input"
    WEIGHT = "weight"
    STATE = "state"
    COMPUTED = "computed"


ELEMENT_BYTES = {"f32": 4, "i32": 4, "i8": 1, "bf16": 2}
"""The bytes of one element of each type (a Q8_0 weight's words: its scales come after them)."""


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


@dataclass(frozen=True)
class Tensor:
    """A tensor of the step. A view (`view_of` set) is an alias of `view_of` starting `view_offset` elements in."""

    name: str
    shape: tuple[int, ...]
    elem: str
    role: Role
    forms: frozenset[Form] = frozenset({Form.PLAIN})
    view_of: str | None = None
    view_offset: int = 0

    @property
    def length(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class Whole:
    """A write of the whole array."""


@dataclass(frozen=True)
class Part:
    """A write of `[start, start+width)` of every unit of `pitch` elements."""

    pitch: int
    start: int
    width: int


@dataclass(frozen=True)
class Other:
    """A write of some other shape (scattered, a few rows): never makes an array safe to place."""


WriteHow = Whole | Part | Other


@dataclass(frozen=True)
class Touch:
    """A read of tensor `tensor`'s array `form`."""

    tensor: str
    form: Form


@dataclass(frozen=True)
class Write:
    """A write of tensor `tensor`'s array `form`, `how` much of it."""

    tensor: str
    form: Form
    how: WriteHow = Whole()


@dataclass(frozen=True)
class Scratch:
    """Scratch a launch asks for: `tag` names it beside the launch, `elem` is its element type. A counter is zero
    before the launch and left zero by it, so it keeps a zeroed buffer of its own, never arena bytes."""

    tag: str
    elem: str
    bytes: int
    counter: bool = False


@dataclass(frozen=True)
class Launch:
    """One launch: its kind (`gemv`, `norm`, ..., or a generic kernel's name), its operands by position (`ins`
    read, `outs` written), its parameters, and what it touches and asks for."""

    kind: str
    ins: tuple[str, ...]
    outs: tuple[str, ...]
    params: dict[str, int | float | str] = field(default_factory=dict, hash=False, compare=False)
    reads: tuple[Touch, ...] = ()
    writes: tuple[Write, ...] = ()
    scratch: tuple[Scratch, ...] = ()
    where: str = ""
    """Where the launch came from (a file and line), for messages."""


@dataclass
class Step:
    """One step of a model: tensors by name (in definition order), launches in order, and the outputs."""

    name: str
    numerics: Numerics
    tensors: dict[str, Tensor]
    launches: list[Launch]
    outputs: frozenset[str] = frozenset()

    def io(self) -> frozenset[str]:
        """The step's inputs and outputs: never placed in the arena."""
        return self.outputs | {t.name for t in self.tensors.values() if t.role is Role.INPUT}


def aligned(n: int, align: int = ALIGN) -> int:
    """`n` rounded up to a multiple of `align`."""
    return -(-n // align) * align


def array_bytes(length: int, form: Form, two_words: bool, align: int = ALIGN) -> int:
    """The bytes of a tensor of `length` elements' array: its 4-byte buffer, or its quantized form (the int8 words,
    the low words under two words, then an f32 scale a block), each part aligned."""
    if form is Form.PLAIN:
        return aligned(length * 4, align)
    return aligned(length, align) * (2 if two_words else 1) + aligned(length // QBLOCK * 4, align)


def weight_array_bytes(length: int, elem: str, align: int = ALIGN) -> int:
    """The bytes of a weight of `length` values of element `elem` as the device holds it: a Q8_0 weight's words and
    then an f32 scale a block (each part aligned), a bf16 weight's two bytes a value, an f32 weight's four."""
    if elem == "i8":
        return array_bytes(length, Form.QUANT, False, align)
    return aligned(length * ELEMENT_BYTES[elem], align)


def quant_parts(offset: int, length: int, two_words: bool, align: int = ALIGN) -> tuple[int, int | None, int]:
    """Where the parts of a quantized array placed at `offset` start: its words, its low words under two words,
    its scales."""
    words = 2 if two_words else 1
    low = offset + aligned(length, align) if two_words else None
    return offset, low, offset + aligned(length, align) * words


def quant_in_place(offset: int, qblock: int = QBLOCK) -> bool:
    """Whether a view starting `offset` elements in reads its tensor's quantized form in place: a whole number of
    blocks."""
    return offset % qblock == 0


def home(step: Step, name: str, form: Form, qblock: int = QBLOCK) -> str:
    """The tensor whose array a touch of `name` lands in: a view's is the tensor it views, through every view, but
    the quantized form of a view that starts inside a block is its own."""
    return home_start(step, name, form, qblock)[0]


def home_start(step: Step, name: str, form: Form, qblock: int = QBLOCK) -> tuple[str, int]:
    """`home(step, name, form)`, and the element of its array that `name`'s element 0 is."""
    at, start = name, 0
    seen = set()
    while (t := step.tensors[at]).view_of is not None:
        if form is Form.QUANT and not quant_in_place(t.view_offset, qblock):
            break
        if at in seen:
            raise ValueError(f"view cycle through '{at}'")
        seen.add(at)
        start += t.view_offset
        at = t.view_of
    return at, start
