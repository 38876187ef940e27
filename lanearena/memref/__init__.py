"""Arena placement for standard MLIR: `memref.alloc`s in `func.func`s (`uses`: when a use ends, `lifetimes`: the
lives, `place`: the `memref-arena-place` pass, `interpret`: byte-backed memrefs for xDSL's interpreter, `inflight`:
asynchronous gpu ops and DMAs, checked while in flight)."""
