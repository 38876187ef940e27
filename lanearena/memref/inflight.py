"""Asynchronous ops for xDSL's interpreter, run so that a placement that lets a buffer share bytes with an op still
in flight shows: `gpu.launch_func`, `gpu.launch`, `gpu.memcpy`, `gpu.wait` and `memref.dma_start`/`dma_wait`.

An asynchronous op runs when it is issued, and is in flight until the host awaits it (`gpu.wait`, a synchronous gpu
op depending on its token, or the `memref.dma_wait` on its tag). The bytes it touches are noted when it runs and
must be the same when it is awaited: a change in between (the host, or an op not ordered after it, wrote them) is a
race, and an error at the op that awaits it. An op issued after the ones it depends on may change their bytes: they
have finished on the device before it starts, so their bytes are noted again after it runs. What is still in flight
when the function returns is checked then (`settle`). Kernels run thread by thread, block by block (no
`gpu.barrier`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import product
from math import prod
from typing import Any

from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import InterpretationError

from lanearena.dialects.located import where
from lanearena.memref.interpret import StridedArray, held, number, strided

Span = tuple[bytearray, int, int]
"""Bytes `[start, start + size)` of one allocation's memory."""


def spans(array: StridedArray, indices: Iterable[Sequence[int]] | None = None) -> list[Span]:
    """The bytes of the elements of `array` at `indices` (all of them when None)."""
    raw, size = array.data_ptr.raw, array.element_bytes()
    return [(raw.memory, raw.offset + array.offset(i) * size, size) for i in indices or array.indices()]


@dataclass(eq=False)
class Flight:
    """An asynchronous op in flight: the bytes it touches (`spans`) and what they held when last noted (each flight
    is itself: two of one op touching the same bytes are two)."""

    op: Operation
    spans: list[Span]
    seen: list[bytes] = field(default_factory=list[bytes])

    def note(self) -> None:
        self.seen = [bytes(m[at : at + n]) for m, at, n in self.spans]

    def check(self) -> None:
        """Raises when a byte it touches changed since it was noted."""
        for (m, at, n), was in zip(self.spans, self.seen, strict=True):
            if bytes(m[at : at + n]) != was:
                raise InterpretationError(
                    f"bytes of {self.op.name} ({where(self.op).rstrip(': ') or 'built'}) changed while it was in "
                    "flight: another buffer shares them, or the program races"
                )


@dataclass(frozen=True)
class Token:
    """A `!gpu.async.token`: the flights that have ended once it is awaited (its op's and its dependencies')."""

    flights: tuple[Flight, ...]


@dataclass
class Flights:
    """What is in flight: every flight not yet awaited, and the DMAs by their tag element."""

    pending: list[Flight] = field(default_factory=list[Flight])
    dmas: dict[tuple[int, int], list[Flight]] = field(default_factory=dict[tuple[int, int], list[Flight]])
    threads: list[tuple[int, ...]] = field(default_factory=list[tuple[int, ...]])
    """The kernel threads running, innermost last: block ids, thread ids, grid sizes, block sizes (three each)."""

    def start(self, op: Operation, touched: list[Span]) -> Flight:
        flight = Flight(op, touched)
        flight.note()
        self.pending.append(flight)
        return flight

    def await_(self, flights: Iterable[Flight]) -> None:
        """The host has waited for `flights`: each is checked and lands."""
        for flight in flights:
            if flight in self.pending:
                flight.check()
                self.pending.remove(flight)


def flights(interpreter: Interpreter) -> Flights:
    """The flights of `interpreter`'s run."""
    return interpreter.get_data(AsyncFunctions, "flights", Flights)


def settle(interpreter: Interpreter) -> None:
    """Checks everything still in flight, as when the program ends."""
    state = flights(interpreter)
    state.await_(list(state.pending))


def _index(value: int, interpreter: Interpreter) -> Any:
    """`value` as the interpreter holds an `index`."""
    return held(value, IndexType(), interpreter.index_bitwidth)


def _memref_spans(values: Iterable[Any]) -> list[Span]:
    """The bytes of every memref among `values`."""
    return [s for v in values if isinstance(v, ShapedArray) for s in spans(strided(v))]


def _ints(values: Sequence[Any]) -> list[int]:
    """Interpreted integers as Python's."""
    return [number(v) for v in values]


@register_impls
class AsyncFunctions(InterpreterFunctions):
    """gpu launches, copies and waits, and DMAs, with their flights (`Flights`)."""

    def _issue(
        self,
        interpreter: Interpreter,
        op: Operation,
        deps: Sequence[Token],
        touched: list[Span],
        run: Callable[[], None],
    ) -> PythonValues:
        """Runs `op` (`run()`) after `deps`; gives its token when it is asynchronous, else waits for it."""
        state = flights(interpreter)
        before = tuple(f for t in deps for f in t.flights)
        asynchronous = any(isinstance(r.type, gpu.AsyncTokenType) for r in op.results)
        if not asynchronous:
            state.await_(before)
        for f in before:  # on the device they end before `op` starts: nothing the host did may have changed them
            if f in state.pending:
                f.check()
        run()
        for f in before:
            f.note()
        if not asynchronous:
            return ()
        return (Token((*before, state.start(op, touched))),)

    @impl(gpu.LaunchFuncOp)
    def run_launch_func(self, interpreter: Interpreter, op: gpu.LaunchFuncOp, args: PythonValues) -> PythonValues:
        kernel = SymbolTable.lookup_symbol(op, op.kernel)
        if not isinstance(kernel, gpu.FuncOp):
            raise InterpretationError(f"no gpu.func {op.kernel}")
        deps = args[: len(op.asyncDependencies)]
        sizes = _ints(interpreter.get_values([*op.operands[len(deps) : len(deps) + 6]]))
        operands = interpreter.get_values(op.kernelOperands)

        def run() -> None:
            for block, thread in _threads(sizes):
                with _Thread(interpreter, (*block, *thread, *sizes)):
                    interpreter.run_ssacfg_region(kernel.body, operands, kernel.sym_name.data)

        return self._issue(interpreter, op, deps, _memref_spans(operands), run)

    @impl(gpu.LaunchOp)
    def run_launch(self, interpreter: Interpreter, op: gpu.LaunchOp, args: PythonValues) -> PythonValues:
        deps = args[: len(op.asyncDependencies)]
        sizes = _ints(args[len(deps) : len(deps) + 6])
        outside = [v for v in _captured(op) if isinstance(v.type, MemRefType)]
        touched = _memref_spans(interpreter.get_values(outside))

        def run() -> None:
            for block, thread in _threads(sizes):
                ids = (*block, *thread, *sizes)
                with _Thread(interpreter, ids):
                    interpreter.run_ssacfg_region(op.body, tuple(_index(i, interpreter) for i in ids), "gpu.launch")

        return self._issue(interpreter, op, deps, touched, run)

    @impl(gpu.MemcpyOp)
    def run_memcpy(self, interpreter: Interpreter, op: gpu.MemcpyOp, args: PythonValues) -> PythonValues:
        deps = args[: len(op.asyncDependencies)]
        target, source = strided(args[len(deps)]), strided(args[len(deps) + 1])

        def run() -> None:
            for index in target.indices():
                target.store(index, source.load(index))

        return self._issue(interpreter, op, deps, spans(target) + spans(source), run)

    @impl(gpu.WaitOp)
    def run_wait(self, interpreter: Interpreter, op: gpu.WaitOp, args: PythonValues) -> PythonValues:
        together = tuple(f for t in args for f in t.flights)
        if op.asyncToken is not None:
            return (Token(together),)
        flights(interpreter).await_(together)
        return ()

    @impl_terminator(gpu.TerminatorOp)
    def run_terminator(
        self, interpreter: Interpreter, op: gpu.TerminatorOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(()), ()

    @impl_terminator(gpu.ReturnOp)
    def run_return(
        self, interpreter: Interpreter, op: gpu.ReturnOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interpreter: Interpreter, op: gpu.ThreadIdOp, args: PythonValues) -> PythonValues:
        return (_index(_thread(interpreter, op.dimension, 3), interpreter),)

    @impl(gpu.BlockIdOp)
    def run_block_id(self, interpreter: Interpreter, op: gpu.BlockIdOp, args: PythonValues) -> PythonValues:
        return (_index(_thread(interpreter, op.dimension, 0), interpreter),)

    @impl(gpu.GridDimOp)
    def run_grid_dim(self, interpreter: Interpreter, op: gpu.GridDimOp, args: PythonValues) -> PythonValues:
        return (_index(_thread(interpreter, op.dimension, 6), interpreter),)

    @impl(gpu.BlockDimOp)
    def run_block_dim(self, interpreter: Interpreter, op: gpu.BlockDimOp, args: PythonValues) -> PythonValues:
        return (_index(_thread(interpreter, op.dimension, 9), interpreter),)

    @impl(memref.DmaStartOp)
    def run_dma_start(self, interpreter: Interpreter, op: memref.DmaStartOp, args: PythonValues) -> PythonValues:
        source, target, tag = (strided(v) for v in interpreter.get_values([op.src, op.dest, op.tag]))
        (count,) = _ints(interpreter.get_values([op.num_elements]))
        reads = _run(source, _ints(interpreter.get_values(op.src_indices)), count)
        writes = _run(target, _ints(interpreter.get_values(op.dest_indices)), count)
        for r, w in zip(reads, writes, strict=True):
            target.store(w, source.load(r))
        slot = spans(tag, [_ints(interpreter.get_values(op.tag_indices))])
        state = flights(interpreter)
        flight = state.start(op, spans(source, reads) + spans(target, writes) + slot)
        state.dmas.setdefault(_key(slot[0]), []).append(flight)
        return ()

    @impl(memref.DmaWaitOp)
    def run_dma_wait(self, interpreter: Interpreter, op: memref.DmaWaitOp, args: PythonValues) -> PythonValues:
        (tag,) = interpreter.get_values([op.tag])
        slot = spans(strided(tag), [_ints(interpreter.get_values(op.tag_indices))])
        state = flights(interpreter)
        state.await_(state.dmas.pop(_key(slot[0]), []))
        return ()


def _key(span: Span) -> tuple[int, int]:
    """A DMA tag element, by the memory it is in and where."""
    return id(span[0]), span[1]


def _run(array: StridedArray, start: Sequence[int], count: int) -> list[tuple[int, ...]]:
    """The `count` indices of `array` from `start` on, in row-major order (a DMA's elements)."""
    shape = array.shape
    first = sum(i * prod(shape[d + 1 :]) for d, i in enumerate(start))
    every = list(product(*(range(n) for n in shape)))
    if first + count > len(every):
        raise InterpretationError(f"{count} elements from {list(start)} run past a memref of shape {shape}")
    return every[first : first + count]


def _threads(sizes: Sequence[int]) -> Iterable[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every (block id, thread id) of a grid of `sizes[:3]` blocks of `sizes[3:]` threads."""
    for block in product(*(range(n) for n in reversed(sizes[:3]))):
        for thread in product(*(range(n) for n in reversed(sizes[3:]))):
            yield block[::-1], thread[::-1]


class _Thread:
    """The kernel thread being run (`Flights.threads`), while in this context."""

    def __init__(self, interpreter: Interpreter, ids: tuple[int, ...]):
        self.threads = flights(interpreter).threads
        self.ids = ids

    def __enter__(self) -> None:
        self.threads.append(self.ids)

    def __exit__(self, *exc: object) -> None:
        self.threads.pop()


def _thread(interpreter: Interpreter, dimension: gpu.DimensionAttr, first: int) -> int:
    threads = flights(interpreter).threads
    if not threads:
        raise InterpretationError("a gpu id op outside a kernel")
    return threads[-1][first + ("x", "y", "z").index(dimension.data.value)]


def _captured(op: Operation) -> list[SSAValue]:
    """The values defined outside `op` that ops inside it use, each once."""
    inside = set(op.walk())
    seen: dict[SSAValue, None] = {}
    for o in op.walk():
        for v in o.operands:
            owner = v.owner
            if (owner if isinstance(owner, Operation) else owner.parent_op()) not in inside:
                seen[v] = None
    return list(seen)
