// RUN: lanearena-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The verifiers' checks on the tensor ops and lane.output. Every message names the op and the tensor, after the
// location of the op (line and column from the top of the file).

// A tensor outside any step.
// CHECK: tensors.mlir:[[# @LINE + 1]]:1: error: 'lane.tensor' expects parent op 'lane.step'
%q = lane.tensor "q" : !lane.tensor<64xf32>

// -----

// A tensor without a name.
// CHECK: lane.input: a tensor needs a name
lane.step @s numerics(f32) {
  %x = lane.input "" : !lane.tensor<64xf32>
  lane.output
}

// -----

// i8 is a Q8_0 weight's element only.
// CHECK: lane.state 'kc': only a weight is i8 (Q8_0); a state tensor is f32 or i32
lane.step @s numerics(int8) {
  %kc = lane.state "kc" : !lane.tensor<8x64xi8>
  lane.output
}

// -----

// bf16 is a weight's element only (activations stay f32 under bf16 numerics).
// CHECK: lane.state 'kc': only a weight is bf16; a state tensor is f32 or i32
lane.step @s numerics(bf16) {
  %kc = lane.state "kc" : !lane.tensor<8x64xbf16>
  lane.output
}

// -----

// CHECK: lane.tensor 'h': a computed tensor is f32 or i32, not bf16
lane.step @s numerics(bf16) {
  %h = lane.tensor "h" : !lane.tensor<64xbf16>
  lane.output
}

// -----

// No quantized form under bf16 numerics either.
// CHECK: lane.tensor 'h': a quantized form under bf16 numerics (only int8 and int8x2 quantize)
lane.step @s numerics(bf16) {
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  lane.output
}

// -----

// A Q8_0 weight keeps a scale a block of its last dimension.
// CHECK: lane.weight 'w': a Q8_0 weight keeps a scale a block of 32 values of its last dimension, which is 48
lane.step @s numerics(int8) {
  %w = lane.weight "w" : !lane.tensor<64x48xi8>
  lane.output
}

// -----

// Only f32 values are quantized.
// CHECK: lane.tensor 'ids': only f32 values have a quantized form
lane.step @s numerics(int8) {
  %ids = lane.tensor "ids" forms(plain, quant) : !lane.tensor<64xi32>
  lane.output
}

// -----

// No quantized form under f32 numerics.
// CHECK: lane.tensor 'h': a quantized form under f32 numerics (only int8 and int8x2 quantize)
lane.step @s numerics(f32) {
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  lane.output
}

// -----

// CHECK: lane.view 'hv': a quantized form under f32 numerics (only int8 and int8x2 quantize)
lane.step @s numerics(f32) {
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  %hv = lane.view "hv" %h[0] forms(plain, quant) : !lane.tensor<32xf32>
  lane.output
}

// -----

// A view is no output: its bytes are the viewed tensor's, which would be placed.
// CHECK: lane.output 'k': a view is no output: output the tensor it views, 'kv'
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %kv = lane.tensor "kv" : !lane.tensor<128xf32>
  %k = lane.view "k" %kv[0] : !lane.tensor<64xf32>
  lane.launch "w"(%x) -> (%kv whole)
  lane.output %k : !lane.tensor<64xf32>
}

// -----

// An output no launch writes.
// CHECK: lane.output 'y': no launch of lane.step @s writes it
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// A view cycle in the generic form, where xDSL resolves names defined later: a view views what is defined before
// it.
// CHECK: lane.view uses a tensor that no op before it in lane.step @s defines
"builtin.module"() ({
  "lane.step"() <{sym_name = "s", numerics = #lane<numerics f32>}> ({
    %a = "lane.view"(%b) <{tensor = "a", offset = 0 : i64, forms = [#lane<form plain>]}> : (!lane.tensor<64xf32>) -> !lane.tensor<64xf32>
    %b = "lane.view"(%a) <{tensor = "b", offset = 0 : i64, forms = [#lane<form plain>]}> : (!lane.tensor<64xf32>) -> !lane.tensor<64xf32>
    "lane.output"() : () -> ()
  }) : () -> ()
}) : () -> ()
