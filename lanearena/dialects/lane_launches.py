"""The `lane` dialect's launch ops: a kernel op for each kind of `lanearena.kinds`, whose writes and scratch follow
from its parameters, and the generic `lane.launch`, which spells them out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    ParametrizedAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from lanearena import kinds
from lanearena.dialects.attrs import BufferType, FormAttr, WriteAttr, WriteKind
from lanearena.dialects.kernel_shapes import _SHAPES
from lanearena.dialects.lane_tensors import (
    InputOp,
    TensorDef,
    TensorType,
    WeightOp,
    _length,
    step_numerics,
    tensor_def,
    tensor_type,
    verify_in_step,
)
from lanearena.dialects.located import located, located_op, source_location
from lanearena.dialects.syntax import (
    FORMS,
    form_attrs,
    param_attr,
    param_value,
    parse_optional_forms,
    parse_optional_value,
    parse_params,
    parse_str,
    parse_touch_list,
    parse_value,
    print_params,
    print_touch_list,
)
from lanearena.kinds import PART_PARAMS
from lanearena.model import Form, Numerics

# --- Launches ----------------------------------------------------------------------------------------------------


@irdl_attr_definition
class PartAttr(ParametrizedAttribute):
    """`#lane.part<pitch, start, width>`: a write of `[start, start+width)` of every unit of `pitch` elements."""

    name = "lane.part"
    pitch: IntAttr
    start: IntAttr
    width: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        at = parser.pos
        with parser.in_angle_brackets():
            vals = [parser.parse_integer(allow_boolean=False)]
            for _ in range(2):
                parser.parse_punctuation(",")
                vals.append(parser.parse_integer(allow_boolean=False))
        if problem := _part_problem(*vals):
            parser.raise_error(problem, at, parser.pos)
        return [IntAttr(v) for v in vals]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pitch.data}, {self.start.data}, {self.width.data}>")

    def verify(self) -> None:
        if problem := _part_problem(self.pitch.data, self.start.data, self.width.data):
            raise VerifyException(problem)


def _part_problem(pitch: int, start: int, width: int) -> str | None:
    """What is wrong with a write of `[start, start+width)` of every unit of `pitch`, if anything."""
    if pitch <= 0 or width <= 0 or start < 0 or start + width > pitch:
        return f"a part [{start}, {start + width}) of every {pitch} must lie inside the unit and be non-empty"
    return None


class LaunchOp(IRDLOperation):
    """A launch: operands read (`ins`) and written (`outs`), each with the forms it touches; once placed, the
    scratch and counters it asks for (`buffers`, written `scratch(%fp, %fq)`)."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    ins = var_operand_def(TensorType)
    outs = var_operand_def(TensorType)
    buffers = var_operand_def(BufferType())
    in_forms = prop_def(ArrayAttr[FormAttr])
    out_forms = prop_def(ArrayAttr[ArrayAttr[FormAttr]])

    def reads(self) -> list[tuple[SSAValue, str]]:
        return [(v, f.data.value) for v, f in zip(self.ins, self.in_forms.data, strict=True)]

    def writes(self) -> list[tuple[SSAValue, tuple[str, ...]]]:
        return [(v, tuple(f.data.value for f in fs.data)) for v, fs in zip(self.outs, self.out_forms.data, strict=True)]

    def with_buffers(self, buffers: Sequence[SSAValue]) -> LaunchOp:
        """This launch, taking `buffers` as its scratch and counters (a new op: the operands are fixed)."""
        op = self.clone_without_regions()
        op.location = self.location
        op.operands = [*self.ins, *self.outs, *buffers]
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(
            i32, [len(self.ins), len(self.outs), len(buffers)]
        )
        return op

    def _print_buffers(self, printer: Printer) -> None:
        if self.buffers:
            printer.print_string(" scratch(")
            printer.print_list(self.buffers, printer.print_operand)
            printer.print_string(")")

    def verify_(self) -> None:
        try:
            self._verify_launch()
        except VerifyException as e:
            raise VerifyException(self._naming_its_tensors(str(e))) from e

    def _verify_launch(self) -> None:
        raise NotImplementedError

    def _naming_its_tensors(self, message: str) -> str:
        """`message`, followed by the tensors the launch writes where it names none of the launch's tensors (a
        parameter that does not fit, say), so that every message names the op and a tensor."""
        names = [v.owner.tensor_name for v in (*self.outs, *self.ins) if isinstance(v.owner, TensorDef)]
        written = [v.owner.tensor_name for v in self.outs if isinstance(v.owner, TensorDef)]
        if not written or any(f"'{n}'" in message for n in names):
            return message
        quoted = ", ".join(f"'{n}'" for n in dict.fromkeys(written))
        return f"{message} (in the launch writing {quoted})"

    def _verify_touches(self) -> None:
        verify_in_step(self)
        if len(self.in_forms.data) != len(self.ins) or len(self.out_forms.data) != len(self.outs):
            raise VerifyException(f"{self.name}: one form list per operand")
        for v, form in self.reads():
            _check_form(self, v, (form,), "reads")
        for v, forms in self.writes():
            _check_form(self, v, forms, "writes")
            owner = v.owner
            if isinstance(owner, (InputOp, WeightOp)):
                raise VerifyException(
                    f"{self.name} writes {owner.ROLE} '{owner.tensor_name}': only the step's "
                    "computed tensors and state are written"
                )


def _check_form(op: IRDLOperation, v: SSAValue, forms: Sequence[str], what: str) -> None:
    owner = v.owner
    if not isinstance(owner, TensorDef):
        raise VerifyException(f"{op.name} {what} a value that no lane tensor op defines")
    if not forms or len(set(forms)) != len(forms):
        raise VerifyException(
            f"{op.name} {what} '{owner.tensor_name}' in forms ({', '.join(forms)}): name each form once"
        )
    for f in forms:
        if f not in FORMS:
            raise VerifyException(f"{op.name}: unknown form '{f}'")
        if f == Form.QUANT.value and step_numerics(op) is Numerics.F32:
            raise VerifyException(
                f"{op.name} {what} the quant form of '{owner.tensor_name}' under f32 numerics (only int8 and "
                "int8x2 quantize)"
            )
        if f not in owner.forms:
            raise VerifyException(
                f"{op.name} {what} the {f} form of '{owner.tensor_name}', which is not allocated in it "
                f"(its forms are ({', '.join(owner.forms)}))"
            )


class KernelOp(LaunchOp):
    """A launch of one of the kernel kinds of `lanearena.kinds`: `lane.<kind> ins -> outs params`. Its writes and
    scratch follow from its kind and parameters."""

    KIND: ClassVar[kinds.Kind]
    params = prop_def(DictionaryAttr)

    def __init__(
        self,
        ins: Sequence[tuple[SSAValue, str]],
        outs: Sequence[tuple[SSAValue, Sequence[str]]],
        params: dict[str, int | float | str] | None = None,
        buffers: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[[v for v, _ in ins], [v for v, _ in outs], list(buffers)],
            properties={
                "in_forms": form_attrs(f for _, f in ins),
                "out_forms": ArrayAttr(form_attrs(fs) for _, fs in outs),
                "params": DictionaryAttr({k: param_attr(v) for k, v in (params or {}).items()}),
            },
        )

    def param_values(self) -> dict[str, int | float | str]:
        return {k: param_value(v) for k, v in self.params.data.items()}

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        ins = parse_touch_list(parser)
        parser.parse_punctuation("->")
        outs = parse_touch_list(parser)
        params = parse_params(parser, tuple(cls.KIND.params) + PART_PARAMS)
        if any(len(forms) != 1 for _, forms in ins):
            parser.raise_error(f"{cls.name}: each read operand names one form")
        buffers = parse_buffers(parser)
        return located(cls([(v, fs[0]) for v, fs in ins], outs, params, buffers), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_touch_list(printer, ((v, (f,)) for v, f in self.reads()))
        printer.print_string(" -> ")
        print_touch_list(printer, self.writes())
        print_params(printer, self.param_values())
        self._print_buffers(printer)

    def _verify_launch(self) -> None:
        k = self.KIND
        self._verify_touches()
        if len(self.ins) != len(k.ins) or len(self.outs) != len(k.outs):
            raise VerifyException(
                f"{self.name} takes ({', '.join(k.ins)}) -> ({', '.join(k.outs)}), not {len(self.ins)} -> "
                f"{len(self.outs)} operands"
            )
        for operand, v in zip(k.ins, self.ins, strict=True):  # their lengths are checked just above
            is_weight = isinstance(v.owner, WeightOp)
            if (operand in k.weights) != is_weight:
                must = "must" if operand in k.weights else "must not"
                raise VerifyException(f"{self.name}: operand '{operand}' {must} be a lane.weight")
        params = self._verified_params()
        tensors = {name: tensor_def(v) for name, v in zip((*k.ins, *k.outs), (*self.ins, *self.outs), strict=True)}
        self._verify_forms_taken(tensors)
        self._verify_elements(tensors)
        _SHAPES[k.name](self, tensors, params)

    def _verified_params(self) -> dict[str, int | float | str]:
        """The parameters, checked against the kind's: known, required ones given, numbers where numbers are due
        (whole and positive where the kind needs a count), and a part given whole."""
        k = self.KIND
        for name, attr in self.params.data.items():
            if not (isinstance(attr, (FloatAttr, StringAttr)) or (isinstance(attr, IntegerAttr) and attr.type == i64)):
                raise VerifyException(
                    f"{self.name}: parameter '{name}' is {attr}, not an integer (i64), a float or a string"
                )
        params = self.param_values()
        for name in params:
            if name not in k.params and name not in PART_PARAMS:
                raise VerifyException(f"{self.name}: unknown parameter '{name}'")
        for name, default in k.params.items():
            if default is None and name not in params:
                raise VerifyException(f"{self.name}: parameter '{name}' is required")
        for name, value in params.items():
            default = k.params.get(name, 0)
            if default is None and (not isinstance(value, int) or value <= 0):  # a count: heads, experts, ...
                raise VerifyException(f"{self.name}: parameter '{name}' must be a positive integer, not {value!r}")
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                if not isinstance(value, (int, float)) or (isinstance(default, int) and not isinstance(value, int)):
                    raise VerifyException(f"{self.name}: parameter '{name}' must be a number like {default!r}")
                if name != "start" and value <= 0:
                    raise VerifyException(f"{self.name}: parameter '{name}' must be positive, not {value}")
        given = [n for n in PART_PARAMS if n in params]
        if given and len(given) != len(PART_PARAMS):
            raise VerifyException(f"{self.name}: a part write takes pitch, start and width together")
        part = kinds.part_of(params)
        if part is not None and not k.parts:
            raise VerifyException(
                f"{self.name}: only {', '.join(f'lane.{n}' for n, kk in kinds.KINDS.items() if kk.parts)} writes a "
                "part of its output (pitch, start, width)"
            )
        if part is not None and (problem := _part_problem(part.pitch, part.start, part.width)):
            raise VerifyException(f"{self.name}: {problem}")
        if k.name == "binary" and params.get("op", k.params["op"]) not in kinds.BINARY_OPS:
            raise VerifyException(f"lane.binary: op must be one of {', '.join(kinds.BINARY_OPS)}")
        return params

    def _verify_forms_taken(self, tensors: dict[str, TensorDef]) -> None:
        """Only the operands the kind's kernels take quantized are touched in the quant form; a quantize writes
        the quant form alone."""
        k = self.KIND
        may = k.quant
        for operand, (v, form) in zip(k.ins, self.reads(), strict=True):  # checked by _verify_launch first
            if form == Form.QUANT.value and operand not in may:
                raise VerifyException(
                    f"{self.name} reads '{tensor_def(v).tensor_name}' (its '{operand}') quantized, but its kernels "
                    f"take '{operand}' in the plain form"
                )
        for operand, (v, forms) in zip(k.outs, self.writes(), strict=True):
            if Form.QUANT.value in forms and operand not in may:
                raise VerifyException(
                    f"{self.name} writes '{tensor_def(v).tensor_name}' (its '{operand}') quantized, but its kernels "
                    f"write '{operand}' in the plain form"
                )
        if k.name == "quantize" and self.writes()[0][1] != (Form.QUANT.value,):
            raise VerifyException(
                f"lane.quantize writes the quant form of '{tensors['out'].tensor_name}' alone, not "
                f"({', '.join(self.writes()[0][1])})"
            )

    def _verify_elements(self, tensors: dict[str, TensorDef]) -> None:
        """Positions, ids and tokens are i32; a weight is f32 or Q8_0 (i8), but a gain or router f32; every other
        operand is f32."""
        i32s = self.KIND.ints
        for operand, t in tensors.items():
            elem = t.result.type.elem
            if operand in self.KIND.weights:
                want = ("f32",) if operand in self.KIND.f32_weights else ("f32", "i8")
            else:
                want = ("i32",) if operand in i32s else ("f32",)
            if elem not in want:
                raise VerifyException(
                    f"{self.name}: '{t.tensor_name}' (its '{operand}') is {elem}, but the kernels take "
                    f"{' or '.join(want)}"
                )


# One op a kernel kind. A new kind of `kinds.KINDS` is one more class like these, and its name in `KERNEL_OPS`.


@located_op
@irdl_op_definition
class GatherOp(KernelOp):
    """`lane.gather %table, %ids -> %out`: the rows of `table` that `ids` name."""

    name = "lane.gather"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["gather"]


@located_op
@irdl_op_definition
class NormOp(KernelOp):
    """`lane.norm %x, %gain -> %out(plain, quant) eps(1.0e-06)`: RMS norm of each row, times `gain`."""

    name = "lane.norm"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["norm"]


@located_op
@irdl_op_definition
class QuantizeOp(KernelOp):
    """`lane.quantize %x -> %out(quant)`: the quantized form of `x`."""

    name = "lane.quantize"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["quantize"]


@located_op
@irdl_op_definition
class GemvOp(KernelOp):
    """`lane.gemv %x(quant), %w -> %out split(4)`: `x` times `w` transposed, cut along k in `split`."""

    name = "lane.gemv"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["gemv"]


@located_op
@irdl_op_definition
class GluOp(KernelOp):
    """`lane.glu %x, %w_gate, %w_up -> %out`: the gated pair silu(x w_gate) * (x w_up)."""

    name = "lane.glu"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["glu"]


@located_op
@irdl_op_definition
class RopeOp(KernelOp):
    """`lane.rope %pos -> %x heads(16)`: rotates `x` in place by the positions `pos`."""

    name = "lane.rope"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["rope"]


@located_op
@irdl_op_definition
class KvStoreOp(KernelOp):
    """`lane.kv_store %k, %v, %pos -> %k_cache, %v_cache`: the new rows into the caches."""

    name = "lane.kv_store"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["kv_store"]


@located_op
@irdl_op_definition
class AttentionOp(KernelOp):
    """`lane.attention %q, %k_cache, %v_cache, %pos -> %out heads(16) kv_heads(8)`."""

    name = "lane.attention"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["attention"]


@located_op
@irdl_op_definition
class MoeOp(KernelOp):
    """`lane.moe %x, %w_router, %w_gate, %w_up, %w_down -> %out experts(8) topk(2)`: routed experts."""

    name = "lane.moe"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["moe"]


@located_op
@irdl_op_definition
class BinaryOp(KernelOp):
    """`lane.binary %a, %b -> %out op("add")`: an element-wise op."""

    name = "lane.binary"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["binary"]


@located_op
@irdl_op_definition
class ArgmaxOp(KernelOp):
    """`lane.argmax %logits -> %out`: each row's index of its largest value."""

    name = "lane.argmax"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["argmax"]


@located_op
@irdl_op_definition
class GemmTcOp(KernelOp):
    """`lane.gemm_tc %x(quant), %w -> %out split(2) whole(3)`: a projection in the tensor-core tiles, its last wave
    cut along k."""

    name = "lane.gemm_tc"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["gemm_tc"]


@located_op
@irdl_op_definition
class GluTcOp(KernelOp):
    """`lane.glu_tc %x, %w_gate, %w_up -> %out split(2)`: the gated pair in the tensor-core tiles."""

    name = "lane.glu_tc"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["glu_tc"]


@located_op
@irdl_op_definition
class AttentionSharedOp(KernelOp):
    """`lane.attention_shared %q, %k_cache, %v_cache, %pos -> %out heads(16) kv_heads(8) splits(4)`: every head of
    a group in one block."""

    name = "lane.attention_shared"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["attention_shared"]


@located_op
@irdl_op_definition
class AttentionI8x2Op(KernelOp):
    """`lane.attention_i8x2 %q, %k_cache, %v_cache, %pos -> %out heads(16) kv_heads(8)`: attention over the cache in
    two words."""

    name = "lane.attention_i8x2"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["attention_i8x2"]


@located_op
@irdl_op_definition
class MoeSharedOp(KernelOp):
    """`lane.moe_shared %x, %w_router, %w_gate, %w_up, %w_down, %w_shared_gate, %w_shared_up, %w_shared_down,
    %w_shared_router -> %out experts(8) topk(2)`: routed experts and a shared one."""

    name = "lane.moe_shared"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["moe_shared"]


@located_op
@irdl_op_definition
class ConvOp(KernelOp):
    """`lane.conv %x, %w -> %state, %out`: the causal convolution, its window state updated in place."""

    name = "lane.conv"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["conv"]


@located_op
@irdl_op_definition
class DeltaOp(KernelOp):
    """`lane.delta %qkv, %z, %ab, %a_log, %dt_bias, %gain -> %state, %out key_heads(16)`: the gated delta rule."""

    name = "lane.delta"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["delta"]


@located_op
@irdl_op_definition
class GatherNormOp(KernelOp):
    """`lane.gather_norm %table, %ids, %gain -> %x, %out(plain, quant)`: rows gathered and normed in one launch."""

    name = "lane.gather_norm"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["gather_norm"]


@located_op
@irdl_op_definition
class GemvRopeOp(KernelOp):
    """`lane.gemv_rope %x, %w, %pos -> %out heads(16) kv_heads(8)`: a projection whose heads are turned as they
    finish."""

    name = "lane.gemv_rope"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["gemv_rope"]


@located_op
@irdl_op_definition
class GemvNormOp(KernelOp):
    """`lane.gemv_norm %x, %w, %gain -> %out, %normed(plain, quant)`: a projection whose last block norms the result."""

    name = "lane.gemv_norm"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["gemv_norm"]


@located_op
@irdl_op_definition
class MoeAddOp(KernelOp):
    """`lane.moe_add %x, %w_router, %w_gate, %w_up, %w_down, %residual -> %out experts(8) topk(2)`: a mixture added
    to the residual."""

    name = "lane.moe_add"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["moe_add"]


@located_op
@irdl_op_definition
class MoeAddNormOp(KernelOp):
    """`lane.moe_add_norm %x, %w_router, %w_gate, %w_up, %w_down, %residual, %gain -> %out, %normed experts(8)
    topk(2)`: a mixture added to the residual, then normed."""

    name = "lane.moe_add_norm"
    KIND: ClassVar[kinds.Kind] = kinds.KINDS["moe_add_norm"]


KERNEL_OPS: dict[str, type[KernelOp]] = {
    op.KIND.name: op
    for op in (
        GatherOp,
        NormOp,
        QuantizeOp,
        GemvOp,
        GluOp,
        GemmTcOp,
        GluTcOp,
        RopeOp,
        KvStoreOp,
        AttentionOp,
        AttentionSharedOp,
        AttentionI8x2Op,
        MoeOp,
        MoeSharedOp,
        BinaryOp,
        ArgmaxOp,
        ConvOp,
        DeltaOp,
        GatherNormOp,
        GemvRopeOp,
        GemvNormOp,
        MoeAddOp,
        MoeAddNormOp,
    )
}
"""The kernel op of each kind, by kind name."""


@irdl_attr_definition
class ScratchAttr(ParametrizedAttribute):
    """`#lane.scratch<"fp", f32, 1024>` or `#lane.scratch<"fq", counter, 16>`: scratch a generic launch asks for."""

    name = "lane.scratch"
    tag: StringAttr
    elem: StringAttr
    bytes: IntAttr
    counter: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        at = parser.pos
        with parser.in_angle_brackets():
            tag = parse_str(parser)
            parser.parse_punctuation(",")
            elem = parser.parse_keyword_in(("f32", "i32", "i8", "counter"))
            parser.parse_punctuation(",")
            nbytes = parser.parse_integer(allow_boolean=False)
        counter = elem == "counter"
        if problem := _scratch_problem(tag, "i32" if counter else elem, nbytes, int(counter)):
            parser.raise_error(problem, at, parser.pos)
        return [StringAttr(tag), StringAttr("i32" if counter else elem), IntAttr(nbytes), IntAttr(int(counter))]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.tag.data)
        printer.print_string(f", {'counter' if self.counter.data else self.elem.data}, {self.bytes.data}>")

    def verify(self) -> None:
        if problem := _scratch_problem(self.tag.data, self.elem.data, self.bytes.data, self.counter.data):
            raise VerifyException(problem)


def _scratch_problem(tag: str, elem: str, nbytes: int, counter: int) -> str | None:
    """What is wrong with scratch `tag` of `nbytes` of `elem` (a counter when `counter` is 1), if anything."""
    if not tag:
        return "scratch needs a tag"
    if nbytes <= 0:
        return f"scratch '{tag}' needs a positive size, not {nbytes}"
    if counter not in (0, 1):
        return f"scratch '{tag}': counter is 0 or 1, not {counter}"
    if elem not in ("i32" if counter else ("f32", "i32", "i8")):
        return f"scratch '{tag}': {'a counter counts in i32' if counter else 'elements are f32, i32 or i8'}, not {elem}"
    return None


@located_op
@irdl_op_definition
class GenericLaunchOp(LaunchOp):
    """`lane.launch "kernel" %a, %b(quant) -> %c whole, %d(plain) part<64, 0, 32>, %e other scratch [..]`: a launch
    of a kernel outside the library, with its writes and scratch spelled out."""

    name = "lane.launch"
    kernel = prop_def(StringAttr)
    out_how = prop_def(ArrayAttr[PartAttr | WriteAttr])
    scratch = prop_def(ArrayAttr[ScratchAttr])

    def __init__(
        self,
        kernel: str,
        ins: Sequence[tuple[SSAValue, str]],
        outs: Sequence[tuple[SSAValue, Sequence[str], Attribute]],
        scratch: Sequence[ScratchAttr] = (),
        buffers: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[[v for v, _ in ins], [v for v, _, _ in outs], list(buffers)],
            properties={
                "kernel": StringAttr(kernel),
                "in_forms": form_attrs(f for _, f in ins),
                "out_forms": ArrayAttr(form_attrs(fs) for _, fs, _ in outs),
                "out_how": ArrayAttr(h for _, _, h in outs),
                "scratch": ArrayAttr(scratch),
            },
        )

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        kernel = parse_str(parser, " as the kernel's name")
        ins = parse_touch_list(parser)
        parser.parse_punctuation("->")
        outs = []
        while True:
            value = parse_optional_value(parser)
            if value is None:
                break
            forms = parse_optional_forms(parser)
            how = parser.parse_keyword_in(("whole", "other", "part"), " (how the launch writes it)")
            outs.append(
                (
                    value,
                    forms,
                    PartAttr.new(PartAttr.parse_parameters(parser)) if how == "part" else WriteAttr(WriteKind(how)),
                )
            )
            if parser.parse_optional_punctuation(",") is None:
                break
        scratch: list[ScratchAttr] = []
        buffers: list[SSAValue] = []
        if parser.parse_optional_keyword("scratch") is not None:
            if parser.parse_optional_punctuation("(") is not None:  # placed, with no declared scratch left
                buffers = parse_buffers(parser, opened=True)
            else:
                attrs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_attribute)
                scratch = [s for s in attrs if isinstance(s, ScratchAttr)]
                if len(scratch) != len(attrs):
                    parser.raise_error("scratch lists #lane.scratch attributes")
                buffers = parse_buffers(parser)
        if any(len(forms) != 1 for _, forms in ins):
            parser.raise_error("lane.launch: each read operand names one form")
        return located(cls(kernel, [(v, fs[0]) for v, fs in ins], outs, scratch, buffers), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.kernel.data)
        printer.print_string(" ")
        print_touch_list(printer, ((v, (f,)) for v, f in self.reads()))
        printer.print_string(" ->")
        # Not strict: an op that fails its verifier (one write kind per operand) is printed in its messages.
        for i, ((v, forms), how) in enumerate(zip(self.writes(), self.out_how.data, strict=False)):
            printer.print_string(", " if i else " ")
            print_touch_list(printer, [(v, forms)])
            if isinstance(how, PartAttr):
                printer.print_string(" part")
                how.print_parameters(printer)
            else:
                printer.print_string(f" {how.data.value}")
        if self.scratch.data:
            printer.print_string(" scratch [")
            printer.print_list(self.scratch.data, printer.print_attribute)
            printer.print_string("]")
        self._print_buffers(printer)

    def _verify_launch(self) -> None:
        if not self.kernel.data:
            raise VerifyException("lane.launch: the kernel needs a name")
        self._verify_touches()
        if len(self.out_how.data) != len(self.outs):
            raise VerifyException(f'lane.launch "{self.kernel.data}": one write kind per written operand')
        for v, how in zip(self.outs, self.out_how.data, strict=True):  # the lengths are checked just above
            if not isinstance(how, (PartAttr, WriteAttr)):
                raise VerifyException(
                    f'lane.launch "{self.kernel.data}": a write is whole, other, or a part<pitch, start, width>'
                )
            n = _length(tensor_type(v))
            if isinstance(how, PartAttr) and n % how.pitch.data:
                raise VerifyException(
                    f"lane.launch \"{self.kernel.data}\" writes '{tensor_def(v).tensor_name}' in parts of every "
                    f"{how.pitch.data} values, which do not divide its {n} into units"
                )
        tags = [s.tag.data for s in self.scratch.data]
        if len(set(tags)) != len(tags):
            raise VerifyException(f'lane.launch "{self.kernel.data}": scratch tags must be distinct')


def parse_buffers(parser: Parser, opened: bool = False) -> list[SSAValue]:
    """`scratch(%fp, %fq)`: a placed launch's scratch and counters (after `scratch(` where `opened`), or nothing."""
    if not opened:
        if parser.parse_optional_keyword("scratch") is None:
            return []
        parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return []
    values = [parse_value(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        values.append(parse_value(parser))
    parser.parse_punctuation(")")
    return values
