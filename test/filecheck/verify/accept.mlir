// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s
// RUN: xdsl-opt %s -p 'lane-arena-place,lane-arena-verify' | filecheck %s

// The placer's output passes the independent check, whichever algorithm placed it.
// CHECK: %arena = arena.alloc
// CHECK: %h = arena.tensor "h" %arena forms(plain, quant) plain({{[0-9]+}}) quant({{[0-9]+}})
lane.step @ok numerics(int8) {
  %x = lane.input "x" : !lane.tensor<2048xf32>
  %g = lane.weight "g" : !lane.tensor<2048xf32>
  %w = lane.weight "w" : !lane.tensor<256x2048xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  %z = lane.tensor "z" : !lane.tensor<256xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %w -> %y split(2)
  lane.binary %y, %y -> %z op(add)
  lane.output %z : !lane.tensor<256xf32>
}
