// RUN: lanearena-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The arena ops' own checks, and those that need the whole step. (Overlaps, alignment and sizes are
// lane-arena-verify's: test/filecheck/verify.)

// A negative offset.
// CHECK: arena.tensor 'a': plain(-256), an offset must not be negative
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = arena.tensor "a" %arena plain(-256) : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "y"(%a) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// CHECK: arena.scratch "s": bytes must be positive, not -4
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  %s = arena.scratch "s" %arena[0] bytes(-4)
  lane.launch "y"(%x) -> (%y whole) asks [#lane.scratch<"s", f32, 4>] scratch(%s)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// A placed tensor with no array at an offset is a lane.tensor.
// CHECK: arena.tensor 'a': no array at an offset (a tensor none of whose arrays is placed is a lane.tensor)
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = arena.tensor "a" %arena own(plain = unsafe) : !lane.tensor<64xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.output %a : !lane.tensor<64xf32>
}

// -----

// A form the tensor is not allocated in.
// CHECK: arena.tensor 'a' quant: the tensor is not allocated in that form (its forms are (plain))
lane.step @s numerics(int8) {
  %arena = arena.alloc bytes(512) align(256) lower_bound(512) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = arena.tensor "a" %arena plain(0) quant(256) : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "y"(%a) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// No array is quantized under f32.
// CHECK: lane.tensor 'a' own(quant = ...): no array is quantized under f32 numerics
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" own(quant = unallocated) : !lane.tensor<64xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.output %a : !lane.tensor<64xf32>
}

// -----

// A reason that contradicts the tensor.
// CHECK: lane.input 'x': own(plain = output), but the tensor is input data
lane.step @s numerics(f32) {
  %x = lane.input "x" own(plain = output) : !lane.tensor<64xf32>
  lane.output %x : !lane.tensor<64xf32>
}

// -----

// More than one arena in a step.
// CHECK: arena.alloc: a step has one arena, and this is its second
lane.step @s numerics(f32) {
  %a0 = arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  %a1 = arena.alloc bytes(256) align(256) lower_bound(0) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y"(%x) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// Scratch is bytes of the arena, not of another buffer (which a launch takes, not the scratch).
// CHECK: arena.counter "c": taken by 1 ops, but a scratch or counter buffer is one launch's
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  %c = arena.counter "c" bytes(256)
  %s = arena.scratch "s" %c[0] bytes(256)
  lane.launch "y"(%x) -> (%y whole) asks [#lane.scratch<"s", f32, 4>] scratch(%s)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// A scratch or counter buffer is one launch's.
// CHECK: arena.counter "c": taken by 0 ops, but a scratch or counter buffer is one launch's
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(0) align(256) lower_bound(0) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  %c = arena.counter "c" bytes(4)
  lane.launch "y"(%x) -> (%y whole) asks [#lane.scratch<"c", counter, 4>]
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// An array placed and kept in a buffer of its own.
// CHECK: arena.tensor 'a' plain: placed, and own too
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = arena.tensor "a" %arena plain(0) own(plain = unsafe) : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "y"(%a) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// A scratch tag taken twice by one launch.
// CHECK: lane.launch: scratch tags taken twice (s, s)
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(512) align(256) lower_bound(512) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  %s0 = arena.scratch "s" %arena[0] bytes(256)
  %s1 = arena.scratch "s" %arena[256] bytes(256)
  lane.launch "y"(%x) -> (%y whole) asks [#lane.scratch<"s", f32, 4>] scratch(%s0, %s1)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// The arena itself taken as a launch's scratch.
// CHECK: lane.launch: scratch(...) takes arena.scratch and arena.counter values only
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "y"(%x) -> (%y whole) scratch(%arena)
  lane.output %y : !lane.tensor<64xf32>
}

// -----

// An arena op outside a step.
// CHECK: 'arena.alloc' expects parent op 'lane.step'
%arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")

// -----

// Malformed values are parse errors at the value.
// CHECK: arena.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: Expected ')'
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm("hand")
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = arena.tensor "a" %arena plain(0, 1) : !lane.tensor<64xf32>
  lane.output
}

// -----

// CHECK: arena.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: Expected integer literal
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes("many") align(256) lower_bound(256) algorithm("hand")
  lane.output
}

// -----

// CHECK: arena.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: 3 : i64 should be of base attribute string
lane.step @s numerics(f32) {
  %arena = arena.alloc bytes(256) align(256) lower_bound(256) algorithm(3)
  lane.output
}

// -----

// CHECK: arena.mlir:{{[0-9]+}}:{{[0-9]+}}
// CHECK: Expected `input`, `weight`, `state`, `output`, `view`, `unsafe`, or `unallocated`
lane.step @s numerics(f32) {
  %x = lane.input "x" own(plain = 1.5) : !lane.tensor<64xf32>
  lane.output %x : !lane.tensor<64xf32>
}
