// RUN: lanearena-opt %s --verify-diagnostics --split-input-file | filecheck %s

// An unknown tensor.
// CHECK: unknown tensor '%nope': no op before this one defines it
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %x, %nope -> %y op(add)
  lane.output
}

// -----

// A view past the end of the tensor it views.
// CHECK: lane.view 'v': elements [32, 96) lie outside the 64 elements of 'q'
lane.step @s numerics(f32) {
  %q = lane.tensor "q" : !lane.tensor<64xf32>
  %v = lane.view "v" %q[32] : !lane.tensor<64xf32>
  lane.output
}

// -----

// A view cycle: a view can only view what is defined before it, so the cycle names an unknown tensor.
// CHECK: unknown tensor '%b': no op before this one defines it
lane.step @s numerics(f32) {
  %a = lane.view "a" %b[0] : !lane.tensor<64xf32>
  %b = lane.view "b" %a[0] : !lane.tensor<64xf32>
  lane.output
}

// -----

// A negative size.
// CHECK: a tensor's dimensions are positive: a negative size is no size
lane.step @s numerics(f32) {
  %q = lane.tensor "q" : !lane.tensor<-64xf32>
  lane.output
}

// -----

// A zero size.
// CHECK: a tensor has at least one dimension, each positive
lane.step @s numerics(f32) {
  %q = lane.tensor "q" : !lane.tensor<0xf32>
  lane.output
}

// -----

// A write of a weight.
// CHECK: lane.launch writes weight 'w': only the step's computed tensors and state are written
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<64xf32>
  lane.launch "k"(%x) -> (%w whole)
  lane.output
}

// -----

// A write of an input.
// CHECK: lane.binary writes input 'x': only the step's computed tensors and state are written
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  lane.binary %x, %x -> %x op(add)
  lane.output
}

// -----

// A quantized touch of a tensor not allocated in that form.
// CHECK: lane.gemv reads the quant form of 'h', which is not allocated in it (its forms are (plain))
lane.step @s numerics(int8) {
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<32x64xi8>
  %y = lane.tensor "y" : !lane.tensor<32xf32>
  lane.gemv %h(quant), %w -> %y
  lane.output
}

// -----

// A kernel op with the wrong operands, and a missing parameter.
// CHECK: lane.gemv: operand 'w' must be a lane.weight
lane.step @s numerics(f32) {
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<32xf32>
  lane.gemv %h, %h -> %y
  lane.output
}

// -----

// CHECK: bad_input.mlir:[[# @LINE + 7]]:3: error: Expected 'kv_heads'
lane.step @s numerics(f32) {
  %q = lane.tensor "q" : !lane.tensor<64xf32>
  %kc = lane.state "kc" : !lane.tensor<8x64xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %o = lane.tensor "o" : !lane.tensor<64xf32>
  lane.attention %q, %kc, %kc, %pos -> %o heads(2)
  lane.output
}

// -----

// A tensor defined twice.
// CHECK: lane.step @s: tensor 'q' defined twice
lane.step @s numerics(f32) {
  %q = lane.tensor "q" : !lane.tensor<64xf32>
  %r = lane.tensor "q" : !lane.tensor<64xf32>
  lane.output
}

// -----

// A quantized form of a length that is no whole number of blocks.
// CHECK: lane.tensor 'q': a quantized form needs a length that is a whole number of blocks of 32, not 40
lane.step @s numerics(int8) {
  %q = lane.tensor "q" forms(plain, quant) : !lane.tensor<40xf32>
  lane.output
}
