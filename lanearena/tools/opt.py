"""`lanearena-opt`: xdsl-opt with lanearena's dialects and passes (found through the `xdsl.universe` entry point:
`lane`, `arena`, `lane-arena-place`, `lane-arena-verify`, `memref-arena-place`...), which reports a malformed file,
IR that does not verify and bad pass options as one `file:line:col: error: ...` line (a line a problem, for a pass
that finds several) and exit status 1, never a
traceback (`--debug` shows it). With `--verify-diagnostics` the error lines go to stdout in order and it exits 0, for
FileCheck tests of errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from lanearena.errors import UserError
from lanearena.files import write_output
from lanearena.tools import read_stdin_for_dash
from lanearena.tools.diagnose import LocatedDiagnostic, error_line, error_lines, parse_located, verify_located

PROG = "lanearena-opt"


class LanearenaOptMain(xDSLOptMain):
    """xDSL's optimizer driver with located errors and an exit status."""

    version_format = "lanearena-opt built from xdsl version {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        self._module: ModuleOp | None = None
        super().__init__("lanearena-opt: xdsl-opt with lanearena's dialects and passes, and located errors", args)
        read_stdin_for_dash(self.args)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument("--debug", default=False, action="store_true", help="show the traceback of an error")

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if (self.args.frontend or file_extension) != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        module = parse_located(
            self.ctx, chunk.read(), self.get_input_name(), start_offset, not self.args.no_implicit_module
        )
        self._module = module
        if not self.args.disable_verify:
            verify_located(module)
        return module

    def run(self) -> int:
        """Parses, runs the passes on and prints each chunk of the input; the exit status."""
        try:
            chunks, extension = self.prepare_input()
        except (OSError, ValueError) as e:
            if self.args.debug:
                raise
            print(f"{PROG}: error: {getattr(e, 'strerror', None) or e}: {self.get_input_name()}", file=sys.stderr)
            return 1
        diagnostics = self.args.verify_diagnostics or self.args.parsing_diagnostics
        output: list[str] = []
        failed = False
        for i, (chunk, offset) in enumerate(chunks):
            if i > 0:
                output.append("// -----\n")
            self._module = None
            try:
                module = self.parse_chunk(chunk, extension, offset)
                if module is not None:
                    self.apply_passes(module)
                    output.append(self.output_resulting_program(module))
            except Exception as e:  # every error becomes located lines; --debug shows the traceback
                if self.args.debug:
                    raise
                lines = self._error_lines(e)
                if diagnostics:
                    output += [line + "\n" for line in lines]
                else:
                    print("\n".join(lines), file=sys.stderr)
                    failed = True
            finally:
                chunk.close()
        if failed:
            return 1
        try:
            write_output(self.args.output_file, "".join(output))
        except UserError as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 1
        return 0

    def _error_lines(self, error: Exception) -> list[str]:
        """`error` as located lines; an IR that stops verifying after a pass is verified again op by op so the
        line names the op at fault."""
        if not isinstance(error, LocatedDiagnostic) and self._module is not None and not self.args.disable_verify:
            try:
                verify_located(self._module)
            except LocatedDiagnostic as located:
                line = error_line(located, self.get_input_name())
                return [line.replace(": error: ", ": error: after the passes: ", 1)]
        return error_lines(error, self.get_input_name())


def main(argv: Sequence[str] | None = None) -> int:
    """The `lanearena-opt` command; its exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        tool = LanearenaOptMain(args)
    except (Exception, ArgSpecParseError) as e:  # the pass pipeline and its options are read while setting up
        if "--debug" in args:
            raise
        print(f"{PROG}: error: bad pass pipeline: {e}", file=sys.stderr)
        return 1
    return tool.run()


if __name__ == "__main__":
    sys.exit(main())
