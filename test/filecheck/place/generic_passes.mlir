// RUN: xdsl-opt %s -p dce,cse,canonicalize | filecheck %s --check-prefix=BEFORE
// RUN: xdsl-opt %s -p 'dce,cse,canonicalize,lane-arena-place{algorithm=greedy},dce,cse,canonicalize,lane-arena-verify' | filecheck %s --check-prefix=AFTER
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s --check-prefix=AFTER

// xDSL's generic passes keep a step's meaning, before placement and after: a launch reads what it reads and writes
// what it writes (its memory effects), so none is dropped, merged or moved, even two alike; the arena, each launch's
// scratch and its counter allocate, so two alike for two launches stay two. What no launch touches (a tensor, a
// view, both pure) may go. Placing after them gives the arena placing alone gives.

// BEFORE:      lane.step @s numerics(int8) {
// BEFORE-NOT:  "unused"
// BEFORE-NOT:  lane.view
// BEFORE:      lane.norm %x, %g -> %h(plain, quant)
// BEFORE-NEXT: lane.gemv %h(quant), %w -> %t split(2)
// BEFORE-NEXT: lane.gemv %h(quant), %w -> %u split(2)
// BEFORE-NEXT: lane.binary %t, %u -> %y
// BEFORE-NEXT: lane.binary %t, %u -> %y
// BEFORE-NEXT: lane.output %y

// AFTER:      %arena = arena.alloc bytes(35072) align(256) lower_bound(35072) algorithm("greedy")
// AFTER:      %h = arena.tensor "h" %arena forms(plain, quant) plain(0) quant(32768)
// AFTER-NEXT: %t = arena.tensor "t" %arena plain(16384)
// AFTER-NEXT: %u = arena.tensor "u" %arena plain(24576)
// AFTER:      lane.norm %x, %g -> %h(plain, quant)
// AFTER-NEXT: %fp = arena.scratch "fp" %arena[0] bytes(16384)
// AFTER-NEXT: %fq = arena.counter "fq" bytes(128)
// AFTER-NEXT: lane.gemv %h(quant), %w -> %t split(2) scratch(%fp, %fq)
// AFTER-NEXT: %fp_1 = arena.scratch "fp" %arena[0] bytes(16384)
// AFTER-NEXT: %fq_1 = arena.counter "fq" bytes(128)
// AFTER-NEXT: lane.gemv %h(quant), %w -> %u split(2) scratch(%fp_1, %fq_1)
// AFTER-NEXT: lane.binary %t, %u -> %y
// AFTER-NEXT: lane.binary %t, %u -> %y
// AFTER-NEXT: lane.output %y
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<2048xf32>
  %g = lane.weight "g" : !lane.tensor<2048xf32>
  %w = lane.weight "w" : !lane.tensor<2048x2048xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %t = lane.tensor "t" : !lane.tensor<2048xf32>
  %u = lane.tensor "u" : !lane.tensor<2048xf32>
  %y = lane.tensor "y" : !lane.tensor<2048xf32>
  %lo = lane.view "lo" %h[0] : !lane.tensor<1024xf32>
  %lo2 = lane.view "lo2" %h[0] : !lane.tensor<1024xf32>
  %unused = lane.tensor "unused" : !lane.tensor<64xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %w -> %t split(2)
  lane.gemv %h(quant), %w -> %u split(2)
  lane.binary %t, %u -> %y
  lane.binary %t, %u -> %y
  lane.output %y : !lane.tensor<2048xf32>
}
