"""Arena placement for standard MLIR: `memref.alloc`s in `func.func`s (`lifetimes`: the lives, `place`: the
`memref-arena-place` pass, `interpret`: byte-backed memrefs for xDSL's interpreter)."""
