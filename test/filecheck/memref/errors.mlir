// RUN: lanearena-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not lanearena-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: not lanearena-opt %s -p 'memref-arena-place{align=0}' 2>&1 | filecheck %s --check-prefix=ALIGN
// RUN: not lanearena-opt %s -p 'memref-arena-place{align=48}' 2>&1 | filecheck %s --check-prefix=ALIGN48
// RUN: not lanearena-opt %s -p 'memref-arena-place{algorithm=fast}' 2>&1 | filecheck %s --check-prefix=ALGORITHM
// RUN: not lanearena-opt %s -p 'memref-arena-place{size=3}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not lanearena-opt %s -p 'memref-arena-place{align=' 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: not lanearena-opt %s -p 'no-such-pass' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not lanearena-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING

// Every malformed input is one located line (`file:line:col: error: ...`) and exit status 1; with
// --verify-diagnostics the lines go to stdout and the status is 0. Lines count from the top of the file in every
// chunk.

// ALIGN: lanearena-opt: error: bad pass pipeline: memref-arena-place: align must be a power of two, not 0
// ALIGN48: lanearena-opt: error: bad pass pipeline: memref-arena-place: align must be a power of two, not 48
// ALGORITHM: lanearena-opt: error: bad pass pipeline: memref-arena-place: unknown algorithm 'fast' (one of best, greedy, best-fit, portfolio)
// OPTION: lanearena-opt: error: bad pass pipeline: {{.*}}["size"] not found in expected arguments
// SPEC: lanearena-opt: error: bad pass pipeline: Error parsing pass pipeline specification
// PASS: lanearena-opt: error: bad pass pipeline: Unrecognized passes: ['no-such-pass']
// MISSING: lanearena-opt: error: No such file or directory: {{.*}}errors.mlir.missing

// CHECK: errors.mlir:[[# @LINE + 4]]:3: error: 'memref.load' op expected an index for each dimension
func.func @rank() {
  %a = memref.alloc() : memref<4x4xf32>
  %c = arith.constant 0 : index
  %v = memref.load %a[%c] : memref<4x4xf32>
  func.return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: 'func.return' op Expected arguments to have the same types as the function output types: expected [], got [f32]
func.func @result() {
  %f = arith.constant 1.0 : f32
  func.return %f : f32
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:1: error: Expected '>' after builtin parameter list
func.func @syntax() {
  %a = memref.alloc() : memref<4xf32
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:18: error: use of undeclared value `%nope`
func.func @undefined() {
  memref.dealloc %nope : memref<4xf32>
  func.return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:23: error: Operation memref.allocate is not registered
func.func @unknown() {
  %a = memref.allocate() : memref<4xf32>
  func.return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: 'memref.alloc' op op dimension operand count does not equal memref dynamic dimension count.
func.func @sizes() {
  %a = memref.alloc() : memref<?xf32>
  func.return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 4]]:3: error: 'memref.view' op memref.view source must be a 1-D memref of i8
func.func @view() {
  %a = memref.alloc() : memref<4x4xi8>
  %c = arith.constant 0 : index
  %v = memref.view %a[%c][] : memref<4x4xi8> to memref<4xf32>
  func.return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 3]]:3: error: 'memref.load' op operand #0 (%late) does not dominate this use
func.func @dominance() {
  %c0 = arith.constant 0 : index
  %v = memref.load %late[%c0] : memref<4xf32>
  %late = memref.alloc() : memref<4xf32>
  func.return
}
