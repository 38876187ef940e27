"""`lanearena models`: the Hugging Face model_types lanearena reads from a config.json, the keys each reads (and the
decoder key each becomes), the keys it ignores, and what it refuses."""

from __future__ import annotations

from lanearena.frontend.hf import describe


def register(sub) -> None:
    p = sub.add_parser(
        "models",
        help="list the Hugging Face model_types read from config.json, and what each refuses",
        description="Lists the Hugging Face model_types that lanearena build and run read from a config.json: for "
        "each, the keys it reads and the decoder key each becomes, the keys it ignores (they do not change the "
        "computation), the defaults it takes where a file gives none, and what it refuses.",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    print(describe(), end="")
    return 0
