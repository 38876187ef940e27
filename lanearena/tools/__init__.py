"""Command-line drivers for standard MLIR files: `lanearena-opt` (xdsl-opt with lanearena's dialects and passes and
located errors) and `lanearena-run` (xdsl-run over byte-backed memrefs)."""
