"""What the `lane` and `arena` dialect modules share: the step, the tensor and launch base classes, the kernel-op
base that each launch kind subclasses, and the pieces of their declarative formats.

A launch reads and writes tensors, each through one of its arrays (`plain` or `quant`), and asks for scratch.
`LaunchOp` is the one interface the analyses and the lowering read a launch through: `reads()`, `writes()` (with how
each array is written) and `scratch(numerics)`. A launch kind is one subclass of `KernelOp`: its operands by name,
its parameters as typed properties with defaults, its shape checks in `verify_` and its scratch in `scratch`
(`docs/adding-a-kind.md`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
    f64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    ReturnLike,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import (
    PLAIN,
    BufferType,
    FormAttr,
    NumericsAttr,
    PartAttr,
    Reason,
    ReasonAttr,
    TensorType,
    form_attrs,
)
from lanearena.dialects.directives import Forms, Name, Own, Read, Tensor, Written
from lanearena.dialects.located import where
from lanearena.model import QBLOCK, Form, Numerics, Other, Part, Scratch, Whole, WriteHow

# --- The step ----------------------------------------------------------------------------------------------------


class OrderedOp(IRDLOperation):
    """An op of `lane` or `arena`, whose properties are kept in the order its class defines them (a declarative
    format parses them in its own order, and fills in defaults last), so that the generic form prints one text
    whichever way the op was made."""

    def __post_init__(self):
        super().__post_init__()
        self.order_properties()

    def order_properties(self) -> None:
        defined = type(self).get_irdl_definition().properties
        ordered = {name: self.properties[name] for name in defined if name in self.properties}
        self.properties = ordered | self.properties


@irdl_op_definition
class StepOp(OrderedOp):
    """`lane.step @decode numerics(int8) { ... lane.output %y : ... }`: one step of a model, a symbol, ending with
    its `lane.output` (the terminator)."""

    name = "lane.step"
    sym_name = prop_def(SymbolNameConstraint())
    numerics = prop_def(NumericsAttr)
    body = region_def("single_block")
    assembly_format = "$sym_name `numerics` `(` $numerics `)` attr-dict-with-keyword $body"
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

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
        _verify_written(step, self)

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


IN_STEP = HasParent(StepOp)
"""Every `lane` and `arena` op but the step lives directly in a `lane.step`."""


def located(op: Operation, message: str) -> VerifyException:
    """The error `message` about `op`, which a verifier of the op holding it found: it starts with `op`'s location
    where the parser recorded one, so that the driver names the op at fault rather than the one verified."""
    return VerifyException(where(op) + message)


def step_numerics(op: Operation) -> Numerics | None:
    """The numerics of the step `op` is in, where it is in one (an op being built is in none yet)."""
    parent = op.parent_op()
    return parent.step_numerics if isinstance(parent, StepOp) else None


def _verify_written(step: str, op: StepOp) -> None:
    """Every computed tensor the step reads, and every output, is written by some launch of the step (before or
    after the read: a read before the write is legal, it only keeps the array out of the arena). A write through any
    view counts where the elements overlap, in the same form; views are followed whatever their offset, since whether
    a quantized view shares its tensor's array depends on the block size the pass is given."""
    root: dict[SSAValue, tuple[SSAValue, int]] = {}  # a tensor's root tensor, and its first element there
    launches: list[LaunchOp] = []
    for child in op.body.block.ops:
        if isinstance(child, TensorDef):
            source = child.viewed
            base, offset = root.get(source, (source, 0)) if source is not None else (child.result, 0)
            root[child.result] = (base, offset + child.view_offset)
        elif isinstance(child, LaunchOp):
            launches.append(child)

    def span(v: SSAValue) -> tuple[SSAValue, int, int]:
        base, start = root[v]
        return base, start, start + tensor_type(v).length

    written: dict[tuple[SSAValue, Form], list[tuple[int, int]]] = {}
    for launch in launches:
        for v, form, _ in launch.writes():
            base, start, end = span(v)
            written.setdefault((base, form), []).append((start, end))

    def is_written(v: SSAValue, form: Form) -> bool:
        base, start, end = span(v)
        return any(s < end and start < e for s, e in written.get((base, form), ()))

    for launch in launches:
        for v, form in launch.reads():
            if tensor_def(v).computed and not is_written(v, form):
                raise located(
                    launch,
                    f"{launch.name} reads the {form.value} form of '{tensor_def(v).tensor_name}', which no launch of "
                    f"{step} writes: a computed tensor is written by the step (an input is given to it)",
                )
    output = op.body.block.last_op
    if isinstance(output, OutputOp):
        for v in output.values:
            if tensor_def(v).computed and not is_written(v, Form.PLAIN):
                raise located(output, f"lane.output '{tensor_def(v).tensor_name}': no launch of {step} writes it")


# --- Tensors -----------------------------------------------------------------------------------------------------

TENSOR_FORMAT = "custom<Name>($tensor) {} custom<Own>($own_plain, $own_quant) attr-dict `:` type($result)"
"""A tensor op's format around what it says in the middle (`{}`): its name, the arrays kept in buffers of their
own, its type."""


class TensorDef(OrderedOp):
    """An op that defines one tensor of the step, named `tensor`; `own_plain` and `own_quant` say why an array of it
    keeps a buffer of its own (set by `lane-arena-place`)."""

    ROLE: ClassVar[str]
    tensor = prop_def(StringAttr)
    own_plain = opt_prop_def(ReasonAttr)
    own_quant = opt_prop_def(ReasonAttr)
    result = result_def(TensorType)
    traits = traits_def(IN_STEP)
    custom_directives = (Name, Forms, Own, Tensor)

    @property
    def tensor_name(self) -> str:
        return self.tensor.data

    @property
    def forms(self) -> tuple[str, ...]:
        """The arrays the tensor is allocated in."""
        return (Form.PLAIN.value,)

    @property
    def computed(self) -> bool:
        """Whether the step computes the tensor (not an input, weight or state)."""
        return False

    @property
    def viewed(self) -> SSAValue | None:
        """The tensor this one views, for a view."""
        return None

    @property
    def view_offset(self) -> int:
        """The element of the viewed tensor a view starts at (0 for any other tensor)."""
        return 0

    @property
    def own(self) -> dict[Form, Reason]:
        """The tensor's arrays that keep a buffer of their own, outside the arena, and why."""
        out = {}
        for form, attr in ((Form.PLAIN, self.own_plain), (Form.QUANT, self.own_quant)):
            if attr is not None:
                out[form] = attr.data
        return out

    def set_own(self, form: Form, reason: Reason) -> None:
        """Records that array `form` keeps a buffer of its own, for `reason`."""
        self.properties[f"own_{form.value}"] = _REASONS[reason]
        self.order_properties()

    def verify_(self) -> None:
        """What every tensor op checks: a name, i8 elements only for a Q8_0 weight, and reasons for its own buffers
        that fit the tensor."""
        if not self.tensor_name:
            raise VerifyException(f"{self.name}: a tensor needs a name")
        self._verify_own()
        t = self.result.type
        if t.elem == "i8" and self.ROLE != "weight":
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': only a weight is i8 (Q8_0); a {self.ROLE} tensor is f32 or i32"
            )
        if t.elem == "i8" and t.dims[-1] % QBLOCK:
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': a Q8_0 weight keeps a scale a block of {QBLOCK} values of its "
                f"last dimension, which is {t.dims[-1]}"
            )

    def _verify_own(self) -> None:
        role = "view" if self.viewed is not None else self.ROLE
        for form, reason in self.own.items():
            if form.value not in self.forms and reason is not Reason.UNALLOCATED:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}': own({form.value} = {reason.value}), but the tensor is not "
                    f"allocated in that form (that is reason unallocated)"
                )
            if form is Form.QUANT and step_numerics(self) is Numerics.F32:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}' own(quant = ...): no array is quantized under f32 numerics"
                )
            unallocated = reason is Reason.UNALLOCATED and form.value not in self.forms
            if (reason.value in _ROLE_REASONS or role in _ROLE_REASONS) and reason.value != role and not unallocated:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}': own({form.value} = {reason.value}), but the tensor is "
                    f"{role} data"
                )


_REASONS = {r: ReasonAttr(r) for r in Reason}

_ROLE_REASONS = ("input", "weight", "state", "view")
"""The reasons an array keeps a buffer of its own that follow from its tensor alone."""


class ComputedDef(TensorDef):
    """An op that defines a tensor the step computes (`lane.tensor`, `lane.view`, `arena.tensor`), allocated in
    the arrays `forms` (plain by default)."""

    ROLE: ClassVar[str] = "computed"
    forms_ = prop_def(ArrayAttr[FormAttr], prop_name="forms", default_value=form_attrs([Form.PLAIN.value]))

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(f.data.value for f in self.forms_.data)

    @property
    def computed(self) -> bool:
        return True

    def verify_(self) -> None:
        """A computed tensor's checks besides every tensor's: f32 or i32 elements, forms it can be allocated in."""
        if self.result.type.elem == "i8":
            raise VerifyException(f"{self.name} '{self.tensor_name}': a computed tensor is f32 or i32, not i8")
        super().verify_()
        forms = self.forms
        if not forms or len(set(forms)) != len(forms):
            raise VerifyException(f"{self.name} '{self.tensor_name}': forms must be distinct, from plain and quant")
        if Form.QUANT.value not in forms:
            return
        if self.result.type.length % QBLOCK:
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': a quantized form needs a length that is a whole number of "
                f"blocks of {QBLOCK}, not {self.result.type.length}"
            )
        if self.result.type.elem != "f32":
            raise VerifyException(f"{self.name} '{self.tensor_name}': only f32 values have a quantized form")
        if step_numerics(self) is Numerics.F32:
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': a quantized form under f32 numerics (only int8 and int8x2 quantize)"
            )


def tensor_def(value: SSAValue) -> TensorDef:
    """The op that defines `value`, where a verifier has checked that a lane tensor op does (a launch's operands,
    a view's source): for the verifiers that run after that check, and the passes over verified IR."""
    owner = value.owner
    assert isinstance(owner, TensorDef), "a lane tensor op defines this value (verified)"
    return owner


def tensor_type(value: SSAValue) -> TensorType:
    """The type of `value`, an operand IRDL constrains to a tensor (checked before the op's own verifier runs)."""
    t = value.type
    assert isinstance(t, TensorType), "IRDL constrains this operand to !lane.tensor"
    return t


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


# --- Scratch buffers ---------------------------------------------------------------------------------------------


class BufferDef(OrderedOp):
    """A launch's scratch (`arena.scratch`) or counter (`arena.counter`): `tag` names it beside the launch that takes
    it, `bytes` its size; exactly one launch takes it."""

    tag = prop_def(StringAttr)
    nbytes = prop_def(IntegerAttr[I64], prop_name="bytes")
    result = result_def(BufferType())
    traits = traits_def(IN_STEP)
    custom_directives = (Name,)

    def verify_(self) -> None:
        if not self.tag.data:
            raise VerifyException(f"{self.name}: needs a tag")
        if self.nbytes.value.data <= 0:
            raise VerifyException(
                f'{self.name} "{self.tag.data}": bytes must be positive, not {self.nbytes.value.data}'
            )
        users = [u.operation for u in self.result.uses]
        if len(users) != 1 or not isinstance(users[0], LaunchOp):
            raise VerifyException(
                f'{self.name} "{self.tag.data}": taken by {len(users)} ops, but a scratch or counter buffer is one '
                "launch's"
            )


# --- Launches ----------------------------------------------------------------------------------------------------


class LaunchEffects(MemoryEffect):
    """A launch reads the arrays of the tensors it reads and writes those it writes (its scratch while it runs):
    so xDSL's generic passes keep every launch, in order, and merge none."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance] | None:
        if not isinstance(op, LaunchOp):
            return None
        effects = {EffectInstance(MemoryEffectKind.READ, v) for v, _ in op.reads()}
        effects |= {EffectInstance(MemoryEffectKind.WRITE, v) for v, _, _ in op.writes()}
        effects |= {EffectInstance(MemoryEffectKind.WRITE, b) for b in op.buffers}
        return effects


class LaunchOp(OrderedOp):
    """A launch: the tensors it reads and writes, each in the forms it touches, and the scratch and counters it asks
    for; once placed, those as operands (`buffers`, written `scratch(%fp, %fq)`)."""

    buffers = var_operand_def(BufferType())
    traits = traits_def(LaunchEffects(), IN_STEP)

    @property
    def kind(self) -> str:
        """The launch's kind (`gemv`), or a generic launch's kernel."""
        raise NotImplementedError

    def reads(self) -> list[tuple[SSAValue, Form]]:
        """The arrays the launch reads: each tensor once a form, in operand order."""
        raise NotImplementedError

    def writes(self) -> list[tuple[SSAValue, Form, WriteHow]]:
        """The arrays the launch writes, and how much of each."""
        raise NotImplementedError

    def written_operands(self) -> list[tuple[SSAValue, tuple[Form, ...]]]:
        """Each operand the launch writes, with the forms it writes it in."""
        raise NotImplementedError

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """The scratch and counters the launch asks for under `numerics` (the seed's `scratch()`)."""
        raise NotImplementedError

    def take_buffers(self, buffers: Sequence[SSAValue]) -> None:
        """Makes `buffers` the scratch and counters the launch takes."""
        self.operands = [*self.operands[: len(self.operands) - len(self.buffers)], *buffers]

    def error(self, message: str) -> VerifyException:
        """The error `message`, followed by the tensors the launch writes where it names none of the launch's
        tensors (a parameter that does not fit, say), so that every message names the op and a tensor."""
        defs = [v.owner for v in self.operands if isinstance(v.owner, TensorDef)]
        written = dict.fromkeys(tensor_def(v).tensor_name for v, _, _ in self.writes() if v.owner in defs)
        if not written or any(f"'{d.tensor_name}'" in message for d in defs):
            return VerifyException(message)
        quoted = ", ".join(f"'{n}'" for n in written)
        return VerifyException(f"{message} (in the launch writing {quoted})")

    def verify_(self) -> None:
        """Every launch's checks: tensors touched in forms they are allocated in, only computed tensors and state
        written, and scratch buffers of distinct tags."""
        for v in self.operands[: len(self.operands) - len(self.buffers)]:
            if not isinstance(v.owner, TensorDef):
                raise self.error(f"{self.name} takes a value that no lane tensor op defines")
        for v, form in self.reads():
            self._check_form(v, (form,), "reads")
        for v, forms in self.written_operands():
            self._check_form(v, forms, "writes")
            owner = tensor_def(v)
            if owner.ROLE in ("input", "weight"):
                raise self.error(
                    f"{self.name} writes {owner.ROLE} '{owner.tensor_name}': only the step's computed tensors and "
                    "state are written"
                )
        owners = [b.owner for b in self.buffers]
        buffers = [o for o in owners if isinstance(o, BufferDef)]
        if len(buffers) != len(owners):
            raise self.error(f"{self.name}: scratch(...) takes arena.scratch and arena.counter values only")
        tags = [b.tag.data for b in buffers]
        if len(set(tags)) != len(tags):
            raise self.error(f"{self.name}: scratch tags taken twice ({', '.join(tags)})")

    def _check_form(self, v: SSAValue, forms: Sequence[Form], what: str) -> None:
        owner = tensor_def(v)
        if forms == (Form.PLAIN,) and not owner.computed:
            return  # every tensor is allocated plain; only a computed tensor may lack it
        if len(set(forms)) != len(forms):
            raise self.error(
                f"{self.name} {what} '{owner.tensor_name}' in forms ({', '.join(f.value for f in forms)}): name "
                "each form once"
            )
        for f in forms:
            if f is Form.QUANT and step_numerics(self) is Numerics.F32:
                raise self.error(
                    f"{self.name} {what} the quant form of '{owner.tensor_name}' under f32 numerics (only int8 and "
                    "int8x2 quantize)"
                )
            if f.value not in owner.forms:
                raise self.error(
                    f"{self.name} {what} the {f.value} form of '{owner.tensor_name}', which is not allocated in it "
                    f"(its forms are ({', '.join(owner.forms)}))"
                )


# --- Kernel ops: one class a launch kind -------------------------------------------------------------------------


def count(default: int | None = None):
    """An integer parameter (i64): positive, or not negative where its default is 0; required without a default."""
    if default is None:
        return prop_def(IntegerAttr[I64])
    return prop_def(IntegerAttr[I64], default_value=IntegerAttr(default, 64))


def real(default: float):
    """A float parameter (f64), positive."""
    return prop_def(FloatAttr[Float64Type], default_value=FloatAttr(default, f64))


def flag():
    """A parameter that is on where it is written (`tc`), off where it is not."""
    return opt_prop_def(UnitAttr)


def read_form():
    """The form a launch reads an operand in (plain by default): only operands its kernels take quantized have one."""
    return prop_def(FormAttr, default_value=PLAIN)


def written_forms(*default: str):
    """The forms a launch writes an operand in (plain by default): only operands its kernels may write quantized."""
    return prop_def(ArrayAttr[FormAttr], default_value=form_attrs(default or (Form.PLAIN.value,)))


def arg(name: str) -> str:
    """`%name`: a tensor operand in a kernel op's format."""
    return f"custom<Tensor>(${name}, type(${name}))"


def arg_read(name: str) -> str:
    """`%name` or `%name(quant)`: an operand read in the form its property `name_form` holds."""
    return f"custom<Read>(${name}, type(${name}), ${name}_form)"


def arg_written(name: str) -> str:
    """`%name` or `%name(plain, quant)`: an operand written in the forms its property `name_forms` holds."""
    return f"custom<Written>(${name}, type(${name}), ${name}_forms)"


def param(name: str) -> str:
    """`name(value)`: a required parameter."""
    return f"`{name}` `(` ${name} `)`"


def option(name: str) -> str:
    """`name(value)`, left out where the value is its default."""
    return f"(`{name}` `(` ${name}^ `)`)?"


def signature(ins: Sequence[str], outs: Sequence[str], *params: str) -> str:
    """A kernel op's format: `ins -> outs params scratch(buffers) {attributes}`."""
    return " ".join(
        [" `,` ".join(ins), "`->`", " `,` ".join(outs), *params, "(`scratch` `(` $buffers^ `)`)? attr-dict"]
    )


Params = Mapping[str, int | float | str]


class KernelOp(LaunchOp):
    """A launch of one of lanearena's kernel kinds, `lane.<kind> ins -> outs params`: its class says all of it.

    Its tensor operands are named fields in the kind's order, read ones then written ones (`WRITES`); an operand the
    kernels may take quantized has a form property (`x_form = read_form()`, `out_forms = written_forms()`); its
    parameters are properties (`split = count(1)`, `eps = real(1e-6)`, `tc = flag()`); `verify_` checks the shapes
    and `scratch` gives the seed's scratch. Its writes are whole, but for `UPDATES` (state it reads and writes in
    place) and where `writes()` says otherwise."""

    WRITES: ClassVar[tuple[str, ...]] = ("out",)
    """The operands it writes; the others it reads."""
    WEIGHTS: ClassVar[tuple[str, ...]] = ()
    """The operands that are weights (f32, or Q8_0 where not in `F32_WEIGHTS`)."""
    F32_WEIGHTS: ClassVar[tuple[str, ...]] = ()
    """The weights its kernels take in f32 only."""
    INTS: ClassVar[tuple[str, ...]] = ()
    """The operands of i32 values (token ids, positions, tokens); every other that is no weight is f32."""
    UPDATES: ClassVar[tuple[str, ...]] = ()
    """The written operands it also reads (state updated in place): their writes are of another kind, never whole."""

    custom_directives = (Tensor, Read, Written)

    # --- What the kind's class says -------------------------------------------------------------------------------

    @classmethod
    @functools.cache
    def operand_names(cls) -> tuple[str, ...]:
        """The tensor operands, in the kind's order (read ones, then written ones)."""
        return tuple(name for name, _ in cls.get_irdl_definition().operands if name != "buffers")

    @classmethod
    @functools.cache
    def ins(cls) -> tuple[str, ...]:
        """The operands it reads, in order."""
        return tuple(n for n in cls.operand_names() if n not in cls.WRITES)

    @classmethod
    @functools.cache
    def _positions(cls) -> dict[str, int]:
        """Each tensor operand's position among the operands (the scratch buffers come after them)."""
        return {name: i for i, name in enumerate(cls.operand_names())}

    @classmethod
    @functools.cache
    def _param_kinds(cls) -> tuple[tuple[str, type[Attribute] | None], ...]:
        """Each parameter property and the attribute class it holds."""
        out = []
        for name, prop in cls.get_irdl_definition().properties.items():
            bases = prop.constr.get_bases() or set()
            if not bases & {FormAttr, ArrayAttr}:
                out.append((name, next(iter(bases)) if len(bases) == 1 else None))
        return tuple(out)

    @classmethod
    def param_names(cls) -> tuple[str, ...]:
        """The parameters' names: its properties but the forms (a part is its `pitch`, `start` and `width`)."""
        return tuple(n for name, base in cls._param_kinds() for n in (PART_PARAMS if base is PartAttr else (name,)))

    @property
    def kind(self) -> str:
        return self.name.split(".", 1)[1]

    def operand(self, name: str) -> SSAValue:
        """The tensor operand `name`."""
        return self.operands[self._positions()[name]]

    def read_form(self, name: str) -> Form:
        attr = self.properties.get(f"{name}_form")
        return attr.data if isinstance(attr, FormAttr) else Form.PLAIN

    def written_forms(self, name: str) -> tuple[Form, ...]:
        attr = self.properties.get(f"{name}_forms")
        return tuple(f.data for f in attr.data) if isinstance(attr, ArrayAttr) else (Form.PLAIN,)

    @property
    def params(self) -> dict[str, int | float | str]:
        """The parameters as plain values, defaults included: integers, floats, an enumeration's keyword, a flag's 0
        or 1, a part's `pitch`, `start` and `width`."""
        out: dict[str, int | float | str] = {}
        for name, base in self._param_kinds():
            attr = self.properties.get(name)
            if isinstance(attr, IntegerAttr):
                out[name] = attr.value.data
            elif isinstance(attr, FloatAttr):
                out[name] = float(attr.value.data)
            elif isinstance(attr, EnumAttribute):
                out[name] = str(attr.data.value)
            elif isinstance(attr, PartAttr):
                out |= {"pitch": attr.pitch.data, "start": attr.start.data, "width": attr.width.data}
            elif base is UnitAttr:
                out[name] = int(attr is not None)
        return out

    @property
    def written_part(self) -> Part | None:
        """The part of every unit of its output it writes, where it writes one."""
        attr = self.properties.get("part")
        return Part(attr.pitch.data, attr.start.data, attr.width.data) if isinstance(attr, PartAttr) else None

    # --- The launch interface -------------------------------------------------------------------------------------

    def reads(self) -> list[tuple[SSAValue, Form]]:
        touched = [(self.operand(n), self.read_form(n)) for n in self.ins()]
        touched += [(self.operand(n), f) for n in self.UPDATES for f in self.written_forms(n)]
        return list(dict.fromkeys(touched))

    def write_how(self, name: str) -> WriteHow:
        """How the launch writes operand `name`: whole, a part of every unit, or some other way (state it updates)."""
        if name in self.UPDATES:
            return Other()
        return self.written_part or Whole()

    def writes(self) -> list[tuple[SSAValue, Form, WriteHow]]:
        return [(self.operand(n), f, self.write_how(n)) for n in self.WRITES for f in self.written_forms(n)]

    def written_operands(self) -> list[tuple[SSAValue, tuple[Form, ...]]]:
        return [(self.operand(n), self.written_forms(n)) for n in self.WRITES]

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return []

    # --- Building one from plain values ---------------------------------------------------------------------------

    @classmethod
    def make(
        cls,
        ins: Sequence[tuple[SSAValue, Form]],
        outs: Sequence[tuple[SSAValue, Sequence[Form]]],
        params: Params,
        buffers: Sequence[SSAValue] = (),
    ) -> KernelOp:
        """A launch of this kind reading `ins` and writing `outs` (in its operand order, each with its forms) with
        `params`; a `ValueError` where they do not fit the kind's operands and parameters."""
        reads, writes = cls.ins(), cls.WRITES
        if len(ins) != len(reads) or len(outs) != len(writes):
            raise ValueError(
                f"{cls.name} takes ({', '.join(reads)}) -> ({', '.join(writes)}), not {len(ins)} -> {len(outs)} "
                "operands"
            )
        properties: dict[str, Attribute] = {}
        defs = cls.get_irdl_definition().properties
        for name, (_, form) in zip(reads, ins, strict=True):
            if f"{name}_form" in defs:
                properties[f"{name}_form"] = FormAttr(form)
            elif form is not Form.PLAIN:
                raise ValueError(f"{cls.name}: its kernels take '{name}' in the plain form, not {form.value}")
        for name, (_, forms) in zip(writes, outs, strict=True):
            if f"{name}_forms" in defs:
                properties[f"{name}_forms"] = form_attrs([f.value for f in forms])
            elif tuple(forms) != (Form.PLAIN,):
                raise ValueError(
                    f"{cls.name}: its kernels write '{name}' in the plain form, not {', '.join(f.value for f in forms)}"
                )
        properties |= cls._param_attrs(params)
        return cls.build(operands=[*(v for v, _ in ins), *(v for v, _ in outs), list(buffers)], properties=properties)

    @classmethod
    def _param_attrs(cls, params: Params) -> dict[str, Attribute]:
        """`params` as the properties that keep them."""
        defs = cls.get_irdl_definition().properties
        out: dict[str, Attribute] = {}
        part = {n: params[n] for n in PART_PARAMS if n in params}
        if part:
            if "part" not in defs:
                raise ValueError(f"{cls.name}: its kernels write whole rows: no pitch, start, width")
            if len(part) != len(PART_PARAMS) or not all(_is_int(v) for v in part.values()):
                raise ValueError(f"{cls.name}: a part write takes integers pitch, start and width together")
            out["part"] = PartAttr(int(part["pitch"]), int(part["start"]), int(part["width"]))
        for name, value in params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise ValueError(f"{cls.name}: parameter '{name}' is an integer, a float or a string, not {value!r}")
            if name in PART_PARAMS:
                continue
            if name not in cls.param_names():
                raise ValueError(f"{cls.name}: unknown parameter '{name}' (takes {', '.join(cls.param_names())})")
            bases = defs[name].constr.get_bases() or set()
            base = next(iter(bases)) if len(bases) == 1 else None
            if base is IntegerAttr and _is_int(value):
                out[name] = IntegerAttr(int(value), 64)
            elif base is FloatAttr and isinstance(value, (int, float)) and not isinstance(value, bool):
                out[name] = FloatAttr(float(value), f64)
            elif base is UnitAttr and value in (0, 1):
                if value:
                    out[name] = UnitAttr()
            elif isinstance(base, type) and issubclass(base, EnumAttribute) and isinstance(value, str):
                enum = base.enum_type
                if value not in {e.value for e in enum}:
                    raise ValueError(f"{cls.name}: {name} must be one of {', '.join(e.value for e in enum)}")
                out[name] = base(enum(value))
            else:
                raise ValueError(f"{cls.name}: parameter '{name}' does not take {value!r}")
        return out

    # --- Verification ---------------------------------------------------------------------------------------------

    def verify_(self) -> None:
        """Every kind's checks: its weights are weights of the element types its kernels take, every other operand
        f32 (i32 where `INTS`), and its parameters in range. A kind's own `verify_` adds its shape checks."""
        super().verify_()
        for (name, must_weigh, want), value in zip(self._operand_rules(), self.operands, strict=False):
            t = tensor_def(value)
            if must_weigh != (t.ROLE == "weight"):
                raise self.error(
                    f"{self.name}: operand '{name}' {'must' if must_weigh else 'must not'} be a lane.weight"
                )
            elem = t.result.type.elem
            if elem not in want:
                raise self.error(
                    f"{self.name}: '{t.tensor_name}' (its '{name}') is {elem}, but the kernels take {' or '.join(want)}"
                )
        for name, floor in self._integer_floors():
            attr = self.properties.get(name)
            if isinstance(attr, IntegerAttr) and attr.value.data < floor:
                raise self.error(
                    f"{self.name}: parameter '{name}' must be {'positive' if floor else 'at least 0'}, not "
                    f"{attr.value.data}"
                )
        for name, base in self._param_kinds():
            attr = self.properties.get(name)
            if base is FloatAttr and isinstance(attr, FloatAttr) and not attr.value.data > 0:
                raise self.error(f"{self.name}: parameter '{name}' must be positive, not {attr.value.data}")

    @classmethod
    @functools.cache
    def _operand_rules(cls) -> tuple[tuple[str, bool, tuple[str, ...]], ...]:
        """Each tensor operand: its name, whether it must be a weight, and the element types its kernels take."""
        rules = []
        for name in cls.operand_names():
            if name in cls.WEIGHTS:
                rules.append((name, True, ("f32",) if name in cls.F32_WEIGHTS else ("f32", "i8")))
            else:
                rules.append((name, False, ("i32",) if name in cls.INTS else ("f32",)))
        return tuple(rules)

    @classmethod
    @functools.cache
    def _integer_floors(cls) -> tuple[tuple[str, int], ...]:
        """Each integer parameter and its least value: 1, or 0 where its default is 0."""
        defs = cls.get_irdl_definition().properties
        return tuple(
            (name, 0 if defs[name].default_value == _ZERO else 1)
            for name, base in cls._param_kinds()
            if base is IntegerAttr
        )

    def tensor(self, name: str) -> TensorDef:
        """The op that defines tensor operand `name` (after the checks that one does)."""
        return tensor_def(self.operand(name))

    def dims(self, name: str) -> tuple[int, ...]:
        return tensor_type(self.operand(name)).dims

    def length(self, name: str) -> int:
        return tensor_type(self.operand(name)).length

    def fail(self, message: str) -> VerifyException:
        """A shape check's error: `lane.<kind>: message`."""
        return self.error(f"{self.name}: {message}")


_ZERO = IntegerAttr(0, 64)

PART_PARAMS = ("pitch", "start", "width")
"""The parameters that make a launch's write a part of every unit of its output."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
