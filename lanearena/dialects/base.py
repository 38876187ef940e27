"""What the `lane` and `arena` dialects' ops stand on: the tensor, scratch-buffer and launch base classes, and the
step they live in, seen through a trait (`IsStep`), so that this module imports no dialect (the step op itself is
`lane.StepOp`).

A launch reads and writes tensors, each through one of its arrays (`plain` or `quant`), and asks for scratch.
`LaunchOp` is the one interface the analyses and the lowering read a launch through: `reads()`, `writes()` (with how
each array is written) and `scratch(numerics)`. A launch kind is one subclass of `kernel.KernelOp`
(`docs/adding-a-kind.md`)."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, opt_prop_def, prop_def, result_def, traits_def, var_operand_def
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, OpTrait
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import BufferType, FormAttr, Reason, ReasonAttr, TensorType, form_attrs
from lanearena.dialects.directives import Forms, Name, Own, Tensor
from lanearena.model import QBLOCK, Form, Numerics, Role, Scratch, WriteHow

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


class IsStep(OpTrait, abc.ABC):
    """The op that holds a step's tensors, buffers and launches (`lane.StepOp`), and the numerics they are computed
    under: an interface, so that the ops below need not know the step's class."""

    @abc.abstractmethod
    def numerics(self, op: Operation) -> Numerics:
        """The numerics of step `op`."""


class InStep(OpTrait):
    """The op lives directly in a step (xDSL's `HasParent`, for a parent known by its `IsStep` trait)."""

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        if parent is not None and not parent.has_trait(IsStep):
            raise VerifyException(f"'{op.name}' expects parent op 'lane.step'")


IN_STEP = InStep()
"""Every `lane` and `arena` op but the step lives directly in a `lane.step`."""


def step_numerics(op: Operation) -> Numerics | None:
    """The numerics of the step `op` is in, where it is in one (an op being built is in none yet)."""
    parent = op.parent_op()
    step = parent.get_trait(IsStep) if parent is not None else None
    return step.numerics(parent) if step is not None and parent is not None else None


def _quantizes(op: Operation) -> bool:
    """Whether arrays may be quantized where `op` is: under quantized numerics, or outside a step (being built)."""
    numerics = step_numerics(op)
    return numerics is None or numerics.quantized


# --- Tensors -----------------------------------------------------------------------------------------------------

TENSOR_FORMAT = "custom<Name>($tensor) {} custom<Own>($own_plain, $own_quant) attr-dict `:` type($result)"
"""A tensor op's format around what it says in the middle (`{}`): its name, the arrays kept in buffers of their
own, its type."""


class TensorDef(OrderedOp):
    """An op that defines one tensor of the step, named `tensor`; `own_plain` and `own_quant` say why an array of it
    keeps a buffer of its own (set by `lane-arena-place`)."""

    ROLE: ClassVar[Role]
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

    def owning(self, own: Mapping[Form, Reason]) -> Self:
        """A new op like this one (not yet in a block) whose arrays `own` keep buffers of their own, for the reasons
        given."""
        return type(self).create(
            operands=self.operands,
            result_types=[self.result.type],
            properties=self.properties | own_properties(own),
            attributes=self.attributes,
            location=self.location,
        )

    def verify_(self) -> None:
        """What every tensor op checks: a name, i8 and bf16 elements only for a weight, and reasons for its own
        buffers that fit the tensor."""
        if not self.tensor_name:
            raise VerifyException(f"{self.name}: a tensor needs a name")
        self._verify_own()
        t = self.result.type
        if t.elem in ("i8", "bf16") and self.ROLE is not Role.WEIGHT:
            what = "i8 (Q8_0)" if t.elem == "i8" else t.elem
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': only a weight is {what}; a {self.ROLE} tensor is f32 or i32"
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
            if form is Form.QUANT and not _quantizes(self):
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}' own(quant = ...): no array is quantized under "
                    f"{step_numerics(self)} numerics"
                )
            unallocated = reason is Reason.UNALLOCATED and form.value not in self.forms
            if (reason.value in _ROLE_REASONS or role in _ROLE_REASONS) and reason.value != role and not unallocated:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}': own({form.value} = {reason.value}), but the tensor is "
                    f"{role} data"
                )


_REASONS = {r: ReasonAttr(r) for r in Reason}


def own_properties(own: Mapping[Form, Reason]) -> dict[str, Attribute]:
    """The properties that say why arrays `own` of a tensor keep buffers of their own (`own_plain`, `own_quant`)."""
    return {f"own_{form.value}": _REASONS[reason] for form, reason in own.items()}


_ROLE_REASONS = ("input", "weight", "state", "view")
"""The reasons an array keeps a buffer of its own that follow from its tensor alone."""


class ComputedDef(TensorDef):
    """An op that defines a tensor the step computes (`lane.tensor`, `lane.view`, `arena.tensor`), allocated in
    the arrays `forms` (plain by default)."""

    ROLE: ClassVar[Role] = Role.COMPUTED
    forms_ = prop_def(ArrayAttr[FormAttr], prop_name="forms", default_value=form_attrs([Form.PLAIN.value]))

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(f.data.value for f in self.forms_.data)

    @property
    def computed(self) -> bool:
        return True

    def verify_(self) -> None:
        """A computed tensor's checks besides every tensor's: f32 or i32 elements, forms it can be allocated in."""
        if self.result.type.elem in ("i8", "bf16"):
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': a computed tensor is f32 or i32, not {self.result.type.elem}"
            )
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
        if not _quantizes(self):
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': a quantized form under {step_numerics(self)} numerics (only int8 "
                "and int8x2 quantize)"
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

    def taking(self, buffers: Sequence[SSAValue]) -> Self:
        """A new launch like this one (not yet in a block) that takes `buffers` as its scratch and counters: its
        operands group by its class's definition (IRDL counts a group's size where the class has several)."""
        groups = [
            list(buffers) if name == "buffers" else getattr(self, name)
            for name, _ in self.get_irdl_definition().operands
        ]
        new = type(self).build(
            operands=groups,
            result_types=[r.type for r in self.results],
            properties=self.properties,
            attributes=self.attributes,
        )
        new.location = self.location
        return new

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
            if owner.ROLE in (Role.INPUT, Role.WEIGHT):
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
            if f is Form.QUANT and not _quantizes(self):
                raise self.error(
                    f"{self.name} {what} the quant form of '{owner.tensor_name}' under {step_numerics(self)} numerics "
                    "(only int8 and int8x2 quantize)"
                )
            if f.value not in owner.forms:
                raise self.error(
                    f"{self.name} {what} the {f.value} form of '{owner.tensor_name}', which is not allocated in it "
                    f"(its forms are ({', '.join(owner.forms)}))"
                )
