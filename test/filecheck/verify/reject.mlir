// RUN: xdsl-opt %s -p lane-arena-verify --verify-diagnostics --split-input-file | filecheck %s

// Two arrays live at launch 1 share bytes [1024, 1280).
// CHECK: lane-arena-verify failed:
// CHECK-NEXT: lane.step @overlap: arena.array 'a' plain [0, 1280) live 0-1 overlaps arena.array 'b' plain [1024, 2048) live 1-2
lane.step @overlap numerics(f32) {
  %x = lane.input "x" : !lane.tensor<256xf32>
  %a = lane.tensor "a" : !lane.tensor<320xf32>
  %b = lane.tensor "b" : !lane.tensor<256xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  lane.launch "a" %x -> %a whole
  lane.launch "b" %a -> %b whole
  lane.launch "y" %b -> %y whole
  lane.output %y : !lane.tensor<256xf32>
  arena.alloc bytes(2048) align(256) lower_bound(2304) algorithm("hand")
  arena.array %a plain offset(0) bytes(1280) live(0, 1)
  arena.array %b plain offset(1024) bytes(1024) live(1, 2)
}

// -----

// Misaligned, past the end of the arena, and a live range shorter than the touches.
// CHECK: lane-arena-verify failed:
// CHECK-DAG: arena.array 'a' plain: live 0-0, but launches 0-1 touch it
// CHECK-DAG: arena.array 'a' plain: offset 100 is not a multiple of 256
// CHECK-DAG: arena.array 'a' plain: bytes [100, 1380) lie outside the arena of 1024
lane.step @bounds numerics(f32) {
  %x = lane.input "x" : !lane.tensor<256xf32>
  %a = lane.tensor "a" : !lane.tensor<320xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  lane.launch "a" %x -> %a whole
  lane.launch "y" %a -> %y whole
  lane.output %y : !lane.tensor<256xf32>
  arena.alloc bytes(1024) align(256) lower_bound(1280) algorithm("hand")
  arena.array %a plain offset(100) bytes(1280) live(0, 0)
}

// -----

// A counter in the arena, scratch left unplaced, an array read before it is written, and an output placed.
// CHECK: lane-arena-verify failed:
// CHECK-DAG: arena.scratch launch(0) 'c': a counter must keep a zeroed buffer of its own, not arena bytes
// CHECK-DAG: launch 0 (one): counter 'c' has no zeroed buffer
// CHECK-DAG: launch 0 (one): scratch 's' is not placed
// CHECK-DAG: arena.array 'p' plain: a launch reads it (or writes it in another way) before it is written whole
// CHECK-DAG: arena.array 'y' plain: only a computed tensor's allocated array that is no input or output may be placed
lane.step @rules numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "one" %x, %p -> %y whole scratch [#lane.scratch<"s", f32, 64>, #lane.scratch<"c", counter, 4>]
  lane.launch "two" %x -> %p whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(1024) align(256) lower_bound(0) algorithm("hand")
  arena.array %p plain offset(0) bytes(256) live(0, 1)
  arena.array %y plain offset(256) bytes(256) live(0, 0)
  arena.scratch launch(0) "c" offset(512) bytes(256)
}

// -----

// CHECK: lane.step @unplaced: not placed (no arena.alloc); run lane-arena-place first
lane.step @unplaced numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  lane.output %x : !lane.tensor<64xf32>
}
