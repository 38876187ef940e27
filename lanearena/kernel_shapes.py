"""How the kernels lanearena ships cut their work (tiles, chunks, blocks, the accumulator's type), which sizes their
scratch: the helpers the seed's `scratch()` calls without showing them (`kernels::delta_chunk_scratch`,
`attn_i8_scratch`, `argmax_blocks`, `accumulator`, `GEMM_TILE_N`, `DELTA_CHUNK`, `Launch::gemm_rows`,
`gemm_tiles_wide` and the predicates `delta_in_chunks`, `on_tensor_cores`, ...). These are our choices, not the
seed's: docs/placement.md lists them. `kinds` sizes every launch's scratch through them, and the test that ports the
seed's `scratch()` arm by arm (`test/unit/test_seed_scratch.py`) takes them from here."""

from __future__ import annotations

from lanearena.model import Numerics

DELTA_CHUNK = 64
"""Rows of a chunk of the gated delta rule in chunks (the chunk size of flash-linear-attention's kernels)."""

GEMM_TILE_N = 64
"""Output columns of a tile of a projection on the tensor cores."""

GEMM_ROWS = 64
"""Activation rows of a tile of a projection on the tensor cores (at most; fewer when the batch is smaller)."""

ARGMAX_BLOCK = 1024
"""Values of a row each arg-max block reduces."""

F32_TILE = 64
"""Rows and columns of a tile of the f32 product cut along k: its parts' sums are whole 64 x 64 tiles."""


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def delta_chunk_scratch(chunks: int, hv: int, d: int) -> list[int]:
    """The values of the delta rule's chunk scratch over `chunks` chunks of `hv` heads of `d` values (keys and values
    alike): each chunk's decayed keys and decayed queries ([chunks, hv, DELTA_CHUNK, d] each), `T·diag(β)` and the
    masked scores ([chunks, hv, DELTA_CHUNK, DELTA_CHUNK] each), and the cumulative decays ([chunks, hv,
    DELTA_CHUNK])."""
    c = DELTA_CHUNK
    return [chunks * hv * c * d, chunks * hv * c * d, chunks * hv * c * c, chunks * hv * c * c, chunks * hv * c]


def attn_i8_scratch(length: int, kv_heads: int, hd: int, vd: int) -> list[int]:
    """The bytes of an attention in two words' scratch over a cache of `length` rows of `kv_heads` heads: every key
    row's high and low words ([2, length, kv_heads, hd] int8), every value row's ([2, length, kv_heads, vd] int8), and
    each row's two scales, its key's and its value's ([length, kv_heads, 2] f32)."""
    return [2 * length * kv_heads * hd, 2 * length * kv_heads * vd, length * kv_heads * 2 * 4]


def argmax_blocks(n: int) -> int:
    """The blocks an arg-max over rows of `n` values takes each row in."""
    return cdiv(n, ARGMAX_BLOCK)


def accumulator(numerics: Numerics) -> tuple[int, str]:
    """The bytes and element type of a partial sum the kernels keep (an attention's chunk partials, a mixture's
    weighed rows): f32 under every numerics (lanearena's kernels accumulate int8 dots in f32 too)."""
    return 4, "f32"


def gemm_rows(rows: int, numerics: Numerics) -> int:
    """Activation rows a projection's tile on the tensor cores covers: the batch, at most `GEMM_ROWS`."""
    return min(rows, GEMM_ROWS)


def gemm_tiles_wide(n: int) -> int:
    """Tiles across the `n` columns of sums of a projection on the tensor cores: its outputs, or a gated pair's gate
    and up sums (2 x its outputs; a tile holds both sums of GEMM_TILE_N / 2 outputs)."""
    return cdiv(n, GEMM_TILE_N)


# --- Predicates: what decides which of the seed's arms a launch takes --------------------------------------------


def delta_in_chunks(rows: int) -> bool:
    """The gated delta rule runs in chunks over a prefill chunk's rows, stepped a row at a time over one row."""
    return rows > 1


def multiplies_in_tiles(numerics: Numerics) -> bool:
    """The f32 product cut along k (`gemv` over f32 activations: f32 or bf16 numerics) meets its parts in 64 x 64
    tiles: always."""
    return not numerics.quantized


def attends_in_tiles() -> bool:
    """No attention kernel of lanearena works in tiles (the seed's tiled attention keeps no chunk partials)."""
    return False


# The remaining predicates of the seed (`on_tensor_cores`, `pairs_gate_and_up`, `attends_in_two_words`,
# `batch_on_tensor_cores`, `finished_mixture`) are the launch's kind and parameters in lanearena: a projection on the
# tensor cores is a `gemm_tc` or `glu_tc` launch (a batch's gated pair: `glu_tc` over more than one row, uncut); a
# mixture's `tc` and `paired` parameters; an attention in two words is `attention_i8x2`; a fused launch names its
# parts in its kind (`gather_norm`, `gemv_rope`, `gemv_norm`, `moe_add`, `moe_add_norm`).
