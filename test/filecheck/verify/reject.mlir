// RUN: lanearena-opt %s -p lane-arena-verify --verify-diagnostics --split-input-file | filecheck %s

// lane-arena-verify reads the placement from the placed IR (arena.tensor offsets, the scratch and counters each
// launch takes) and derives the lives and what is written before it is read again from the launches. Each problem
// starts with where its op was written (lines counted from the top of the file).

// Two arrays live at launch 1 share bytes [1024, 1280): a hand-made overlap, at b's op.
// CHECK: reject.mlir:[[# @LINE + 5]]:3: error: lane-arena-verify failed: lane.step @overlap: arena.tensor 'a' plain [0, 1280) live 0-1 overlaps arena.tensor 'b' plain [1024, 2048) live 1-2
lane.step @overlap numerics(f32) {
  %arena = arena.alloc bytes(2048) align(256) lower_bound(2304) algorithm("hand")
  %x = lane.input "x" own(plain = input) : !lane.tensor<256xf32>
  %a = arena.tensor "a" %arena plain(0) : !lane.tensor<320xf32>
  %b = arena.tensor "b" %arena plain(1024) : !lane.tensor<256xf32>
  %y = lane.tensor "y" own(plain = output) : !lane.tensor<256xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "b"(%a) -> (%b whole)
  lane.launch "y"(%b) -> (%y whole)
  lane.output %y : !lane.tensor<256xf32>
}

// -----

// Misaligned, and past the end of the arena.
// CHECK-DAG: reject.mlir:[[# @LINE + 5]]:3: error: lane-arena-verify failed: lane.step @bounds: arena.tensor 'a' plain: offset 100 is not a multiple of 256
// CHECK-DAG: reject.mlir:[[# @LINE + 4]]:3: error: lane-arena-verify failed: lane.step @bounds: arena.tensor 'a' plain: bytes [100, 1380) lie outside the arena of 1024
lane.step @bounds numerics(f32) {
  %arena = arena.alloc bytes(1024) align(256) lower_bound(1280) algorithm("hand")
  %x = lane.input "x" own(plain = input) : !lane.tensor<256xf32>
  %a = arena.tensor "a" %arena plain(100) : !lane.tensor<320xf32>
  %y = lane.tensor "y" own(plain = output) : !lane.tensor<256xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "y"(%a) -> (%y whole)
  lane.output %y : !lane.tensor<256xf32>
}

// -----

// A counter in the arena, scratch left unplaced, an array read before it is written, and an output placed.
// CHECK-DAG: reject.mlir:[[# @LINE + 10]]:3: error: lane-arena-verify failed: lane.step @rules: arena.scratch launch(0) 'c': a counter must keep a zeroed buffer of its own, not arena bytes
// CHECK-DAG: reject.mlir:[[# @LINE + 10]]:3: error: lane-arena-verify failed: lane.step @rules: launch 0 (one): counter 'c' has no zeroed buffer
// CHECK-DAG: reject.mlir:[[# @LINE + 9]]:3: error: lane-arena-verify failed: lane.step @rules: launch 0 (one): scratch 's' is not placed
// CHECK-DAG: reject.mlir:[[# @LINE + 5]]:3: error: lane-arena-verify failed: lane.step @rules: arena.tensor 'p' plain: a launch reads it (or writes it in another way) before it is written whole
// CHECK-DAG: reject.mlir:[[# @LINE + 5]]:3: error: lane-arena-verify failed: lane.step @rules: arena.tensor 'y' plain: only a computed tensor's allocated array that is no input or output may be placed
lane.step @rules numerics(f32) {
  %arena = arena.alloc bytes(1024) align(256) lower_bound(0) algorithm("hand")
  %x = lane.input "x" own(plain = input) : !lane.tensor<64xf32>
  %p = arena.tensor "p" %arena plain(0) : !lane.tensor<64xf32>
  %y = arena.tensor "y" %arena plain(256) : !lane.tensor<64xf32>
  %c = arena.scratch "c" %arena[512] bytes(256)
  lane.launch "one"(%x, %p) -> (%y whole) asks [#lane.scratch<"s", f32, 64>, #lane.scratch<"c", counter, 4>] scratch(%c)
  lane.launch "two"(%x) -> (%p whole)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// Scratch and a counter smaller than the launch asks for.
// CHECK-DAG: reject.mlir:[[# @LINE + 6]]:3: error: lane-arena-verify failed: lane.step @small: arena.scratch launch(0) 's': 128 bytes, but the launch asks for 400
// CHECK-DAG: reject.mlir:[[# @LINE + 7]]:3: error: lane-arena-verify failed: lane.step @small: launch 0 (one): counter 'c' of 2 bytes, but the launch asks for 4
lane.step @small numerics(f32) {
  %arena = arena.alloc bytes(1024) align(256) lower_bound(0) algorithm("hand")
  %x = lane.input "x" own(plain = input) : !lane.tensor<64xf32>
  %y = lane.tensor "y" own(plain = output) : !lane.tensor<64xf32>
  %s = arena.scratch "s" %arena[0] bytes(128)
  %c = arena.counter "c" bytes(2)
  lane.launch "one"(%x) -> (%y whole) asks [#lane.scratch<"s", f32, 400>, #lane.scratch<"c", counter, 4>] scratch(%s, %c)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// CHECK: reject.mlir:[[# @LINE + 1]]:1: error: lane-arena-verify failed: lane.step @unplaced: not placed (no arena.alloc); run lane-arena-place first
lane.step @unplaced numerics(f32) {
  %x = lane.input "x" own(plain = input) : !lane.tensor<64xf32>
  lane.output %x : !lane.tensor<64xf32>
}

// -----

// An array the launches touch that has neither an offset nor a buffer of its own (a step placed by hand).
// CHECK: reject.mlir:[[# @LINE + 6]]:3: error: lane-arena-verify failed: lane.step @nowhere: launch 0 (a): 'a' plain has neither a place in the arena nor a buffer of its own
lane.step @nowhere numerics(f32) {
  %arena = arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  %x = lane.input "x" own(plain = input) : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" own(plain = output) : !lane.tensor<64xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "y"(%a) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}
