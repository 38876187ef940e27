// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s

// Largest first, each at the lowest offset clear of every placed array whose life overlaps its own; inputs and
// outputs keep buffers of their own.
// CHECK-LABEL: lane.step @chain
// CHECK:      arena.alloc bytes(768) align(256) lower_bound(768) algorithm("greedy")
// CHECK-NEXT: arena.array %a plain offset(512) bytes(256) live(0, 1)
// CHECK-NEXT: arena.array %b plain offset(0) bytes(512) live(1, 2)
// CHECK-NEXT: arena.array %c plain offset(512) bytes(256) live(2, 3)
// CHECK-NEXT: arena.own %x plain bytes(256) reason("input")
// CHECK-NEXT: arena.own %y plain bytes(256) reason("output")
lane.step @chain numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %b = lane.tensor "b" : !lane.tensor<128xf32>
  %c = lane.tensor "c" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %x, %x -> %a op("add")
  lane.launch "widen" %a -> %b whole
  lane.launch "narrow" %b -> %c whole
  lane.binary %c, %c -> %y op("mul")
  lane.output %y : !lane.tensor<64xf32>
}

// Equal sizes and first launches: the name decides (k before m), not the order of definition.
// CHECK-LABEL: lane.step @ties
// CHECK:      arena.array %k plain offset(0) bytes(256) live(0, 1)
// CHECK-NEXT: arena.array %m plain offset(256) bytes(256) live(0, 1)
lane.step @ties numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %m = lane.tensor "m" : !lane.tensor<64xf32>
  %k = lane.tensor "k" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "both" %x -> %m whole, %k whole
  lane.launch "read" %k, %m -> %y whole
  lane.output %y : !lane.tensor<64xf32>
}

// Equal sizes: the earlier first launch goes lower, whatever the names.
// CHECK-LABEL: lane.step @first_launch
// CHECK:      arena.array %a plain offset(256) bytes(256) live(1, 2)
// CHECK-NEXT: arena.array %z plain offset(0) bytes(256) live(0, 2)
lane.step @first_launch numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %z = lane.tensor "z" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "z" %x -> %z whole
  lane.launch "a" %x -> %a whole
  lane.launch "read" %a, %z -> %y whole
  lane.output %y : !lane.tensor<64xf32>
}
