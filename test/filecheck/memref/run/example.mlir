// RUN: lanearena-run %S/../../../../examples/memref.mlir > %t.before
// RUN: lanearena-opt %S/../../../../examples/memref.mlir -p memref-arena-place | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before --check-prefix=OUT
// RUN: filecheck %s --input-file=%t.placed

// docs/mlir.md's example: a chain of matmuls whose hidden buffers are short-lived, placed at the lower bound (the
// weights and two hidden buffers), printing what it printed before.

// OUT: row 2: [37.0625, 56.875, 76.6875, 96.5]
// OUT: all: [17.9375, 27.5, 37.0625, 46.625, 27.5, 42.1875, 56.875, 71.5625, 37.0625, 56.875, 76.6875, 96.5, 46.625, 71.5625, 96.5, 121.4375]

// CHECK: %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 768 : i64, lanearena.lower_bound = 768 : i64
