// RUN: lanearena-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The verifiers' checks on launches (generic and of every kernel kind) and on what needs the whole step.

// A quantized read under f32 numerics.
// CHECK: lane.launch reads the quant form of 'h' under f32 numerics (only int8 and int8x2 quantize)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "w"(%x) -> (%h whole)
  lane.launch "r"(%h(quant)) -> (%y whole)
  lane.output
}

// -----

// A form named twice.
// CHECK: lane.launch writes 'h' in forms (plain, plain): name each form once
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  lane.launch "w"(%x) -> (%h(plain, plain) whole)
  lane.output
}

// -----

// A generic launch's kernel needs a name.
// CHECK: lane.launch: the kernel needs a name
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  lane.launch ""(%x) -> (%h whole)
  lane.output
}

// -----

// Parts of a pitch that does not divide the tensor into units.
// CHECK: lane.launch "lo" writes 'p' in parts of every 48 values, which do not divide its 128 into units
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  lane.launch "lo"(%x) -> (%p part<48, 0, 48>)
  lane.output
}

// -----

// A part outside its unit is a parse error, located.
// CHECK: launches.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: a part [60, 92) of every 64 must lie inside the unit and be non-empty
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  lane.launch "lo"(%x) -> (%p part<64, 60, 32>)
  lane.output
}

// -----

// Scratch of no size, and a counter of another element type, are parse errors.
// CHECK: scratch 's' needs a positive size, not 0
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<64xf32>
  lane.launch "k"(%x) -> (%p whole) asks [#lane.scratch<"s", f32, 0>]
  lane.output
}

// -----

// CHECK: scratch needs a tag
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<64xf32>
  lane.launch "k"(%x) -> (%p whole) asks [#lane.scratch<"", f32, 4>]
  lane.output
}

// -----

// A read of a computed tensor that no launch of the step writes (a read before a write later in the step is
// legal: it only keeps the array out of the arena).
// CHECK: lane.launch reads the plain form of 'h', which no launch of lane.step @s writes: a computed tensor is written by the step (an input is given to it)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "r"(%x, %h) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// Through a view: writing one half of a tensor does not write the other half.
// CHECK: lane.launch reads the plain form of 'hi', which no launch of lane.step @s writes
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" : !lane.tensor<128xf32>
  %lo = lane.view "lo" %h[0] : !lane.tensor<64xf32>
  %hi = lane.view "hi" %h[64] : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "w"(%x) -> (%lo whole)
  lane.launch "r"(%hi) -> (%y whole)
  lane.output
}

// -----

// Nor does writing the plain form write the quantized one.
// CHECK: lane.launch reads the quant form of 'h', which no launch of lane.step @s writes
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "w"(%x) -> (%h whole)
  lane.launch "r"(%h(quant)) -> (%y whole)
  lane.output
}

// -----

// Ops in a step are lane and arena ops.
// CHECK: lane.step @s holds lane and arena ops and launches only, not lane.step
lane.step @s numerics(f32) {
  lane.step @inner numerics(f32) {
    %x = lane.input "x" : !lane.tensor<64xf32>
    lane.output
  }
  lane.output
}

// -----

// CHECK: lane.step @s: its body takes no arguments; tensors are defined by lane ops
"builtin.module"() ({
  "lane.step"() <{sym_name = "s", numerics = #lane<numerics f32>}> ({
  ^bb0(%a : !lane.tensor<64xf32>):
    "lane.output"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// A launch before the tensor it writes, in the generic form.
// CHECK: lane.launch uses a tensor that no op before it in lane.step @s defines
"builtin.module"() ({
  "lane.step"() <{sym_name = "s", numerics = #lane<numerics f32>}> ({
    %x = "lane.input"() <{tensor = "x"}> : () -> !lane.tensor<64xf32>
    "lane.launch"(%x, %p) <{kernel = "k", in_forms = [#lane<form plain>], out_forms = [[#lane<form plain>]], out_how = [#lane<write whole>], asks = [], operandSegmentSizes = array<i32: 1, 1, 0>}> : (!lane.tensor<64xf32>, !lane.tensor<64xf32>) -> ()
    %p = "lane.tensor"() <{tensor = "p", forms = [#lane<form plain>]}> : () -> !lane.tensor<64xf32>
    "lane.output"() : () -> ()
  }) : () -> ()
}) : () -> ()
