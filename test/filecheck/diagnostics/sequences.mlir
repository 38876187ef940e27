// RUN: lanearena-opt %s --verify-diagnostics --split-input-file | filecheck %s

// Several sequences in one step (issue 39): the state of the kinds that take `seqs` is slot-major, [seqs, ...], and
// their rows are whole sequences' rows (the delta rule's one row a sequence).

// CHECK: sequences.mlir:[[# @LINE + 6]]:3: error: lane.kv_store: state 'kc' (8, 32) is not [3 sequences, ...]: a slot a sequence, slot-major
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<3xi32>
  %k = lane.input "k" : !lane.tensor<3x32xf32>
  %kc = lane.state "kc" : !lane.tensor<8x32xf32>
  %vc = lane.state "vc" : !lane.tensor<8x32xf32>
  lane.kv_store %k, %k, %pos -> %kc, %vc seqs(3)
  lane.output
}

// -----

// CHECK: sequences.mlir:[[# @LINE + 9]]:3: error: lane.delta: 4 rows of 2 sequences: the delta rule steps one row a sequence
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<4x256xf32>
  %z = lane.input "z" : !lane.tensor<4x128xf32>
  %ab = lane.input "ab" : !lane.tensor<4x8xf32>
  %g = lane.weight "g" : !lane.tensor<4xf32>
  %gain = lane.weight "gain" : !lane.tensor<32xf32>
  %s = lane.state "s" : !lane.tensor<2x4x32x32xf32>
  %o = lane.tensor "o" : !lane.tensor<4x128xf32>
  lane.delta %x, %z, %ab, %g, %g, %gain -> %s, %o key_heads(2) seqs(2)
  lane.output %o : !lane.tensor<4x128xf32>
}

// -----

// CHECK: sequences.mlir:[[# @LINE + 6]]:3: error: lane.conv: seqs 2 do not divide the 3 rows (positions) into sequences' rows
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<3x64xf32>
  %w = lane.weight "w" : !lane.tensor<64x4xf32>
  %s = lane.state "s" : !lane.tensor<2x3x64xf32>
  %o = lane.tensor "o" : !lane.tensor<3x64xf32>
  lane.conv %x, %w -> %s, %o seqs(2)
  lane.output %o : !lane.tensor<3x64xf32>
}
