// RUN: lanearena-run %s > %t.before
// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy}' | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before --check-prefix=OUT
// RUN: filecheck %s --input-file=%t.placed

// Allocations hoisted to the top of the function, as loop fusion and buffer hoisting leave them: each buffer lives
// from its first use (the loop nest that first writes it), not from its `memref.alloc`, so a chain of five 256-byte
// buffers shares two slots (512 bytes, where lives from the allocations would need 1280). The view of each is made
// just before the op of the function's block that holds its first use: before the loop nest, so that it dominates
// every use in it.

func.func @main() {
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8x8xf32>
  %b = memref.alloc() : memref<8x8xf32>
  %c = memref.alloc() : memref<8x8xf32>
  %d = memref.alloc() : memref<8x8xf32>
  %e = memref.alloc() : memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %n = arith.index_cast %j : index to i32
      %f = arith.sitofp %n : i32 to f32
      affine.store %f, %a[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<8x8xf32>
      %y = arith.addf %x, %one : f32
      affine.store %y, %b[%j, %i] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %b[%i, %j] : memref<8x8xf32>
      %y = arith.mulf %x, %x : f32
      affine.store %y, %c[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %c[%i, %j] : memref<8x8xf32>
      %y = affine.load %c[%j, %i] : memref<8x8xf32>
      %s = arith.addf %x, %y : f32
      affine.store %s, %d[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %d[%i, %j] : memref<8x8xf32>
      %y = arith.subf %x, %one : f32
      affine.store %y, %e[%i, %j] : memref<8x8xf32>
    }
  }
  %row = memref.subview %e[3, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1], offset: 24>>
  printf.print_format "e[3] {}\n", %row : memref<8xf32, strided<[1], offset: 24>>
  memref.dealloc %a : memref<8x8xf32>
  memref.dealloc %b : memref<8x8xf32>
  memref.dealloc %c : memref<8x8xf32>
  memref.dealloc %d : memref<8x8xf32>
  memref.dealloc %e : memref<8x8xf32>
  func.return
}

// e[i][j] = (i + 1)^2 + (j + 1)^2 - 1
// OUT: e[3] [16.0, 19.0, 24.0, 31.0, 40.0, 51.0, 64.0, 79.0]

// CHECK:      %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 512 : i64, lanearena.lower_bound = 512 : i64
// CHECK-NEXT: %one = arith.constant
// CHECK-NEXT: %a_offset = arith.constant 0 : index
// CHECK-NEXT: %a = memref.view %arena[%a_offset][] : memref<512xi8> to memref<8x8xf32>
// CHECK-NEXT: affine.for
// CHECK:      %b_offset = arith.constant 256 : index
// CHECK-NEXT: %b = memref.view
// CHECK-NEXT: affine.for
// CHECK:      %c_offset = arith.constant 0 : index
// CHECK:      %d_offset = arith.constant 256 : index
// CHECK:      %e_offset = arith.constant 0 : index
