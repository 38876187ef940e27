// RUN: xdsl-opt %s -p lane-fuse | filecheck %s
// RUN: xdsl-opt %s -p 'lane-fuse,lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s --check-prefix=PLACED

// What the pass leaves: a norm whose row something besides products reads (an add, as a residual); a product whose
// result two launches read; words two products read; an add that is no add (a gate). Only the merges whose
// intermediate no one else reads happen, and none does here.

// CHECK:      lane.norm %x, %g -> %h(plain, quant)
// CHECK-NEXT: lane.gemv %h(quant), %w -> %t
// CHECK-NEXT: lane.binary %x, %h -> %r
// CHECK-NEXT: lane.binary %r, %t -> %y
// CHECK-NEXT: lane.binary %t, %y -> %z
// CHECK-NEXT: lane.quantize %y -> %y(quant)
// CHECK-NEXT: lane.gemv %y(quant), %w -> %u
// CHECK-NEXT: lane.gemv %y(quant), %w -> %v
// CHECK-NEXT: lane.binary %u, %v -> %s op(gate)
// CHECK-NEXT: lane.output

// PLACED:     lane.norm %x, %g -> %h(plain, quant)

builtin.module {
  lane.step @kept numerics(int8) {
    %x = lane.input "x" : !lane.tensor<64xf32>
    %g = lane.weight "g" : !lane.tensor<64xf32>
    %w = lane.weight "w" : !lane.tensor<64x64xi8>
    %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
    %t = lane.tensor "t" : !lane.tensor<64xf32>
    %r = lane.tensor "r" : !lane.tensor<64xf32>
    %y = lane.tensor "y" forms(plain, quant) : !lane.tensor<64xf32>
    %z = lane.tensor "z" : !lane.tensor<64xf32>
    %u = lane.tensor "u" : !lane.tensor<64xf32>
    %v = lane.tensor "v" : !lane.tensor<64xf32>
    %s = lane.tensor "s" : !lane.tensor<64xf32>
    lane.norm %x, %g -> %h(plain, quant)
    lane.gemv %h(quant), %w -> %t
    lane.binary %x, %h -> %r
    lane.binary %r, %t -> %y
    lane.binary %t, %y -> %z
    lane.quantize %y -> %y(quant)
    lane.gemv %y(quant), %w -> %u
    lane.gemv %y(quant), %w -> %v
    lane.binary %u, %v -> %s op(gate)
    lane.output %z, %s : !lane.tensor<64xf32>, !lane.tensor<64xf32>
  }
}
