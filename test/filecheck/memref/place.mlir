// RUN: lanearena-opt %s --split-input-file --allow-unregistered-dialect -p 'memref-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena-opt %s --split-input-file --allow-unregistered-dialect -p 'memref-arena-place{algorithm=greedy},memref-arena-place' | filecheck %s
// RUN: xdsl-opt %s --split-input-file --allow-unregistered-dialect -p 'memref-arena-place{algorithm=greedy}' | filecheck %s

// What memref-arena-place places, where, and what it leaves alone and why (`lanearena.own`). Placing again
// changes nothing: an arena is never placed.

// A chain of short-lived buffers: each lives from its first use (not its allocation) to its last, so one at a time
// lives and all share offset 0; the view of each is made just before its first use.
func.func @chain(%n: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<128xf32>
  %c = memref.alloc() : memref<32xf32>
  %d = memref.alloc() : memref<64xf32>
  memref.store %n, %a[%c0] : memref<64xf32>
  %x = memref.load %a[%c0] : memref<64xf32>
  memref.store %x, %b[%c0] : memref<128xf32>
  %y = memref.load %b[%c0] : memref<128xf32>
  memref.store %y, %c[%c0] : memref<32xf32>
  %z = memref.load %c[%c0] : memref<32xf32>
  memref.store %z, %d[%c0] : memref<64xf32>
  %r = memref.load %d[%c0] : memref<64xf32>
  func.return %r : f32
}

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 512 : i64, lanearena.lower_bound = 512 : i64, lanearena.algorithm = "greedy"} : memref<512xi8>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a_offset = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.view %arena[%a_offset][] : memref<512xi8> to memref<64xf32>
// CHECK-NEXT:    memref.store %n, %a[%c0] : memref<64xf32>
// CHECK-NEXT:    %x = memref.load %a[%c0] : memref<64xf32>
// CHECK-NEXT:    %b_offset = arith.constant 0 : index
// CHECK-NEXT:    %b = memref.view %arena[%b_offset][] : memref<512xi8> to memref<128xf32>
// CHECK:         %c_offset = arith.constant 0 : index
// CHECK-NEXT:    %c = memref.view %arena[%c_offset][] : memref<512xi8> to memref<32xf32>
// CHECK:         %d_offset = arith.constant 0 : index
// CHECK-NEXT:    %d = memref.view %arena[%d_offset][] : memref<512xi8> to memref<64xf32>
// CHECK:         memref.dealloc %arena : memref<512xi8>
// CHECK-NEXT:    func.return %r : f32

// -----


// A use in a nested region is a use for the whole region op of the allocation's block, from its start.
func.func @nested(%p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.store %f, %b[%c0] : memref<16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %p {
      memref.store %f, %a[%i] : memref<16xf32>
    }
  }
  memref.store %f, %b[%c0] : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.store %f, %c[%c0] : memref<16xf32>
  func.return
}

// %a is used in an scf.if in an scf.for, so it lives over the whole loop, inside %b's life; its view is made just
// before the loop; %c may take the bytes of either.
// CHECK-LABEL: func.func @nested
// CHECK:         %b_offset = arith.constant 0 : index
// CHECK:         %a_offset = arith.constant 256 : index
// CHECK-NEXT:    %a = memref.view %arena[%a_offset][] : memref<512xi8> to memref<16xf32>
// CHECK-NEXT:    scf.for
// CHECK:         %c_offset = arith.constant 0 : index

// -----


// A call is a use while it runs; a call that may give the buffer back, a store of it, a yield and a return keep
// their own allocation.
func.func private @consume(memref<8xf32>)
func.func private @identity(memref<8xf32>) -> memref<8xf32>
func.func @calls(%p: i1, %box: memref<1xmemref<8xf32>>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %lent = memref.alloc() : memref<8xf32>
  func.call @consume(%lent) : (memref<8xf32>) -> ()
  %given = memref.alloc() : memref<8xf32>
  %back = func.call @identity(%given) : (memref<8xf32>) -> memref<8xf32>
  %stored = memref.alloc() : memref<8xf32>
  memref.store %stored, %box[%c0] : memref<1xmemref<8xf32>>
  %yielded = scf.if %p -> (memref<8xf32>) {
    %inner = memref.alloc() : memref<8xf32>
    scf.yield %inner : memref<8xf32>
  } else {
    scf.yield %back : memref<8xf32>
  }
  %returned = memref.alloc() : memref<8xf32>
  func.return %returned : memref<8xf32>
}

// CHECK-LABEL: func.func @calls
// CHECK:         %lent = memref.view %arena
// CHECK-NEXT:    func.call @consume(%lent)
// CHECK-NEXT:    %given = memref.alloc() {lanearena.own = "func.call may give it back"} : memref<8xf32>
// CHECK:         %stored = memref.alloc() {lanearena.own = "stored"} : memref<8xf32>
// CHECK:         %inner = memref.alloc() {lanearena.own = "escapes through scf.yield"} : memref<8xf32>
// CHECK:         %returned = memref.alloc() {lanearena.own = "escapes through func.return"} : memref<8xf32>
// CHECK-NEXT:    memref.dealloc %arena : memref<256xi8>
// CHECK-NEXT:    func.return %returned : memref<8xf32>

// -----

// Reasons name the op: an unregistered op (which may be a terminator) by its own name, an alloca scope's return; a
// buffer registered with the host (through any alias) keeps its own, and an allocation inside an alloca scope
// (which runs its region once) is placed.
func.func @reasons(%x: f32) {
  %c0 = arith.constant 0 : index
  %foreign = memref.alloc() : memref<8xf32>
  "test.foo"(%foreign) : (memref<8xf32>) -> ()
  %scoped = "memref.alloca_scope"() ({
    %out = memref.alloc() : memref<8xf32>
    %in = memref.alloc() : memref<8xf32>
    memref.store %x, %in[%c0] : memref<8xf32>
    "memref.alloca_scope.return"(%out) : (memref<8xf32>) -> ()
  }) : () -> memref<8xf32>
  %mapped = memref.alloc() : memref<8xf32>
  %any = "memref.cast"(%mapped) : (memref<8xf32>) -> memref<*xf32>
  "gpu.host_register"(%any) : (memref<*xf32>) -> ()
  %unmapped = memref.alloc() : memref<8xf32>
  %also = "memref.cast"(%unmapped) : (memref<8xf32>) -> memref<*xf32>
  "gpu.host_unregister"(%also) : (memref<*xf32>) -> ()
  func.return
}

// CHECK-LABEL: func.func @reasons
// CHECK:         %foreign = memref.alloc() {lanearena.own = "escapes through test.foo"} : memref<8xf32>
// CHECK:         %out = memref.alloc() {lanearena.own = "escapes through memref.alloca_scope.return"} : memref<8xf32>
// CHECK-NEXT:    %in_offset = arith.constant 0 : index
// CHECK:         %mapped = memref.alloc() {lanearena.own = "registered"} : memref<8xf32>
// CHECK:         %unmapped = memref.alloc() {lanearena.own = "registered"} : memref<8xf32>

// -----


// Dynamic sizes, a layout, a memory space and an alignment above the arena's keep their own allocations.
func.func @kept(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %dyn = memref.alloc(%n) : memref<?xf32>
  %strided = memref.alloc() : memref<4xf32, strided<[2]>>
  %space = memref.alloc() : memref<4xf32, 1>
  %aligned = memref.alloc() {alignment = 1024 : i64} : memref<4xf32>
  %placed = memref.alloc() : memref<4xf32>
  memref.store %x, %placed[%c0] : memref<4xf32>
  func.return
}

// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %arena = memref.alloc() {{.*}} : memref<256xi8>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %dyn = memref.alloc(%n) {lanearena.own = "dynamic sizes"} : memref<?xf32>
// CHECK-NEXT:    %strided = memref.alloc() {lanearena.own = "a layout other than the identity"} : memref<4xf32, strided<[2]>>
// CHECK-NEXT:    %space = memref.alloc() {lanearena.own = "a memory space other than the default"} : memref<4xf32, 1 : i64>
// CHECK-NEXT:    %aligned = memref.alloc() {alignment = 1024 : i64, lanearena.own = "alignment 1024 does not divide the arena's 256"} : memref<4xf32>
// CHECK-NEXT:    %placed_offset = arith.constant 0 : index
// CHECK-NEXT:    %placed = memref.view %arena[%placed_offset][] : memref<256xi8> to memref<4xf32>
// CHECK-NEXT:    memref.store %x, %placed[%c0] : memref<4xf32>

// -----


// An alias extends the life of what it views: %a lives from the subview taken to the subview's last use, over
// %flat's life; %b, first used after it, takes %a's bytes.
func.func @aliases() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<8x8xf32>
  %s = memref.subview %a[2, 0] [2, 8] [1, 1] : memref<8x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  %flat = memref.alloc() : memref<64xf32>
  memref.store %f, %flat[%c0] : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.store %f, %s[%c0, %c0] : memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.store %f, %b[%c0] : memref<64xf32>
  func.return
}

// CHECK-LABEL: func.func @aliases
// CHECK:         %a_offset = arith.constant 0 : index
// CHECK:         %s = memref.subview %a[2, 0] [2, 8] [1, 1]
// CHECK:         %flat_offset = arith.constant 256 : index
// CHECK:         %b_offset = arith.constant 0 : index

// -----


// Allocations inside regions whose copies may be live at once keep their own; a function with more than one block
// is left alone.
func.func @parallel() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  "scf.parallel"(%c0, %c4, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %t = memref.alloc() : memref<4xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
func.func @blocks() {
  %a = memref.alloc() : memref<4xf32>
  cf.br ^next
^next:
  func.return
}

// CHECK-LABEL: func.func @parallel
// CHECK-NOT:     %arena
// CHECK:         %t = memref.alloc() {lanearena.own = "inside scf.parallel, whose regions may run side by side"} : memref<4xf32>
// CHECK-LABEL: func.func @blocks
// CHECK-NEXT:    %a = memref.alloc() {lanearena.own = "the function has more than one block"} : memref<4xf32>

// -----

// GPU launches: a synchronous launch_func is a use while it runs, an asynchronous one whose token is never awaited
// keeps its own allocation (test/filecheck/memref/async.mlir has the awaited ones); a
// use inside gpu.launch is a use for the whole launch, and an allocation inside it keeps its own (one per thread).
// Nothing else changes: the unused load stays.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() ({
    ^bb0(%m: memref<16xf32>):
      "gpu.return"() : () -> ()
    }) {function_type = (memref<16xf32>) -> (), sym_name = "k", gpu.kernel} : () -> ()
  }) : () -> ()
  func.func @gpu() {
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<16xf32>
    "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %a) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<16xf32>) -> ()
    %b = memref.alloc() : memref<16xf32>
    %t = "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %b) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<16xf32>) -> !gpu.async.token
    %c = memref.alloc() : memref<16xf32>
    "gpu.launch"(%c1, %c1, %c1, %c1, %c1, %c1) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0>}> ({
    ^bb0(%g0: index, %g1: index, %g2: index, %g3: index, %g4: index, %g5: index, %g6: index, %g7: index, %g8: index, %g9: index, %g10: index, %g11: index):
      %d = memref.alloc() : memref<16xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %c[%c0] : memref<16xf32>
      "gpu.terminator"() : () -> ()
    }) : (index, index, index, index, index, index) -> ()
    %e = memref.alloc() : memref<16xf32>
    func.return
  }
}

// CHECK-LABEL: func.func @gpu
// CHECK:         %a = memref.view %arena
// CHECK:         %b = memref.alloc() {lanearena.own = "async: the token of gpu.launch_func is not awaited in its block"} : memref<16xf32>
// CHECK:         %c = memref.view %arena
// CHECK:         %d = memref.alloc() {lanearena.own = "inside gpu.launch, whose regions may run side by side"} : memref<16xf32>
// CHECK:         memref.load %c[%c0] : memref<16xf32>
// CHECK:         %e_offset = arith.constant 0 : index
