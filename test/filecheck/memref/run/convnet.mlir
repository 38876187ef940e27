// RUN: lanearena-run %S/../../../../examples/memref_convnet.mlir > %t.before
// RUN: lanearena-opt %S/../../../../examples/memref_convnet.mlir -p memref-arena-place | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before --check-prefix=OUT
// RUN: filecheck %s --input-file=%t.placed

// The bufferized network of examples/memref_convnet.mlir: 21 buffers of 4800 bytes (8448 rounded to 256 each), all
// allocated at the top. Living from their first uses they fit in an arena at the lower bound, 2304 bytes (lives
// from the allocations overlap all at once: 8448), and the network prints the same placed.

// OUT:      pooled maxima [1.5, 2.25, 2.0, 0.625]
// OUT-NEXT: scores [[0.05846581235527992], [0.173197403550148], [0.1562187522649765], [0.0], [0.057346876710653305], [0.2055438756942749], [0.1014556959271431], [0.028022076934576035], [0.11680729687213898], [0.10294221341609955]]

// CHECK:     %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 2304 : i64, lanearena.lower_bound = 2304 : i64
// CHECK-NOT: lanearena.own
// CHECK-NOT: memref.alloc()
// CHECK:     memref.dealloc %arena : memref<2304xi8>
// CHECK-NOT: memref.dealloc
