"""Builds a `lane.step` op by op, as a model compiler embedding lanearena does: tensors by name, launches of the
kernel kinds (`dialects.kinds`) or of any other kernel, outputs. Ops are made directly, never parsed, and each is
checked as it is added, so a mistake fails at the call that made it with a `ValueError` that names the tensor."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import IntAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from lanearena.dialects import lane
from lanearena.dialects.attrs import ELEMENTS, PartAttr, ScratchAttr, TensorType, WriteAttr, WriteKind
from lanearena.dialects.directives import FORMS
from lanearena.model import Form, Numerics, Other, Part, Scratch, Whole, WriteHow

TensorValue = SSAValue[TensorType]
"""The value of a tensor of the step (the builder's methods return them)."""

Operand = SSAValue | tuple[SSAValue, str | Form]
"""A read operand: a tensor value (its plain array) or a value and the form read."""

Written = SSAValue | tuple[SSAValue, str | Form | Sequence[str | Form]]
"""A written operand: a tensor value (its plain array) or a value and the form or forms written."""

GenericWritten = Written | tuple[SSAValue, str | Form | Sequence[str | Form], str | WriteHow]
"""A generic launch's written operand: as `Written`, and how it is written (`whole` by default)."""


def _hint(name: str) -> str:
    """An SSA name for tensor `name`, so that the printed step reads `%l0.q` for tensor "l0.q"."""
    hint = re.sub(r"[^\w$.-]", "_", name, flags=re.ASCII)  # MLIR's identifiers are ASCII
    return hint if re.match(r"[A-Za-z_$.-]", hint) else f"t{hint}"


def _forms(forms: object, what: str) -> tuple[str, ...]:
    """Forms given as one form or several, as their names."""
    given = (forms,) if isinstance(forms, (str, Form)) else tuple(forms) if isinstance(forms, Iterable) else ()
    if not given or any(f not in FORMS for f in given):
        raise ValueError(f"{what}: forms are plain and quant, not {forms!r}")
    return tuple(Form(f).value for f in given)


class StepBuilder:
    """A `lane.step` under construction: `input`, `weight`, `state`, `tensor` and `view` define tensors and return
    their values; `launch` and `generic` add launches over them; `output` marks what the step hands back; `module`
    returns the verified step in a module."""

    def __init__(self, name: str, numerics: str | Numerics = Numerics.F32):
        try:
            self.numerics = Numerics(numerics)
        except ValueError:
            raise ValueError(f"step '{name}': numerics are f32, bf16, int8 or int8x2, not {numerics!r}") from None
        self.name = name
        self._ops: list[Operation] = []
        self._defs: dict[str, lane.TensorDef] = {}
        self._outputs: list[SSAValue] = []
        self._launch_count = 0
        self._built = False

    # --- Tensors ---------------------------------------------------------------------------------------------------

    def input(self, name: str, shape: int | Sequence[int], elem: str = "f32") -> TensorValue:
        """A tensor the step is given (ids, positions, an activation)."""
        return self._define(lane.InputOp(name, self._type(name, shape, elem)))

    def weight(self, name: str, shape: int | Sequence[int], elem: str = "f32") -> TensorValue:
        """A weight: f32, or i8 (Q8_0, a scale a block of its last dimension)."""
        return self._define(lane.WeightOp(name, self._type(name, shape, elem)))

    def state(self, name: str, shape: int | Sequence[int], elem: str = "f32") -> TensorValue:
        """Memory kept across steps that the step reads and writes (a key/value cache)."""
        return self._define(lane.StateOp(name, self._type(name, shape, elem)))

    def tensor(
        self,
        name: str,
        shape: int | Sequence[int],
        elem: str = "f32",
        forms: str | Form | Sequence[str | Form] = Form.PLAIN,
    ) -> TensorValue:
        """A tensor the step computes, allocated in `forms` (plain, and quant where a launch reads it quantized)."""
        return self._define(lane.TensorOp(name, self._type(name, shape, elem), _forms(forms, f"tensor '{name}'")))

    def view(
        self,
        name: str,
        of: SSAValue,
        offset: int,
        shape: int | Sequence[int],
        forms: str | Form | Sequence[str | Form] = Form.PLAIN,
    ) -> TensorValue:
        """An alias of computed tensor or view `of`, starting `offset` elements in, of its element type. Its quantized
        form is `of`'s own only where `offset` is a whole number of blocks."""
        source = self._value(of, f"view '{name}'")
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise ValueError(f"view '{name}': the offset is a whole number of elements, not {offset!r}")
        t = self._type(name, shape, source.type.elem)
        return self._define(lane.ViewOp(name, source, offset, t, _forms(forms, f"view '{name}'")))

    # --- Launches --------------------------------------------------------------------------------------------------

    def launch(
        self,
        kind: str | type[lane.KernelOp],
        ins: Sequence[Operand],
        outs: Sequence[Written],
        **params: int | float | str,
    ) -> lane.KernelOp:
        """A launch of kernel kind `kind` (`gemv`, `norm`, ..., or the op class of a kind defined elsewhere): `ins`
        and `outs` in the kind's operand order, `params` its parameters (`split=4`, `eps=1e-6`; `pitch`, `start` and
        `width` for a part write)."""
        op_class = kind if isinstance(kind, type) else lane.KERNEL_OPS.get(kind)
        if op_class is None:
            raise ValueError(
                f"unknown launch kind '{kind}' (kinds: {', '.join(lane.KERNEL_OPS)}); a kernel of another kind is "
                "added with generic()"
            )
        where = f"launch #{self._launch_count} ({op_class.name.split('.', 1)[1]})"
        ins_ = [self._read(v, where) for v in ins]
        outs_ = [self._written(v, where, with_how=False) for v in outs]
        try:
            op = op_class.make(
                [(v, Form(f)) for v, f in ins_],
                [(v, tuple(Form(f) for f in fs)) for v, fs in outs_],
                params,
            )
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        return self._add(op)

    def generic(
        self,
        kernel: str,
        ins: Sequence[Operand],
        outs: Sequence[GenericWritten],
        scratch: Sequence[Scratch] = (),
    ) -> lane.GenericLaunchOp:
        """A launch of a kernel outside the library, with how it writes each operand (`whole`, `other`, or a
        `model.Part`) and the scratch it asks for spelled out."""
        where = f"launch #{self._launch_count} ({kernel})"
        if not all(isinstance(s, Scratch) for s in scratch):
            raise ValueError(f"{where}: scratch is a list of lanearena.model.Scratch")
        try:
            attrs = [
                ScratchAttr(StringAttr(s.tag), StringAttr(s.elem), IntAttr(s.bytes), IntAttr(int(s.counter)))
                for s in scratch
            ]
        except DiagnosticException as e:
            raise ValueError(f"{where}: {e}") from e
        reads = [(v, Form(f)) for v, f in (self._read(v, where) for v in ins)]
        written = [(v, [Form(f) for f in fs], how) for v, fs, how in (self._written(v, where, True) for v in outs)]
        return self._add(lane.GenericLaunchOp(kernel, reads, written, attrs))

    def output(self, *values: SSAValue) -> None:
        """Marks `values` as what the step hands back (never placed in the arena)."""
        for v in values:
            v = self._value(v, "output")
            if v in self._outputs:
                raise ValueError(f"output: '{_tensor_def(v).tensor_name}' is already an output")
            self._outputs.append(v)

    # --- The step --------------------------------------------------------------------------------------------------

    def module(self) -> ModuleOp:
        """The step, verified, in a builtin module. The builder is spent after this."""
        if self._built:
            raise ValueError(f"step '{self.name}' was already built")
        self._built = True
        ops = [*self._ops, lane.OutputOp(self._outputs)]  # the step's terminator, even with nothing to hand back
        module = ModuleOp([lane.StepOp(self.name, self.numerics.value, Region(Block(ops)))])
        try:
            module.verify()
        except DiagnosticException as e:
            raise ValueError(f"step '{self.name}': {e}") from e
        return module

    def value(self, name: str) -> TensorValue:
        """The value of tensor `name`."""
        if name not in self._defs:
            raise ValueError(f"step '{self.name}' has no tensor '{name}'")
        return self._defs[name].result

    # --- Helpers ---------------------------------------------------------------------------------------------------

    def _type(self, name: str, shape: int | Sequence[int], elem: str) -> TensorType:
        if isinstance(shape, int):
            shape = (shape,)
        dims = tuple(shape)
        if not dims or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
            raise ValueError(f"tensor '{name}': a shape is one or more positive integers, not {shape!r}")
        if elem not in ELEMENTS:
            raise ValueError(f"tensor '{name}': elements are {', '.join(ELEMENTS)}, not {elem!r}")
        return TensorType(dims, ELEMENTS[elem])

    def _define(self, op: lane.TensorDef) -> TensorValue:
        self._check_open()
        name = op.tensor_name
        if not name:
            raise ValueError(f"step '{self.name}': a tensor needs a name")
        if name in self._defs:
            raise ValueError(f"step '{self.name}': tensor name '{name}' is already defined")
        self._verified(op, None)
        op.result.name_hint = _hint(name)
        self._defs[name] = op
        self._ops.append(op)
        return op.result

    def _add(self, op: lane.LaunchOp):
        self._check_open()
        self._verified(op, f"launch #{self._launch_count}")
        self._ops.append(op)
        self._launch_count += 1
        return op

    def _check_open(self) -> None:
        if self._built:
            raise ValueError(f"step '{self.name}' was already built")

    @staticmethod
    def _verified(op: Operation, where: str | None) -> None:
        """Runs `op`'s own checks now, so that a mistake fails at the call that made it (the dialect's messages
        name the tensor; a launch's are prefixed with `where` it is)."""
        try:
            op.verify_()
        except DiagnosticException as e:
            raise ValueError(f"{where}: {e}" if where else str(e)) from e

    def _value(self, v: object, where: str) -> TensorValue:
        owner = v.owner if isinstance(v, SSAValue) else None
        if not isinstance(owner, lane.TensorDef) or self._defs.get(owner.tensor_name) is not owner:
            raise ValueError(f"{where}: {v!r} is not a tensor of step '{self.name}'")
        return owner.result

    def _read(self, operand: Operand, where: str) -> tuple[SSAValue, str]:
        if not isinstance(operand, tuple):
            operand = (operand, Form.PLAIN)
        if len(operand) != 2 or not isinstance(operand[1], (str, Form)):
            raise ValueError(f"{where}: a read operand is a value or (value, form), not {operand!r}")
        value, form = operand
        return self._value(value, where), _forms(form, where)[0]

    def _written(self, operand: GenericWritten, where: str, with_how: bool) -> tuple:
        """A written operand as (value, forms), and how it is written where `with_how`."""
        parts: tuple[object, ...] = operand if isinstance(operand, tuple) else (operand,)
        given: tuple[object, ...] = (None, Form.PLAIN, "whole")[: 3 if with_how else 2]
        if not 1 <= len(parts) <= len(given):
            shape = "a value, (value, forms) or (value, forms, how)" if with_how else "a value or (value, forms)"
            raise ValueError(f"{where}: a written operand is {shape}, not {operand!r}")
        value, forms, *how = (*parts, *given[len(parts) :])
        return (self._value(value, where), _forms(forms, where), *(_how(h, where) for h in how))


def _how(how: object, where: str) -> Attribute:
    """How a generic launch writes an operand, as the attribute `lane.launch` keeps."""
    if isinstance(how, Part):
        try:
            return PartAttr(how.pitch, how.start, how.width)
        except DiagnosticException as e:
            raise ValueError(f"{where}: {e}") from e
    if isinstance(how, (Whole, Other)):
        how = "whole" if isinstance(how, Whole) else "other"
    if not isinstance(how, str) or how not in ("whole", "other"):
        raise ValueError(f"{where}: a write is 'whole', 'other' or a lanearena.model.Part, not {how!r}")
    return WriteAttr(WriteKind(how))


def _tensor_def(v: SSAValue) -> lane.TensorDef:
    """The op that defines tensor value `v` (a value the builder checked)."""
    assert isinstance(v.owner, lane.TensorDef)
    return v.owner
