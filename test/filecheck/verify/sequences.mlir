// RUN: xdsl-opt %s -p 'lane-arena-place,lane-arena-verify' | filecheck %s

// Several sequences in one step (issue 39): the kinds that touch a sequence's state or positions take `seqs`,
// printed where it is not 1 (one sequence prints none), and place and verify as any launch; their state is
// slot-major, [seqs, ...].

// CHECK: arena.alloc
// CHECK: lane.kv_store %k, %v, %pos -> %kc, %vc seqs(3)
// CHECK: lane.attention %q, %kc, %vc, %pos -> %o heads(2) kv_heads(1) seqs(3)
// CHECK: lane.kv_store %k, %v, %pos1 -> %kc1, %vc1{{$}}
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<3xi32>
  %q = lane.input "q" : !lane.tensor<3x64xf32>
  %k = lane.input "k" : !lane.tensor<3x32xf32>
  %v = lane.input "v" : !lane.tensor<3x32xf32>
  %kc = lane.state "kc" : !lane.tensor<3x8x32xf32>
  %vc = lane.state "vc" : !lane.tensor<3x8x32xf32>
  %o = lane.tensor "o" : !lane.tensor<3x64xf32>
  lane.kv_store %k, %v, %pos -> %kc, %vc seqs(3)
  lane.attention %q, %kc, %vc, %pos -> %o heads(2) kv_heads(1) seqs(3)
  %pos1 = lane.input "pos1" : !lane.tensor<3xi32>
  %kc1 = lane.state "kc1" : !lane.tensor<8x32xf32>
  %vc1 = lane.state "vc1" : !lane.tensor<8x32xf32>
  lane.kv_store %k, %v, %pos1 -> %kc1, %vc1 seqs(1)
  lane.output %o : !lane.tensor<3x64xf32>
}
