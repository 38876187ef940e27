// RUN: lanearena-run %s > %t.before
// RUN: lanearena-opt %s -p 'memref-arena-place{align=64}' | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before
// RUN: filecheck %s --input-file=%t.placed --check-prefix=PLACED

// Every alias op the pass follows, run over shared bytes: a buffer written through one alias reads back through
// another, before and after placement (align=64).

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %bytes = memref.alloc() : memref<48xi8>
  %m = memref.view %bytes[%c0][] : memref<48xi8> to memref<2x6xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      %k = arith.muli %i, %c6 : index
      %ij = arith.addi %k, %j : index
      %n = arith.index_cast %ij : index to i32
      %f = arith.sitofp %n : i32 to f32
      memref.store %f, %m[%i, %j] : memref<2x6xf32>
    }
  }
  %flat = memref.collapse_shape %m [[0, 1]] : memref<2x6xf32> into memref<12xf32>
  printf.print_format "flat {}\n", %flat : memref<12xf32>
  %cube = memref.expand_shape %flat [[0, 1, 2]] output_shape [3, 2, 2] : memref<12xf32> into memref<3x2x2xf32>
  printf.print_format "cube {}\n", %cube : memref<3x2x2xf32>
  %cols = memref.subview %m[0, 1] [2, 3] [1, 2] : memref<2x6xf32> to memref<2x3xf32, strided<[6, 2], offset: 1>>
  printf.print_format "odd columns {}\n", %cols : memref<2x3xf32, strided<[6, 2], offset: 1>>
  %t = memref.reinterpret_cast %flat to offset: [0], sizes: [6, 2], strides: [1, 6] : memref<12xf32> to memref<6x2xf32, strided<[1, 6]>>
  printf.print_format "transposed {}\n", %t : memref<6x2xf32, strided<[1, 6]>>
  %any = "memref.cast"(%m) : (memref<2x6xf32>) -> memref<?x6xf32>
  %x = memref.load %any[%c1, %c2] : memref<?x6xf32>
  printf.print_format "m[1, 2] {}\n", %x : f32
  %other = memref.alloc() : memref<3xi64>
  %v = arith.constant 7 : i64
  memref.store %v, %other[%c2] : memref<3xi64>
  %w = memref.load %other[%c2] : memref<3xi64>
  printf.print_format "other {}\n", %w : i64
  func.return
}

// CHECK:      flat [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
// CHECK-NEXT: cube [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]]]
// CHECK-NEXT: odd columns [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]]
// CHECK-NEXT: transposed [[0.0, 6.0], [1.0, 7.0], [2.0, 8.0], [3.0, 9.0], [4.0, 10.0], [5.0, 11.0]]
// CHECK-NEXT: m[1, 2] 8.0
// CHECK-NEXT: other 7

// %bytes lives through the last use of any alias of it (the load through %any), and %other, allocated after that,
// takes its bytes.
// PLACED:      %arena = memref.alloc() {alignment = 64 : i64, lanearena.bytes = 64 : i64, lanearena.lower_bound = 64 : i64
// PLACED:      %bytes_offset = arith.constant 0 : index
// PLACED:      %x = memref.load %any[%c1, %c2]
// PLACED:      %other_offset = arith.constant 0 : index
