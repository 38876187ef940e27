// RUN: lanearena-run %s > %t.before
// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy}' | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before --check-prefix=OUT
// RUN: filecheck %s --input-file=%t.placed

// What `gpu-async-region` leaves in a CUDA pipeline: allocations hoisted to the top, kernels launched with
// `async` and chained by their tokens, the host waiting (`gpu.wait`) before it reads, an async copy and an async
// `gpu.launch` chained after it. A buffer an async op uses lives until the host awaits its token, through the
// chain: %a, last used by the second launch, lives until the first `gpu.wait`, so the host's scratch %h, written
// meanwhile, does not take its bytes; %d and %e, first used after that wait, may take the bytes of %a, %b or %h,
// never %c's (the copy reads %c until the second wait). lanearena-run runs each async op when issued and checks that
// nothing changed its bytes before it was awaited, so a placement that shared them fails there
// (test_memref_async.py breaks the rule on purpose and sees it).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    // m[i] = i + v over a grid of blocks of threads
    "gpu.func"() <{function_type = (memref<8xf32>, f32) -> ()}> ({
    ^bb0(%m: memref<8xf32>, %v: f32):
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %first = arith.muli %bid, %bdim : index
      %i = arith.addi %first, %tid : index
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %x = arith.addf %f, %v : f32
      memref.store %x, %m[%i] : memref<8xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "fill", gpu.kernel} : () -> ()
    // y[i] = 2 x[i]
    "gpu.func"() <{function_type = (memref<8xf32>, memref<8xf32>) -> ()}> ({
    ^bb0(%x: memref<8xf32>, %y: memref<8xf32>):
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %first = arith.muli %bid, %bdim : index
      %i = arith.addi %first, %tid : index
      %v = memref.load %x[%i] : memref<8xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %y[%i] : memref<8xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "double", gpu.kernel} : () -> ()
    // z[i] = x[i] + y[i]
    "gpu.func"() <{function_type = (memref<8xf32>, memref<8xf32>, memref<8xf32>) -> ()}> ({
    ^bb0(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>):
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %first = arith.muli %bid, %bdim : index
      %i = arith.addi %first, %tid : index
      %v = memref.load %x[%i] : memref<8xf32>
      %w = memref.load %y[%i] : memref<8xf32>
      %s = arith.addf %v, %w : f32
      memref.store %s, %z[%i] : memref<8xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "add", gpu.kernel} : () -> ()
  }) : () -> ()

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %half = arith.constant 0.5 : f32
    %a = memref.alloc() : memref<8xf32>
    %b = memref.alloc() : memref<8xf32>
    %c = memref.alloc() : memref<8xf32>
    %d = memref.alloc() : memref<8xf32>
    %e = memref.alloc() : memref<8xf32>
    %h = memref.alloc() : memref<8xf32>
    %t0 = "gpu.wait"() : () -> !gpu.async.token
    %t1 = "gpu.launch_func"(%t0, %c2, %c1, %c1, %c4, %c1, %c1, %a, %half) <{kernel = @kernels::@fill, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (!gpu.async.token, index, index, index, index, index, index, memref<8xf32>, f32) -> !gpu.async.token
    %t2 = "gpu.launch_func"(%t1, %c2, %c1, %c1, %c4, %c1, %c1, %a, %b) <{kernel = @kernels::@double, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (!gpu.async.token, index, index, index, index, index, index, memref<8xf32>, memref<8xf32>) -> !gpu.async.token
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %f2 = arith.mulf %f, %f : f32
      memref.store %f2, %h[%i] : memref<8xf32>
    }
    printf.print_format "h {}\n", %h : memref<8xf32>
    %t3 = "gpu.launch_func"(%t2, %c2, %c1, %c1, %c4, %c1, %c1, %b, %b, %c) <{kernel = @kernels::@add, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : (!gpu.async.token, index, index, index, index, index, index, memref<8xf32>, memref<8xf32>, memref<8xf32>) -> !gpu.async.token
    "gpu.wait"(%t3) : (!gpu.async.token) -> ()
    printf.print_format "c {}\n", %c : memref<8xf32>
    %t4 = "gpu.wait"() : () -> !gpu.async.token
    %t5 = "gpu.memcpy"(%t4, %d, %c) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!gpu.async.token, memref<8xf32>, memref<8xf32>) -> !gpu.async.token
    %t6 = "gpu.launch"(%t5, %c2, %c1, %c1, %c4, %c1, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
      %bn = arith.muli %bx, %sx : index
      %i = arith.addi %bn, %tx : index
      %v = memref.load %d[%i] : memref<8xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %e[%i] : memref<8xf32>
      "gpu.terminator"() : () -> ()
    }) : (!gpu.async.token, index, index, index, index, index, index) -> !gpu.async.token
    "gpu.wait"(%t6) : (!gpu.async.token) -> ()
    printf.print_format "e {}\n", %e : memref<8xf32>
    memref.dealloc %a : memref<8xf32>
    memref.dealloc %b : memref<8xf32>
    memref.dealloc %c : memref<8xf32>
    memref.dealloc %d : memref<8xf32>
    memref.dealloc %e : memref<8xf32>
    memref.dealloc %h : memref<8xf32>
    func.return
  }
}

// OUT:      h [0.0, 1.0, 4.0, 9.0, 16.0, 25.0, 36.0, 49.0]
// OUT-NEXT: c [2.0, 6.0, 10.0, 14.0, 18.0, 22.0, 26.0, 30.0]
// OUT-NEXT: e [4.0, 36.0, 100.0, 196.0, 324.0, 484.0, 676.0, 900.0]

// %a, %b and %h live at once; %c, first used by the third launch, takes %h's bytes; %d and %e take those of %a
// and %b, never %c's.
// CHECK:      %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 768 : i64, lanearena.lower_bound = 768 : i64
// CHECK:      %a_offset = arith.constant 0 : index
// CHECK:      %b_offset = arith.constant 256 : index
// CHECK:      %h_offset = arith.constant 512 : index
// CHECK:      %c_offset = arith.constant 512 : index
// CHECK:      "gpu.wait"(%t3)
// CHECK:      %d_offset = arith.constant 0 : index
// CHECK:      %e_offset = arith.constant 256 : index
// CHECK-NOT:  memref.dealloc %{{[a-h]}} :
// CHECK:      memref.dealloc %arena
