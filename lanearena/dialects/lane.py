"""The `lane` dialect: one step of a model as tensors and launches.

A `lane.step` holds the step's tensors (inputs, weights, state kept across steps, computed tensors and views of
them), its launches in order, and its outputs. A launch reads and writes tensors, each through one of its arrays
(`plain` or `quant`); a kernel-kind op (`lane.gemv`, `lane.norm`, ...: `dialects.kinds`) derives how it writes and
which scratch it asks for from its parameters, a generic `lane.launch` spells them out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, StringAttr, SymbolNameConstraint
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsolatedFromAbove, IsTerminator, Pure, ReturnLike, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import (
    ELEMENTS,
    BinaryAttr,
    FormAttr,
    GatesAttr,
    NumericsAttr,
    PartAttr,
    ScalingAttr,
    ScratchAttr,
    TensorType,
    WriteAttr,
    WriteKind,
    form_attrs,
)
from lanearena.dialects.base import (
    IN_STEP,
    TENSOR_FORMAT,
    ComputedDef,
    IsStep,
    LaunchOp,
    OrderedOp,
    TensorDef,
    tensor_def,
    tensor_type,
)
from lanearena.dialects.directives import Name, Reads, Writes
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.dialects.located import located, where
from lanearena.dialects.written import check_written
from lanearena.model import Form, Numerics, Other, Part, Role, Scratch, Whole, WriteHow

__all__ = [
    "ELEMENTS",
    "KERNEL_OPS",
    "LANE",
    "ComputedDef",
    "GenericLaunchOp",
    "InputOp",
    "KernelOp",
    "LaunchOp",
    "OutputOp",
    "StateOp",
    "StepOp",
    "TensorDef",
    "TensorOp",
    "TensorType",
    "ViewOp",
    "WeightOp",
    "tensor_def",
]

# --- The step ----------------------------------------------------------------------------------------------------


class StepNumerics(IsStep):
    """The numerics of a `lane.step`, for the ops in it (`base.step_numerics`)."""

    def numerics(self, op: Operation) -> Numerics:
        assert isinstance(op, StepOp), "only lane.step has this trait"
        return op.step_numerics


@irdl_op_definition
class StepOp(OrderedOp):
    """`lane.step @decode numerics(int8) { ... lane.output %y : ... }`: one step of a model, a symbol, ending with
    its `lane.output` (the terminator)."""

    name = "lane.step"
    sym_name = prop_def(SymbolNameConstraint())
    numerics = prop_def(NumericsAttr)
    body = region_def("single_block")
    assembly_format = "$sym_name `numerics` `(` $numerics `)` attr-dict-with-keyword $body"
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), StepNumerics())

    def __init__(self, name: str, numerics: str, body: Region):
        super().__init__(
            properties={"sym_name": StringAttr(name), "numerics": NumericsAttr(Numerics(numerics))}, regions=[body]
        )

    @property
    def step_numerics(self) -> Numerics:
        return self.numerics.data

    def verify_(self) -> None:
        step = f"lane.step @{self.sym_name.data}"
        block = self.body.block
        if block.args:
            raise VerifyException(f"{step}: its body takes no arguments; tensors are defined by lane ops")
        self._verify_unique_symbol()
        names: dict[str, TensorDef] = {}
        defined: set[SSAValue] = set()
        for op in block.ops:
            # A launch of a kind defined outside lanearena is an op of its own dialect.
            if not (isinstance(op, LaunchOp) or op.dialect_name() in ("lane", "arena")) or isinstance(op, StepOp):
                raise located(op, f"{step} holds lane and arena ops and launches only, not {op.name}")
            for v in op.operands:
                if v not in defined:
                    raise located(op, f"{op.name} uses a tensor that no op before it in {step} defines")
            defined.update(op.results)
            if isinstance(op, TensorDef):
                if op.tensor_name in names:
                    raise located(op, f"{step}: tensor '{op.tensor_name}' defined twice")
                names[op.tensor_name] = op
        check_written(step, block)

    def _verify_unique_symbol(self) -> None:
        """No step before this one in its block has its name: the second of two is the one at fault, at its location
        (the symbol table's own check, run after the steps verify, names no line)."""
        parent = self.parent
        if parent is None:
            return
        for other in parent.ops:
            if other is self:
                return
            if isinstance(other, StepOp) and other.sym_name == self.sym_name:
                first = where(other).rstrip(": ") or "an earlier op"
                raise VerifyException(f"lane.step @{self.sym_name.data} is defined twice, first at {first}")


# --- The step's end ----------------------------------------------------------------------------------------------


@irdl_op_definition
class OutputOp(OrderedOp):
    """`lane.output %q : !lane.tensor<...>`: the step's terminator, with the tensors it hands back (never placed)."""

    name = "lane.output"
    values = var_operand_def(TensorType)
    assembly_format = "($values^ `:` type($values))? attr-dict"
    traits = traits_def(IsTerminator(), ReturnLike(), IN_STEP)

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        for v in self.values:
            owner = v.owner
            if not isinstance(owner, TensorDef):
                raise VerifyException("lane.output hands back a value that no lane tensor op defines")
            if owner.viewed is not None:
                raise VerifyException(
                    f"lane.output '{owner.tensor_name}': a view is no output: output the tensor it views, "
                    f"'{tensor_def(owner.viewed).tensor_name}'"  # the view verified first: it comes before
                )


# --- Tensors -----------------------------------------------------------------------------------------------------


class _GivenDef(TensorDef):
    """A tensor the step is given: `lane.input "x" : !lane.tensor<2048xf32>`."""

    assembly_format = TENSOR_FORMAT.format("")

    def __init__(self, tensor: str, type: TensorType):
        super().__init__(result_types=[type], properties={"tensor": StringAttr(tensor)})


@irdl_op_definition
class InputOp(_GivenDef):
    """`%x = lane.input "x" : !lane.tensor<2048xf32>`: a tensor the step is given; never placed."""

    name = "lane.input"
    ROLE: ClassVar[Role] = Role.INPUT


@irdl_op_definition
class WeightOp(_GivenDef):
    """`%w = lane.weight "wq" : !lane.tensor<4096x2048xi8>`: a weight (i8: Q8_0, a scale a block of the last
    dimension); never placed, never written."""

    name = "lane.weight"
    ROLE: ClassVar[Role] = Role.WEIGHT


@irdl_op_definition
class StateOp(_GivenDef):
    """`%kc = lane.state "k_cache" : !lane.tensor<...>`: memory kept across steps (a key/value cache); the step
    reads and writes it, and it is never placed."""

    name = "lane.state"
    ROLE: ClassVar[Role] = Role.STATE


@irdl_op_definition
class TensorOp(ComputedDef):
    """`%h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>`: a tensor the step computes, with the
    arrays it is allocated in (plain by default). Once placed, its arrays live in the arena (`arena.tensor`) or keep
    buffers of their own (`own(plain = output)`)."""

    name = "lane.tensor"
    assembly_format = TENSOR_FORMAT.format("custom<Forms>($forms)")
    traits = traits_def(Pure(), IN_STEP)

    def __init__(self, tensor: str, type: TensorType, forms: Sequence[str] = (Form.PLAIN.value,)):
        super().__init__(result_types=[type], properties={"tensor": StringAttr(tensor), "forms": form_attrs(forms)})


@irdl_op_definition
class ViewOp(ComputedDef):
    """`%qk = lane.view "qk" %q[2048] : !lane.tensor<1024xf32>`: an alias of `%q` starting 2048 elements in. A touch
    of the view is a touch of the tensor it views, but for a quantized touch of a view that starts inside a block."""

    name = "lane.view"
    source = operand_def(TensorType)
    offset = prop_def(IntegerAttr[I64])
    assembly_format = TENSOR_FORMAT.format(
        "custom<Tensor>($source, type($source)) `[` $offset `]` custom<Forms>($forms)"
    )
    traits = traits_def(Pure(), IN_STEP)

    def __init__(
        self, tensor: str, source: SSAValue, offset: int, type: TensorType, forms: Sequence[str] = (Form.PLAIN.value,)
    ):
        super().__init__(
            operands=[source],
            result_types=[type],
            properties={"tensor": StringAttr(tensor), "offset": IntegerAttr(offset, 64), "forms": form_attrs(forms)},
        )

    @property
    def viewed(self) -> SSAValue:
        return self.source

    @property
    def view_offset(self) -> int:
        return self.offset.value.data

    def verify_(self) -> None:
        super().verify_()
        src = self.source.owner
        if not isinstance(src, ComputedDef):
            raise VerifyException(f"lane.view '{self.tensor_name}': only a computed tensor or a view can be viewed")
        t, viewed = self.result.type, tensor_type(self.source)
        if t.element != viewed.element:
            raise VerifyException(f"lane.view '{self.tensor_name}': element type differs from the viewed tensor's")
        off, n, total = self.view_offset, t.length, viewed.length
        if off < 0 or off + n > total:
            raise VerifyException(
                f"lane.view '{self.tensor_name}': elements [{off}, {off + n}) lie outside the {total} elements of "
                f"'{src.tensor_name}'"
            )


# --- The generic launch ------------------------------------------------------------------------------------------


@irdl_op_definition
class GenericLaunchOp(LaunchOp):
    """`lane.launch "kernel"(%a, %b(quant)) -> (%c whole, %d(plain) part<64, 0, 32>, %e other) asks [..]`: a launch
    of a kernel outside the library, with its writes and the scratch it asks for spelled out."""

    name = "lane.launch"
    ins = var_operand_def(TensorType)
    outs = var_operand_def(TensorType)
    kernel = prop_def(StringAttr)
    in_forms = prop_def(ArrayAttr[FormAttr])
    out_forms = prop_def(ArrayAttr[ArrayAttr[FormAttr]])
    out_how = prop_def(ArrayAttr[PartAttr | WriteAttr])
    asks = prop_def(ArrayAttr[ScratchAttr], default_value=ArrayAttr(()))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (Name, Reads, Writes)
    assembly_format = (
        "custom<Name>($kernel) custom<Reads>($ins, type($ins), $in_forms) `->` "
        "custom<Writes>($outs, type($outs), $out_forms, $out_how) (`asks` $asks^)? "
        "(`scratch` `(` $buffers^ `)`)? attr-dict"
    )

    def __init__(
        self,
        kernel: str,
        ins: Sequence[tuple[SSAValue, Form]],
        outs: Sequence[tuple[SSAValue, Sequence[Form], Attribute]],
        asks: Sequence[ScratchAttr] = (),
        buffers: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[[v for v, _ in ins], [v for v, _, _ in outs], list(buffers)],
            properties={
                "kernel": StringAttr(kernel),
                "in_forms": ArrayAttr(FormAttr(f) for _, f in ins),
                "out_forms": ArrayAttr(form_attrs([f.value for f in fs]) for _, fs, _ in outs),
                "out_how": ArrayAttr(h for _, _, h in outs),
                "asks": ArrayAttr(asks),
            },
        )

    @property
    def kind(self) -> str:
        return self.kernel.data

    def reads(self) -> list[tuple[SSAValue, Form]]:
        return list(dict.fromkeys((v, f.data) for v, f in zip(self.ins, self.in_forms.data, strict=True)))

    def writes(self) -> list[tuple[SSAValue, Form, WriteHow]]:
        return [
            (v, f.data, _how(how))
            for v, forms, how in zip(self.outs, self.out_forms.data, self.out_how.data, strict=True)
            for f in forms.data
        ]

    def written_operands(self) -> list[tuple[SSAValue, tuple[Form, ...]]]:
        return [(v, tuple(f.data for f in fs.data)) for v, fs in zip(self.outs, self.out_forms.data, strict=True)]

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return [Scratch(s.tag.data, s.elem.data, s.bytes.data, bool(s.counter.data)) for s in self.asks.data]

    def verify_(self) -> None:
        if not self.kernel.data:
            raise VerifyException("lane.launch: the kernel needs a name")
        if len(self.in_forms.data) != len(self.ins) or len(self.out_forms.data) != len(self.outs):
            raise VerifyException(f'lane.launch "{self.kernel.data}": one form list per operand')
        if len(self.out_how.data) != len(self.outs):
            raise VerifyException(f'lane.launch "{self.kernel.data}": one write kind per written operand')
        super().verify_()
        for v, how in zip(self.outs, self.out_how.data, strict=True):
            n = tensor_type(v).length
            if isinstance(how, PartAttr) and n % how.pitch.data:
                raise VerifyException(
                    f"lane.launch \"{self.kernel.data}\" writes '{tensor_def(v).tensor_name}' in parts of every "
                    f"{how.pitch.data} values, which do not divide its {n} into units"
                )
        tags = [s.tag.data for s in self.asks.data]
        if len(set(tags)) != len(tags):
            raise VerifyException(f'lane.launch "{self.kernel.data}": scratch tags must be distinct')


def _how(attr: Attribute) -> WriteHow:
    if isinstance(attr, PartAttr):
        return Part(attr.pitch.data, attr.start.data, attr.width.data)
    assert isinstance(attr, WriteAttr)  # IRDL constrains it to a part or a write kind
    return Whole() if attr.data is WriteKind.WHOLE else Other()


LANE = Dialect(
    "lane",
    [StepOp, InputOp, WeightOp, StateOp, TensorOp, ViewOp, OutputOp, GenericLaunchOp, *KERNEL_OPS.values()],
    [TensorType, PartAttr, ScratchAttr, NumericsAttr, FormAttr, WriteAttr, BinaryAttr, ScalingAttr, GatesAttr],
)
