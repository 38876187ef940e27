"""The kernel-op base that each launch kind of lanearena's kernel library subclasses (`KernelOp`), and the helpers a
kind's class is written with: its parameters (`count`, `real`, `flag`), its operands' forms (`read_form`,
`written_forms`) and the pieces of its declarative format (`arg`, `param`, `option`, ..., `signature`).

A kind's class says all of it: its operands by name, its parameters as typed properties with defaults, its shape
checks in `verify_` and its scratch in `scratch` (`docs/adding-a-kind.md`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, ArrayAttr, Float64Type, FloatAttr, IntegerAttr, UnitAttr, f64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import PLAIN, FormAttr, PartAttr, form_attrs, part_problem
from lanearena.dialects.base import LaunchOp, TensorDef, tensor_def, tensor_type
from lanearena.dialects.directives import Read, Tensor, Written
from lanearena.model import Form, Numerics, Other, Part, Role, Scratch, Whole, WriteHow


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
    """The operands that are weights (f32, or Q8_0 or bf16 where not in `F32_WEIGHTS`)."""
    F32_WEIGHTS: ClassVar[tuple[str, ...]] = ()
    """The weights its kernels take in f32 only."""
    UNQUANTIZED: ClassVar[tuple[str, ...]] = ()
    """The weights its kernels take in f32 or bf16, never as Q8_0 (a router: its logits choose the experts)."""
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
    def _param_attrs(cls, given: Params) -> dict[str, Attribute]:
        """The parameters `given` (by name) as the properties that keep them."""
        defs = cls.get_irdl_definition().properties
        out: dict[str, Attribute] = {}
        part = {n: given[n] for n in PART_PARAMS if n in given}
        if part:
            if "part" not in defs:
                raise ValueError(f"{cls.name}: its kernels write whole rows: no pitch, start, width")
            if len(part) != len(PART_PARAMS) or not all(_is_int(v) for v in part.values()):
                raise ValueError(f"{cls.name}: a part write takes integers pitch, start and width together")
            pitch, start, width = (int(part[n]) for n in PART_PARAMS)
            if problem := part_problem(pitch, start, width):  # refused as a builder's error, not the attr's verifier's
                raise ValueError(f"{cls.name}: parameters 'pitch', 'start' and 'width': {problem}")
            out["part"] = PartAttr(pitch, start, width)
        for name, value in given.items():
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
            if must_weigh != (t.ROLE is Role.WEIGHT):
                raise self.error(
                    f"{self.name}: operand '{name}' {'must' if must_weigh else 'must not'} be a lane.weight"
                )
            elem = t.result.type.elem
            if elem not in want:
                raise self.error(
                    f"{self.name}: '{t.tensor_name}' (its '{name}') is {elem}, but the kernels take {' or '.join(want)}"
                )
        matrices = {tensor_type(self.operand(n)).elem for n in self.WEIGHTS if n not in self.F32_WEIGHTS}
        if "bf16" in matrices and len(matrices) > 1:
            raise self.error(
                f"{self.name}: weights of {', '.join(sorted(matrices))}, but a launch's kernels read their weight "
                "matrices in one element: bf16 all or none"
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
        rules: list[tuple[str, bool, tuple[str, ...]]] = []
        for name in cls.operand_names():
            if name in cls.WEIGHTS:
                if name in cls.F32_WEIGHTS:
                    rules.append((name, True, ("f32",)))
                else:
                    rules.append((name, True, ("f32", "bf16") if name in cls.UNQUANTIZED else ("f32", "i8", "bf16")))
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
