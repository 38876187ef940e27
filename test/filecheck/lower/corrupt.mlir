// RUN: not lanearena-opt %s -t lane-pycuda 2>&1 | filecheck %s
// RUN: not xdsl-opt %s -t lane-pycuda 2>&1 | filecheck %s --check-prefix=XDSL
// RUN: not lanearena compile %s 2>&1 | filecheck %s --check-prefix=COMPILE

// examples/decode.mlir placed, then edited: q's plain array moved from 65536 to 8192, over the split-k partial
// sums `fp` that the first gemv writes while it writes q. The lowering verifies the placement first, as
// lane-arena-verify does, and refuses it: the module it would emit computes garbage.

// CHECK: corrupt.mlir:[[# @LINE + 15]]:5: error: lane-arena-verify failed: lane.step @decode: arena.scratch launch(1) 'fp' [0, 65536) live 1-1 overlaps arena.tensor 'q' plain [8192, 24576) live 1-3
// CHECK-NOT: Traceback
// XDSL: lane-arena-verify failed:
// XDSL-NEXT: lane.step @decode: arena.scratch launch(1) 'fp' [0, 65536) live 1-1 overlaps arena.tensor 'q' plain [8192, 24576) live 1-3
// COMPILE: lanearena compile: error: lane-arena-verify failed:
// COMPILE-NEXT: corrupt.mlir:[[# @LINE + 10]]:5: lane.step @decode: arena.scratch launch(1) 'fp' [0, 65536) live 1-1 overlaps arena.tensor 'q' plain [8192, 24576) live 1-3
builtin.module {
  lane.step @decode numerics(int8) {
    %arena = arena.alloc bytes(84224) align(256) lower_bound(84224) algorithm("size/first-fit")
    %x = lane.input "x" own(plain = input) : !lane.tensor<2048xf32>
    %pos = lane.input "pos" own(plain = input) : !lane.tensor<1xi32>
    %g = lane.weight "g" own(plain = weight) : !lane.tensor<2048xf32>
    %wq = lane.weight "wq" own(plain = weight) : !lane.tensor<4096x2048xi8>
    %wo = lane.weight "wo" own(plain = weight) : !lane.tensor<2048x4096xi8>
    %h = arena.tensor "h" %arena forms(plain, quant) plain(0) quant(81920) : !lane.tensor<2048xf32>
    %q = arena.tensor "q" %arena forms(plain, quant) plain(8192) quant(0) : !lane.tensor<4096xf32>
    %qk = lane.view "qk" %q[2048] : !lane.tensor<2048xf32>
    %y = lane.tensor "y" own(plain = output) : !lane.tensor<2048xf32>
    lane.norm %x, %g -> %h(plain, quant)
    %fp = arena.scratch "fp" %arena[0] bytes(65536)
    %fq = arena.counter "fq" bytes(256)
    lane.gemv %h(quant), %wq -> %q split(4) scratch(%fp, %fq)
    lane.rope %pos -> %qk heads(16)
    lane.quantize %q -> %q(quant)
    lane.gemv %q(quant), %wo -> %y
    lane.output %y : !lane.tensor<2048xf32>
  }
}
