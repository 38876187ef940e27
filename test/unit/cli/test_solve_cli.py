"""`lanearena solve`: MiniMalloc's CSV in, the same rows with offsets out, `height=N lower_bound=M` last; bad input
is one message naming the row, exit code 2, and no output file."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from lanearena.cli import main
from lanearena.placement import Buffer, check

EXAMPLE = (
    Path(__file__).resolve().parents[3] / ".." / "shared" / "benchmarks" / "minimalloc" / "examples" / "input.12.csv"
)


def solve(tmp_path, text: str, *extra: str) -> tuple[int, Path]:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text(text)
    return main(["solve", "--input", str(src), "--output", str(out), "--quiet", *extra]), out


def test_round_trip_on_the_example(tmp_path, capsys):
    if not EXAMPLE.exists():
        pytest.skip(f"{EXAMPLE} is not here")
    code, out = solve(tmp_path, EXAMPLE.read_text())
    assert code == 0
    rows = list(csv.DictReader(out.open()))
    given = list(csv.DictReader(EXAMPLE.open()))
    assert [r["id"] for r in rows] == [r["id"] for r in given]
    buffers = [Buffer(r["id"], int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]
    offsets = [int(r["offset"]) for r in rows]
    assert check(buffers, offsets) == []
    last = capsys.readouterr().out.strip().splitlines()[-1]
    height = max(o + b.size for o, b in zip(offsets, buffers, strict=True))
    assert last.startswith(f"height={height} lower_bound=")


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty file"),
        ("id,lower,size\n0,0,4\n", "missing column upper"),
        ("id,lower,upper,size\n0,0,2,x\n", ":2: size 'x' is not an integer"),
        ("id,lower,upper,size\n0,0,2,4\n1,0,2,-4\n", ":3: size -4 of '1' is not positive"),
        ("id,lower,upper,size\n0,3,2,4\n", ":2: '0' lives over [3, 2)"),
        ("id,lower,upper,size\n0,0,2,4\n0,1,3,4\n", ":3: id '0' already given on line 2"),
        ("id,lower,upper,size\n0,0,2\n", ":2: 3 fields, the header has 4"),
        ("id,lower,upper,size\n", "no buffers"),
        (
            "id,lower,upper,size\n0,0,2,1000000000000000000000000000000\n",
            ":2: size 1000000000000000000000000000000 is past",
        ),
        (
            "id,lower,upper,size\n0,0,2,4\n1,0,10000000000000000000000000000000,4\n",
            ":3: upper 10000000000000000000000000000000",
        ),
        # Several faults: the first line is named, whatever its kind.
        ("id,lower,upper,size\n0,0,2,4\n1,0,2,x\n2,0,2\n3,0,2,-1\n", ":3: size 'x' is not an integer"),
        ("id,lower,upper,size\n0,0,2,4\n1,0,2\n1,0,2,4\n", ":3: 3 fields, the header has 4"),
        (f"id,lower,upper,size\na,0,2,{2**61}\nb,1,3,{2**61}\n", "the sizes add up to 4611686018427387904 bytes"),
    ],
)
def test_bad_input_names_the_row(tmp_path, capsys, text, message):
    code, out = solve(tmp_path, text)
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_ids_round_trip_quoted(tmp_path, capsys):
    code, out = solve(tmp_path, 'id,lower,upper,size\n"a,b",0,2,4\n"c""d",1,3,4\n\n ,,, \n')
    assert code == 0
    rows = list(csv.DictReader(out.open()))
    assert [(r["id"], r["offset"]) for r in rows] == [("a,b", "0"), ('c"d', "4")]


def test_capacity_not_reached_fails_cleanly(tmp_path, capsys):
    code, out = solve(tmp_path, "id,lower,upper,size\na,0,2,10\nb,1,3,10\n", "--capacity", "15", "--time-limit", "0.1")
    assert code == 2 and "no placement within 15 bytes" in capsys.readouterr().err
    assert not out.exists()


def test_missing_input_file(tmp_path, capsys):
    code = main(["solve", "--input", str(tmp_path / "nope.csv"), "--output", str(tmp_path / "o.csv")])
    assert code == 2 and "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--time-limit", "-1", "--time-limit must be a positive number of seconds, not -1"),
        ("--time-limit", "nan", "--time-limit must be a positive number of seconds, not nan"),
        ("--work", "-5", "--work must be a whole number >= 0, not -5"),
        ("--work", "1.5", "'1.5' is not an integer"),
    ],
)
def test_bad_budget_flags_are_refused(tmp_path, capsys, flag, value, message):
    with pytest.raises(SystemExit) as e:
        solve(tmp_path, "id,lower,upper,size\na,0,2,10\n", flag, value)
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_budget_flags_take_integers(tmp_path, capsys):
    code, _ = solve(tmp_path, "id,lower,upper,size\na,0,2,10\nb,1,3,10\n", "--time-limit", "10", "--work", "1000")
    assert code == 0 and capsys.readouterr().out.strip().endswith("height=20 lower_bound=20")
