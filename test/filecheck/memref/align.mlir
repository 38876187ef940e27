// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy align=4}' | filecheck %s

// With align=4 every offset is a multiple of 4 and every size is rounded up to it: f32 and i8 buffers go in, an f64
// buffer (8-byte elements) and one asking for 16-byte alignment keep their own. %a lives over %b's life.

func.func @f(%x: f32, %y: f64, %z: i8) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<3xf32>
  %b = memref.alloc() : memref<5xi8>
  %d = memref.alloc() : memref<2xf64>
  %e = memref.alloc() {alignment = 16 : i64} : memref<2xf32>
  memref.store %x, %a[%c0] : memref<3xf32>
  memref.store %z, %b[%c0] : memref<5xi8>
  memref.store %y, %d[%c0] : memref<2xf64>
  memref.store %x, %e[%c0] : memref<2xf32>
  memref.store %x, %a[%c0] : memref<3xf32>
  func.return
}

// CHECK:      %arena = memref.alloc() {alignment = 4 : i64, lanearena.bytes = 20 : i64, lanearena.lower_bound = 20 : i64, lanearena.algorithm = "greedy"} : memref<20xi8>
// CHECK:      %d = memref.alloc() {lanearena.own = "alignment 8 does not divide the arena's 4"} : memref<2xf64>
// CHECK-NEXT: %e = memref.alloc() {alignment = 16 : i64, lanearena.own = "alignment 16 does not divide the arena's 4"} : memref<2xf32>
// CHECK-NEXT: %a_offset = arith.constant 0 : index
// CHECK:      %b_offset = arith.constant 12 : index
// CHECK-NEXT: %b = memref.view %arena[%b_offset][] : memref<20xi8> to memref<5xi8>
