// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena-run %s | filecheck %s --check-prefix=OUT
// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy}' | lanearena-run | filecheck %s --check-prefix=OUT

// An accumulator live across a loop, and a scratch buffer allocated in the loop's body: the scratch lives within one
// iteration, so it may share bytes with buffers dead before the loop, never with the accumulator.

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %init = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %f = arith.index_cast %i : index to i32
    %g = arith.sitofp %f : i32 to f32
    memref.store %g, %init[%i] : memref<4xf32>
  }
  %acc = memref.alloc() : memref<4xf32>
  "memref.copy"(%init, %acc) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %init : memref<4xf32>
  scf.for %k = %c0 to %c3 step %c1 {
    %tmp = memref.alloc() : memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %acc[%i] : memref<4xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tmp[%i] : memref<4xf32>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %y = memref.load %tmp[%i] : memref<4xf32>
      memref.store %y, %acc[%i] : memref<4xf32>
    }
    memref.dealloc %tmp : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %acc[%i] : memref<4xf32>
    printf.print_format "{}\n", %x : f32
  }
  memref.dealloc %acc : memref<4xf32>
  func.return
}

// CHECK:      func.func @main() {
// CHECK-NEXT:   %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 512 : i64, lanearena.lower_bound = 512 : i64, lanearena.algorithm = "greedy"} : memref<512xi8>
// CHECK:        %init_offset = arith.constant 0 : index
// CHECK-NEXT:   %init = memref.view %arena[%init_offset][] : memref<512xi8> to memref<4xf32>
// CHECK:        %acc_offset = arith.constant 256 : index
// CHECK-NEXT:   %acc = memref.view %arena[%acc_offset][] : memref<512xi8> to memref<4xf32>
// CHECK-NEXT:   "memref.copy"(%init, %acc)
// CHECK-NEXT:   scf.for
// CHECK-NEXT:     %tmp_offset = arith.constant 0 : index
// CHECK-NEXT:     %tmp = memref.view %arena[%tmp_offset][] : memref<512xi8> to memref<4xf32>
// CHECK-NOT:    memref.dealloc %{{init|acc|tmp}}
// CHECK:        memref.dealloc %arena : memref<512xi8>
// CHECK-NEXT:   func.return

// OUT:      0.0
// OUT-NEXT: 8.0
// OUT-NEXT: 16.0
// OUT-NEXT: 24.0
