// RUN: lanearena-opt %s --split-input-file --allow-unregistered-dialect -p 'memref-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena-opt %s --split-input-file --allow-unregistered-dialect -p 'memref-arena-place{algorithm=greedy awaited="nvgpu.device_async_copy","nvgpu.device_async_wait"}' | filecheck %s --check-prefix=OPTION

// When an asynchronous use ends (lanearena/memref/uses.py's table): a DMA at the wait on its tag, an async gpu op
// where its token is awaited in its block, directly or through a chain of tokens; a use that nothing in its block
// ends keeps its buffer out of the arena (`async: ...`). test/filecheck/memref/run/{dma,gpu_async}.mlir run such
// functions before and after placement.

// The issue's DMA: %tmp, allocated while the DMA reads %src, does not take its bytes; %after, first used after
// the wait, does.
func.func @dma(%out: memref<16xf32, 1>, %n: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %src = memref.alloc() : memref<16xf32>
  %tag = memref.alloc() : memref<1xi32>
  memref.store %one, %src[%c0] : memref<16xf32>
  "memref.dma_start"(%src, %c0, %out, %c0, %n, %tag, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<16xf32, 1>, index, index, memref<1xi32>, index) -> ()
  %tmp = memref.alloc() : memref<16xf32>
  memref.store %one, %tmp[%c0] : memref<16xf32>
  "memref.dma_wait"(%tag, %c0, %n) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<1xi32>, index, index) -> ()
  %after = memref.alloc() : memref<16xf32>
  memref.store %one, %after[%c0] : memref<16xf32>
  func.return
}

// CHECK-LABEL: func.func @dma
// CHECK:         %src_offset = arith.constant 0 : index
// CHECK:         %tag_offset = arith.constant 256 : index
// CHECK:         %tmp_offset = arith.constant 512 : index
// CHECK:         memref.dma_wait
// CHECK:         %after_offset = arith.constant 0 : index

// -----

// Two DMAs on two elements of one tag: the wait on element 1 (a constant of the same value, another SSA value)
// ends the second only; the first lives to the wait on element 0. A DMA no wait in its block ends keeps its
// buffers out, and so does one whose wait is only inside a branch.
func.func @tags(%out: memref<16xf32, 1>, %n: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %tag = memref.alloc() : memref<2xi32>
  %first = memref.alloc() : memref<16xf32>
  %second = memref.alloc() : memref<16xf32>
  memref.store %one, %first[%c0] : memref<16xf32>
  memref.store %one, %second[%c0] : memref<16xf32>
  "memref.dma_start"(%first, %c0, %out, %c0, %n, %tag, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<16xf32, 1>, index, index, memref<2xi32>, index) -> ()
  "memref.dma_start"(%second, %c0, %out, %c0, %n, %tag, %c1) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<16xf32, 1>, index, index, memref<2xi32>, index) -> ()
  %also1 = arith.constant 1 : index
  "memref.dma_wait"(%tag, %also1, %n) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<2xi32>, index, index) -> ()
  %reuse = memref.alloc() : memref<16xf32>
  memref.store %one, %reuse[%c0] : memref<16xf32>
  "memref.dma_wait"(%tag, %c0, %n) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<2xi32>, index, index) -> ()
  %unwaited = memref.alloc() : memref<16xf32>
  "memref.dma_start"(%unwaited, %c0, %out, %c0, %n, %tag, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<16xf32, 1>, index, index, memref<2xi32>, index) -> ()
  scf.if %p {
    "memref.dma_wait"(%tag, %c0, %n) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<2xi32>, index, index) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @tags
// CHECK:         %tag = memref.alloc() {lanearena.own = "async: no memref.dma_wait on the tag of memref.dma_start in its block"} : memref<2xi32>
// CHECK:         %first_offset = arith.constant 0 : index
// CHECK:         %second_offset = arith.constant 256 : index
// CHECK:         %reuse_offset = arith.constant 256 : index
// CHECK:         %unwaited = memref.alloc() {lanearena.own = "async: no memref.dma_wait on the tag of memref.dma_start in its block"} : memref<16xf32>

// -----

// Tokens: awaited through a chain (`gpu.wait async`, a launch depending on it) by a `gpu.wait`, or by a
// synchronous op depending on them (`gpu.memcpy` without `async`); a token returned, awaited only in a branch, or
// yielded out of a loop ends nothing in its block.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<16xf32>) -> ()}> ({
    ^bb0(%m: memref<16xf32>):
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.kernel} : () -> ()
  }) : () -> ()
  func.func @tokens(%p: i1, %host: memref<16xf32>) -> !gpu.async.token {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %f = arith.constant 1.0 : f32
    %chained = memref.alloc() : memref<16xf32>
    %t1 = "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %chained) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<16xf32>) -> !gpu.async.token
    %t2 = "gpu.wait"(%t1) : (!gpu.async.token) -> !gpu.async.token
    %t3 = "gpu.launch_func"(%t2, %c1, %c1, %c1, %c1, %c1, %c1, %host) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (!gpu.async.token, index, index, index, index, index, index, memref<16xf32>) -> !gpu.async.token
    %during = memref.alloc() : memref<16xf32>
    memref.store %f, %during[%c0] : memref<16xf32>
    "gpu.wait"(%t3) : (!gpu.async.token) -> ()
    %copied = memref.alloc() : memref<16xf32>
    %t4 = "gpu.memcpy"(%copied, %host) {operandSegmentSizes = array<i32: 0, 1, 1>} : (memref<16xf32>, memref<16xf32>) -> !gpu.async.token
    "gpu.memcpy"(%t4, %host, %host) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!gpu.async.token, memref<16xf32>, memref<16xf32>) -> ()
    %after = memref.alloc() : memref<16xf32>
    memref.store %f, %after[%c0] : memref<16xf32>
    %branch = memref.alloc() : memref<16xf32>
    %t5 = "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %branch) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<16xf32>) -> !gpu.async.token
    scf.if %p {
      "gpu.wait"(%t5) : (!gpu.async.token) -> ()
    }
    %t0 = "gpu.wait"() : () -> !gpu.async.token
    %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %t0) -> (!gpu.async.token) {
      %looped = memref.alloc() : memref<16xf32>
      %t6 = "gpu.launch_func"(%t, %c1, %c1, %c1, %c1, %c1, %c1, %looped) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (!gpu.async.token, index, index, index, index, index, index, memref<16xf32>) -> !gpu.async.token
      scf.yield %t6 : !gpu.async.token
    }
    %returned = memref.alloc() : memref<16xf32>
    %t7 = "gpu.launch_func"(%last, %c1, %c1, %c1, %c1, %c1, %c1, %returned) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (!gpu.async.token, index, index, index, index, index, index, memref<16xf32>) -> !gpu.async.token
    func.return %t7 : !gpu.async.token
  }
}

// %chained lives to the gpu.wait on %t3, over %during; %copied to the synchronous memcpy that depends on %t4, so
// %after takes its bytes.
// CHECK-LABEL: func.func @tokens
// CHECK:         %chained_offset = arith.constant 0 : index
// CHECK:         %during_offset = arith.constant 256 : index
// CHECK:         "gpu.wait"(%t3)
// CHECK:         %copied_offset = arith.constant 0 : index
// CHECK:         %after_offset = arith.constant 0 : index
// CHECK:         %branch = memref.alloc() {lanearena.own = "async: the token of gpu.launch_func is not awaited in its block"}
// CHECK:         %looped = memref.alloc() {lanearena.own = "async: the token of gpu.launch_func is not awaited in its block"}
// CHECK:         %returned = memref.alloc() {lanearena.own = "async: the token of gpu.launch_func is not awaited in its block"}

// -----

// A pipeline's own asynchronous ops: an unregistered op the table does not list may be a terminator, so the buffer
// may escape through it; listed in the `awaited` option, its use lasts until its token is awaited. A region op the table does not
// list may run its region after it returns.
func.func @own_ops() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %src = memref.alloc() : memref<16xf32>
  %dst = memref.alloc() : memref<16xf32>
  memref.store %f, %src[%c0] : memref<16xf32>
  %t = "nvgpu.device_async_copy"(%dst, %src) : (memref<16xf32>, memref<16xf32>) -> !nvgpu.device.async.token
  %during = memref.alloc() : memref<16xf32>
  memref.store %f, %during[%c0] : memref<16xf32>
  "nvgpu.device_async_wait"(%t) : (!nvgpu.device.async.token) -> ()
  %after = memref.alloc() : memref<16xf32>
  memref.store %f, %after[%c0] : memref<16xf32>
  %inside = memref.alloc() : memref<16xf32>
  %e = "async.execute"() ({
    memref.store %f, %inside[%c0] : memref<16xf32>
    "async.yield"() : () -> ()
  }) : () -> !async.token
  func.return
}

// CHECK-LABEL: func.func @own_ops
// CHECK:         %src = memref.alloc() {lanearena.own = "escapes through nvgpu.device_async_copy"}
// CHECK:         %dst = memref.alloc() {lanearena.own = "escapes through nvgpu.device_async_copy"}
// CHECK:         %inside = memref.alloc() {lanearena.own = "async: used inside async.execute, whose regions may run after it returns"}

// OPTION-LABEL: func.func @own_ops
// OPTION:         %src_offset = arith.constant 0 : index
// OPTION:         %dst_offset = arith.constant 256 : index
// OPTION:         %during_offset = arith.constant 512 : index
// OPTION:         "nvgpu.device_async_wait"
// OPTION:         %after_offset = arith.constant 0 : index
// OPTION:         %inside = memref.alloc() {lanearena.own = "async: used inside async.execute, whose regions may run after it returns"}
