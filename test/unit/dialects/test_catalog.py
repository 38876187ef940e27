"""docs/kinds.md is the table of launch kinds that their op classes make: a kind added, renamed or given a
parameter changes it, and this test asks for it to be written again."""

from __future__ import annotations

from pathlib import Path

from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.dialects.kinds.catalog import markdown

KINDS_MD = Path(__file__).resolve().parents[3] / "docs" / "kinds.md"


def test_docs_kinds_is_the_table_the_op_classes_make():
    assert KINDS_MD.read_text() == markdown(), "run: python -m lanearena.dialects.kinds.catalog > docs/kinds.md"


def test_the_table_has_a_row_for_every_kind_with_its_operands_and_parameters():
    rows = {line.split(" | ")[0].strip("| `"): line for line in markdown().splitlines() if line.startswith("| `")}
    assert list(rows) == list(KERNEL_OPS)
    assert "x(quant), w -> out" in rows["gemv"] and "split(1)" in rows["gemv"]
    assert "scaling(default; of default, linear, dynamic, llama3)" in rows["rope"]
    assert "experts, topk," in rows["moe"] and "[tc]" in rows["moe"]
