// RUN: lanearena-run %s | filecheck %s
// RUN: lanearena-opt %s -p memref-arena-place | lanearena-run | filecheck %s

// lanearena-run follows MLIR's lowering of the alias ops on a `memref.view`: the view's byte shift goes into the
// aligned pointer of its descriptor, `subview`, `collapse_shape`, `expand_shape` and `cast` keep that pointer (and
// an offset from it), and `reinterpret_cast` sets a new offset from it. So every offset below counts from the view's
// start (byte 256 of %bytes), never from the allocation's (whose bytes 0-255 hold poison, NaN).

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %at = arith.constant 256 : index
  %bytes = memref.alloc() : memref<512xi8>
  %v = memref.view %bytes[%at][] : memref<512xi8> to memref<2x4xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %row = arith.muli %i, %c4 : index
      %n = arith.addi %row, %j : index
      %ni = arith.index_cast %n : index to i32
      %f = arith.sitofp %ni : i32 to f32
      memref.store %f, %v[%i, %j] : memref<2x4xf32>
    }
  }
  %r = memref.reinterpret_cast %v to offset: [3], sizes: [2], strides: [1] : memref<2x4xf32> to memref<2xf32, strided<[1], offset: 3>>
  printf.print_format "reinterpret_cast of the view at 3: {}\n", %r : memref<2xf32, strided<[1], offset: 3>>
  %s = memref.subview %v[1, 1] [1, 2] [1, 1] : memref<2x4xf32> to memref<2xf32, strided<[1], offset: 5>>
  printf.print_format "subview at 5: {}\n", %s : memref<2xf32, strided<[1], offset: 5>>
  %rs = memref.reinterpret_cast %s to offset: [1], sizes: [2], strides: [4] : memref<2xf32, strided<[1], offset: 5>> to memref<2xf32, strided<[4], offset: 1>>
  printf.print_format "reinterpret_cast of the subview at 1, stride 4: {}\n", %rs : memref<2xf32, strided<[4], offset: 1>>
  %flat = memref.collapse_shape %v [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %rc = memref.reinterpret_cast %flat to offset: [6], sizes: [2], strides: [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: 6>>
  printf.print_format "reinterpret_cast of collapse_shape at 6: {}\n", %rc : memref<2xf32, strided<[1], offset: 6>>
  %cube = memref.expand_shape %v [[0], [1, 2]] output_shape [2, 2, 2] : memref<2x4xf32> into memref<2x2x2xf32>
  %re = memref.reinterpret_cast %cube to offset: [2], sizes: [3], strides: [2] : memref<2x2x2xf32> to memref<3xf32, strided<[2], offset: 2>>
  printf.print_format "reinterpret_cast of expand_shape at 2, stride 2: {}\n", %re : memref<3xf32, strided<[2], offset: 2>>
  %any = "memref.cast"(%v) : (memref<2x4xf32>) -> memref<?x4xf32>
  %rk = memref.reinterpret_cast %any to offset: [7], sizes: [1], strides: [1] : memref<?x4xf32> to memref<1xf32, strided<[1], offset: 7>>
  printf.print_format "reinterpret_cast of cast at 7: {}\n", %rk : memref<1xf32, strided<[1], offset: 7>>
  func.return
}

// CHECK:      reinterpret_cast of the view at 3: [3.0, 4.0]
// CHECK-NEXT: subview at 5: [5.0, 6.0]
// CHECK-NEXT: reinterpret_cast of the subview at 1, stride 4: [1.0, 5.0]
// CHECK-NEXT: reinterpret_cast of collapse_shape at 6: [6.0, 7.0]
// CHECK-NEXT: reinterpret_cast of expand_shape at 2, stride 2: [2.0, 4.0, 6.0]
// CHECK-NEXT: reinterpret_cast of cast at 7: [7.0]
