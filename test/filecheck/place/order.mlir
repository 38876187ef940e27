// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck --check-prefix=JSON %s

// Largest first, each at the lowest offset clear of every placed array whose life overlaps its own; inputs and
// outputs keep buffers of their own.
// CHECK-LABEL: lane.step @chain
// JSON-LABEL: "step": "chain"
// CHECK-DAG:      %arena = arena.alloc bytes(768) align(256) lower_bound(768) algorithm("greedy")
// JSON: "arena_bytes": 768
// CHECK-DAG: %a = arena.tensor "a" %arena{{.*}} plain(512)
// JSON-DAG:  {"tensor": "a", "form": "plain", "offset": 512, "bytes": 256, "first": 0, "last": 1}
// CHECK-DAG: %b = arena.tensor "b" %arena{{.*}} plain(0)
// JSON-DAG: {"tensor": "b", "form": "plain", "offset": 0, "bytes": 512, "first": 1, "last": 2}
// CHECK-DAG: %c = arena.tensor "c" %arena{{.*}} plain(512)
// JSON-DAG: {"tensor": "c", "form": "plain", "offset": 512, "bytes": 256, "first": 2, "last": 3}
// CHECK-DAG: %x = {{.*}} own({{.*}}plain = input
// JSON-DAG:  {"tensor": "x", "form": "plain", "bytes": 256, "reason": "input"}
// CHECK-DAG: %y = {{.*}} own({{.*}}plain = output
// JSON-DAG: {"tensor": "y", "form": "plain", "bytes": 256, "reason": "output"}
lane.step @chain numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %b = lane.tensor "b" : !lane.tensor<128xf32>
  %c = lane.tensor "c" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %x, %x -> %a op(add)
  lane.launch "widen"(%a) -> (%b whole)
  lane.launch "narrow"(%b) -> (%c whole)
  lane.binary %c, %c -> %y op(mul)
  lane.output %y : !lane.tensor<64xf32>
}

// Equal sizes and first launches: the name decides (k before m), not the order of definition.
// CHECK-LABEL: lane.step @ties
// JSON-LABEL: "step": "ties"
// CHECK-DAG:      %k = arena.tensor "k" %arena{{.*}} plain(0)
// JSON-DAG:  {"tensor": "k", "form": "plain", "offset": 0, "bytes": 256, "first": 0, "last": 1}
// CHECK-DAG: %m = arena.tensor "m" %arena{{.*}} plain(256)
// JSON-DAG: {"tensor": "m", "form": "plain", "offset": 256, "bytes": 256, "first": 0, "last": 1}
lane.step @ties numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %m = lane.tensor "m" : !lane.tensor<64xf32>
  %k = lane.tensor "k" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "both"(%x) -> (%m whole, %k whole)
  lane.launch "read"(%k, %m) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// Equal sizes: the earlier first launch goes lower, whatever the names.
// CHECK-LABEL: lane.step @first_launch
// JSON-LABEL: "step": "first_launch"
// CHECK-DAG:      %a = arena.tensor "a" %arena{{.*}} plain(256)
// JSON-DAG:  {"tensor": "a", "form": "plain", "offset": 256, "bytes": 256, "first": 1, "last": 2}
// CHECK-DAG: %z = arena.tensor "z" %arena{{.*}} plain(0)
// JSON-DAG: {"tensor": "z", "form": "plain", "offset": 0, "bytes": 256, "first": 0, "last": 2}
lane.step @first_launch numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %z = lane.tensor "z" : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "z"(%x) -> (%z whole)
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "read"(%a, %z) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}
