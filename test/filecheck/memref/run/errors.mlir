// RUN: not lanearena-run %s --symbol oob 2>&1 | filecheck %s --check-prefix=OOB
// RUN: not lanearena-run %s --symbol view 2>&1 | filecheck %s --check-prefix=VIEW
// RUN: not lanearena-run %s 2>&1 | filecheck %s --check-prefix=MAIN
// RUN: lanearena-run %s --symbol fine | filecheck %s --check-prefix=FINE

// A failure while running is one line at the op that failed, and exit status 1.

// OOB: errors.mlir:[[# @LINE + 5]]:3: error: while running @oob: 'memref.load': index [9] lies outside a memref of shape [4]
func.func @oob() {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %a = memref.alloc() : memref<4xf32>
  %x = memref.load %a[%c9] : memref<4xf32>
  func.return
}

// VIEW: errors.mlir:[[# @LINE + 4]]:3: error: while running @view: 'memref.view': memref.view of 16 bytes at byte 8 lies outside its source
func.func @view() {
  %bytes = memref.alloc() : memref<16xi8>
  %c8 = arith.constant 8 : index
  %v = memref.view %bytes[%c8][] : memref<16xi8> to memref<4xf32>
  func.return
}

// MAIN: errors.mlir: error: while running @main: Could not find symbol main

// FINE: 2.5
func.func @fine() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 2.5 : f32
  %a = memref.alloc() : memref<1xf32>
  memref.store %f, %a[%c0] : memref<1xf32>
  %x = memref.load %a[%c0] : memref<1xf32>
  printf.print_format "{}\n", %x : f32
  func.return
}
