// RUN: lanearena-run %s > %t.before
// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy}' | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before --check-prefix=OUT
// RUN: filecheck %s --input-file=%t.placed

// The identity written out is the identity: an affine map (d0, d1) -> (d0, d1), row-major strides at offset 0,
// and memory space 0 (which MLIR drops) go into the arena. memref.view
// gives no layout or memory space, so a memref.cast gives back the type written. A layout that is not the
// identity, or another memory space, keeps its own.

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %map = memref.alloc() : memref<2x2xf32, affine_map<(d0, d1) -> (d0, d1)>>
  %strided = memref.alloc() : memref<2x3xf32, strided<[3, 1]>>
  %space = memref.alloc() : memref<4xf32, 0>
  %transposed = memref.alloc() : memref<2x2xf32, strided<[1, 2]>>
  %far = memref.alloc() : memref<4xf32, 1>
  %unit = memref.alloc() : memref<2x1xf32, strided<[1, 7]>>
  memref.store %two, %map[%c1, %c0] : memref<2x2xf32, affine_map<(d0, d1) -> (d0, d1)>>
  memref.store %three, %strided[%c1, %c2] : memref<2x3xf32, strided<[3, 1]>>
  memref.store %two, %space[%c3] : memref<4xf32, 0>
  memref.store %three, %transposed[%c0, %c1] : memref<2x2xf32, strided<[1, 2]>>
  memref.store %two, %far[%c0] : memref<4xf32, 1>
  memref.store %two, %unit[%c0, %c0] : memref<2x1xf32, strided<[1, 7]>>
  %a = memref.load %map[%c1, %c0] : memref<2x2xf32, affine_map<(d0, d1) -> (d0, d1)>>
  %b = memref.load %strided[%c1, %c2] : memref<2x3xf32, strided<[3, 1]>>
  %c = memref.load %space[%c3] : memref<4xf32, 0>
  %d = memref.load %transposed[%c0, %c1] : memref<2x2xf32, strided<[1, 2]>>
  printf.print_format "{} {} {} {}\n", %a : f32, %b : f32, %c : f32, %d : f32
  func.return
}

// OUT: 2.0 3.0 2.0 3.0

// CHECK:      %transposed = memref.alloc() {lanearena.own = "a layout other than the identity"} : memref<2x2xf32, strided<[1, 2]>>
// CHECK-NEXT: %far = memref.alloc() {lanearena.own = "a memory space other than the default"} : memref<4xf32, 1 : i64>
// CHECK-NEXT: %unit = memref.alloc() {lanearena.own = "a layout other than the identity"} : memref<2x1xf32, strided<[1, 7]>>
// CHECK-NEXT: %map_offset = arith.constant {{[0-9]+}} : index
// CHECK-NEXT: %map_bytes = memref.view %arena[%map_offset][] : memref<768xi8> to memref<2x2xf32>
// CHECK-NEXT: %map = "memref.cast"(%map_bytes) : (memref<2x2xf32>) -> memref<2x2xf32, affine_map<(d0, d1) -> (d0, d1)>>
// CHECK:      %strided = "memref.cast"(%strided_bytes) : (memref<2x3xf32>) -> memref<2x3xf32, strided<[3, 1]>>
// CHECK:      %space = "memref.cast"(%space_bytes) : (memref<4xf32>) -> memref<4xf32, 0 : i64>
