// RUN: xdsl-opt %s --verify-diagnostics --parsing-diagnostics --split-input-file | filecheck %s

// The arena ops' own checks, and those that need the whole step. (Overlaps, alignment and sizes are
// lane-arena-verify's: test/filecheck/verify.)

// A negative offset.
// CHECK: arena.array: offset must not be negative, not -256
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a" %x -> %a whole
  lane.launch "y" %a -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.array %a plain offset(-256) bytes(256) live(0, 1)
}

// -----

// CHECK: arena.scratch: bytes must not be negative, not -4
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y" %x -> %y whole scratch [#lane.scratch<"s", f32, 4>]
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.scratch launch(0) "s" offset(0) bytes(-4)
}

// -----

// Only a computed tensor that is no view is placed.
// CHECK: arena.array 'k': only a computed tensor is placed in the arena, not a view (its bytes are the viewed tensor's)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %kv = lane.tensor "kv" : !lane.tensor<128xf32>
  %k = lane.view "k" %kv[0] : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "kv" %x -> %kv whole
  lane.launch "y" %k -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(512) align(256) lower_bound(512) algorithm("hand")
  arena.array %k plain offset(0) bytes(512) live(0, 1)
}

// -----

// CHECK: arena.array 'x': only a computed tensor is placed in the arena, not input data
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y" %x -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.array %x plain offset(0) bytes(256) live(0, 0)
}

// -----

// A form the tensor is not allocated in.
// CHECK: arena.array 'a' quant: the tensor is not allocated in that form (its forms are (plain))
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a" %x -> %a whole
  lane.launch "y" %a -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(512) align(256) lower_bound(512) algorithm("hand")
  arena.array %a quant offset(0) bytes(512) live(0, 1)
}

// -----

// No array is quantized under f32.
// CHECK: arena.own 'a' quant: no array is quantized under f32 numerics
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  lane.launch "a" %x -> %a whole
  lane.output %a : !lane.tensor<64xf32>
  arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  arena.own %a quant bytes(512) reason("unallocated")
}

// -----

// A reason that contradicts the tensor.
// CHECK: arena.own 'x': reason("output"), but the tensor is input data
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  lane.output %x : !lane.tensor<64xf32>
  arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  arena.own %x plain bytes(256) reason("output")
}

// -----

// More than one arena in a step.
// CHECK: lane.step @s: more than one arena.alloc (a step has one arena)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y" %x -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  arena.alloc bytes(256) align(256) lower_bound(0) algorithm("hand")
}

// -----

// A placement without its arena.
// CHECK: lane.step @s: arena.own without the arena.alloc of the step
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  lane.output %x : !lane.tensor<64xf32>
  arena.own %x plain bytes(256) reason("input")
}

// -----

// Launch indices past the end of the step.
// CHECK: arena.counter "c": launch 2, past the 1 launches of lane.step @s
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y" %x -> %y whole scratch [#lane.scratch<"c", counter, 4>]
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  arena.counter launch(2) "c" bytes(4)
}

// -----

// CHECK: arena.array 'a' plain: live until launch 5, past the 2 launches of lane.step @s
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a" %x -> %a whole
  lane.launch "y" %a -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.array %a plain offset(0) bytes(256) live(0, 5)
}

// -----

// An array placed twice.
// CHECK: arena.own 'a' plain: that array is already given a place by an arena.array
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a" %x -> %a whole
  lane.launch "y" %a -> %y whole
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.array %a plain offset(0) bytes(256) live(0, 1)
  arena.own %a plain bytes(256) reason("unsafe")
}

// -----

// A scratch tag placed twice.
// CHECK: arena.counter "s" of launch 0: already given a place by an arena.scratch
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y" %x -> %y whole scratch [#lane.scratch<"s", f32, 4>]
  lane.output %y : !lane.tensor<64xf32>
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.scratch launch(0) "s" offset(0) bytes(256)
  arena.counter launch(0) "s" bytes(4)
}

// -----

// An arena op outside a step.
// CHECK: arena.alloc: must be directly inside a lane.step, not in builtin.module
arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")

// -----

// Malformed values are parse errors at the value.
// CHECK: arena.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: Expected ')'
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  lane.launch "a" %x -> %a whole
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  arena.array %a plain offset(0) bytes(256) live(0, 0, 1)
}

// -----

// CHECK: arena.alloc: bytes(...) is an integer, not 'many'
lane.step @s numerics(f32) {
  arena.alloc bytes("many") align(256) lower_bound(256) algorithm("hand")
}

// -----

// CHECK: arena.alloc: algorithm(...) is a string, not 3
lane.step @s numerics(f32) {
  arena.alloc bytes(256) align(256) lower_bound(256) algorithm(3)
}

// -----

// CHECK: arena.own: reason(...) is a string, not 1.5
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  arena.own %x plain bytes(256) reason(1.5)
}
