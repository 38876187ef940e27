// Three 4x4 matmuls in a chain, written with scf loops over memrefs (no linalg): each hidden buffer lives from its
// allocation to the next matmul, so memref-arena-place lets the chain reuse two slots beside the weights.
//   lanearena-opt examples/memref.mlir -p memref-arena-place
//   lanearena-run examples/memref.mlir

func.func private @init(%m: memref<4x4xf32>, %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %ij = arith.addi %i, %j : index
      %n = arith.index_cast %ij : index to i32
      %f = arith.sitofp %n : i32 to f32
      %v = arith.mulf %f, %scale : f32
      memref.store %v, %m[%i, %j] : memref<4x4xf32>
    }
  }
  func.return
}

func.func private @matmul(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %a[%i, %k] : memref<4x4xf32>
        %y = memref.load %b[%k, %j] : memref<4x4xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %c[%i, %j] : memref<4x4xf32>
    }
  }
  func.return
}

func.func @main() {
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %w = memref.alloc() : memref<4x4xf32>
  func.call @init(%w, %quarter) : (memref<4x4xf32>, f32) -> ()
  %x = memref.alloc() : memref<4x4xf32>
  func.call @init(%x, %half) : (memref<4x4xf32>, f32) -> ()
  %h1 = memref.alloc() : memref<4x4xf32>
  func.call @matmul(%x, %w, %h1) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %x : memref<4x4xf32>
  %h2 = memref.alloc() : memref<4x4xf32>
  func.call @matmul(%h1, %w, %h2) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %h1 : memref<4x4xf32>
  %h3 = memref.alloc() : memref<4x4xf32>
  func.call @matmul(%h2, %w, %h3) : (memref<4x4xf32>, memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %h2 : memref<4x4xf32>
  %row = memref.subview %h3[2, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: 8>>
  printf.print_format "row 2: {}\n", %row : memref<4xf32, strided<[1], offset: 8>>
  %flat = memref.collapse_shape %h3 [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  printf.print_format "all: {}\n", %flat : memref<16xf32>
  memref.dealloc %h3 : memref<4x4xf32>
  memref.dealloc %w : memref<4x4xf32>
  func.return
}
