"""`lanearena-run FILE.mlir`: runs `@main` (or `--symbol`) with xDSL's interpreter, as `xdsl-run` does, over
byte-backed memrefs (`lanearena.memref.interpret`): the alias ops share their source's bytes and every fresh
allocation is poisoned. With `--seed N` the arguments not given by `--args` are drawn at random
(`interpret.random_argument`). A malformed file, IR that does not verify, or a failure while running is one located
`error:` line and exit status 1 (`--debug` shows the traceback)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.interpreters.math import MathFunctions
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.tools.xdsl_run import xDSLRunMain
from xdsl.traits import CallableOpInterface

from lanearena.dialects.located import where
from lanearena.memref import inflight, interpret, scalars
from lanearena.tools import read_stdin_for_dash
from lanearena.tools.diagnose import error_line, parse_located, verify_located

PROG = "lanearena-run"


class _Running(Interpreter.Listener):
    """The ops being interpreted, innermost last: when one fails, the last is where."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        self.ops.append(op)

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        self.ops.pop()


class LanearenaRunMain(xDSLRunMain):
    """xDSL's runner with byte-backed memrefs and located errors."""

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__("lanearena-run: runs a function of an MLIR file with xDSL's interpreter", args)
        read_stdin_for_dash(self.args)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument("--debug", default=False, action="store_true", help="show the traceback of an error")
        arg_parser.add_argument(
            "--seed", type=int, default=None, help="draw the arguments not given by --args at random, from this seed"
        )

    def register_implementations(self, interpreter: Interpreter):
        super().register_implementations(interpreter)
        interpreter.register_implementations(MathFunctions())  # xDSL's own, not among xdsl-run's
        for functions in (
            interpret.ByteMemrefFunctions(),
            interpret.AffineAccessFunctions(),
            scalars.ArithFloatFunctions(),
            scalars.MathFunctions(),
            scalars.CfFunctions(),
            scalars.LinalgFunctions(),
            inflight.AsyncFunctions(),
        ):
            interpreter.register_implementations(functions, override=True)

    def run(self) -> int:
        """Runs the function; the exit status."""
        name = self.get_input_name()
        try:
            stream, _ = self.get_input_stream()
            with stream:
                text = stream.read()
        except OSError as e:
            if self.args.debug:
                raise
            print(f"{PROG}: error: {e.strerror}: {name}", file=sys.stderr)
            return 1
        try:
            module = parse_located(self.ctx, text, name, 0, not self.args.no_implicit_module)
            if not self.args.disable_verify:
                verify_located(module)
        except Exception as e:  # a located line, not a traceback
            if self.args.debug:
                raise
            print(error_line(e, name), file=sys.stderr)
            return 1
        running = _Running()
        try:
            result = self._call(module, running)
        except Exception as e:  # located at the op being interpreted when it failed
            if self.args.debug:
                raise
            message = (str(e).splitlines() or [type(e).__name__])[0]
            op = running.ops[-1] if running.ops else None
            at = (where(op) if op is not None else "") or f"{name}: "
            what = f"'{op.name}': " if op is not None else ""
            print(f"{at}error: while running @{self.args.symbol}: {what}{message}", file=sys.stderr)
            return 1
        if self.args.verbose:
            print(f"result: {result[0]}" if len(result) == 1 else f"result: ({', '.join(map(str, result))})")
        return 0

    def _call(self, module: ModuleOp, running: _Running) -> PythonValues:
        """The results of calling the function, `running` following the ops interpreted."""
        interpreter = Interpreter(module, index_bitwidth=self.args.index_bitwidth, listeners=(running,))
        self.register_implementations(interpreter)
        results, _ = call(interpreter, self.ctx, self.args.symbol, self.args.args, self.args.seed)
        return results


def call(
    interpreter: Interpreter, ctx: Context, symbol: str, given: str = "", seed: int | None = None
) -> tuple[PythonValues, list[Any]]:
    """The results of calling `@symbol` with `interpreter` (its functions registered), and the arguments it was
    called with: those of `given` (attributes, comma-separated), then, with a `seed`, the rest drawn at random."""
    parser = Parser(ctx, given, "args")
    attrs = (
        parser.parse_optional_undelimited_comma_separated_list(parser.parse_optional_attribute, parser.parse_attribute)
        or ()
    )
    op = interpreter.get_op_for_symbol(symbol)
    trait = op.get_trait(CallableOpInterface)
    if trait is None:
        raise ValueError(f"@{symbol} is no function")
    types = trait.get_argument_types(op)
    args = [interpreter.value_for_attribute(a, t) for a, t in zip(attrs, types, strict=False)]
    if seed is not None:
        rng = numpy.random.default_rng(seed)
        args += [interpret.random_argument(t, rng, interpreter.index_bitwidth) for t in types[len(args) :]]
    results = interpreter.call_op(op, tuple(args))
    inflight.settle(interpreter)
    return results, args


def run_function(text: str, symbol: str = "main", seed: int = 0) -> tuple[list[Any], list[Any]]:
    """The results of `@symbol` of the module in `text` run as `lanearena-run --seed` runs it, and its arguments,
    as numpy arrays (a memref) or numbers."""
    runner = LanearenaRunMain([])
    module = parse_located(runner.ctx, text, "<input>")
    verify_located(module)
    interpreter = Interpreter(module)
    runner.register_implementations(interpreter)
    results, args = call(interpreter, runner.ctx, symbol, "", seed)
    return [interpret.as_numpy(r) for r in results], [interpret.as_numpy(a) for a in args]


def main(argv: Sequence[str] | None = None) -> int:
    """The `lanearena-run` command; its exit status."""
    return LanearenaRunMain(argv).run()


if __name__ == "__main__":
    sys.exit(main())
