// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck --check-prefix=JSON %s

// Parts of every unit that join up to the whole unit across launches make the array safe.
// CHECK-LABEL: lane.step @parts_join
// JSON-LABEL: "step": "parts_join"
// CHECK:      %p = arena.tensor "p" %arena{{.*}} plain(0)
// JSON:  {"tensor": "p", "form": "plain", "offset": 0, "bytes": 512, "first": 0, "last": 2}
lane.step @parts_join numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "lo"(%x) -> (%p part<64, 0, 32>)
  lane.launch "hi"(%x) -> (%p part<64, 32, 32>)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// Parts that overlap and out of order still join.
// CHECK-LABEL: lane.step @parts_overlap
// JSON-LABEL: "step": "parts_overlap"
// CHECK:      %p = arena.tensor "p" %arena{{.*}} plain(0)
// JSON:  {"tensor": "p", "form": "plain", "offset": 0, "bytes": 512, "first": 0, "last": 3}
lane.step @parts_overlap numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "c"(%x) -> (%p part<64, 40, 24>)
  lane.launch "a"(%x) -> (%p part<64, 0, 20>)
  lane.launch "b"(%x) -> (%p part<64, 16, 30>)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// Two parts in one launch count together.
// CHECK-LABEL: lane.step @parts_one_launch
// JSON-LABEL: "step": "parts_one_launch"
// CHECK:      %p = arena.tensor "p" %arena{{.*}} plain(0)
// JSON:  {"tensor": "p", "form": "plain", "offset": 0, "bytes": 512, "first": 0, "last": 1}
lane.step @parts_one_launch numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "both"(%x) -> (%p part<64, 0, 32>, %p part<64, 32, 32>)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// A gap in the unit when it is first read: the array keeps its own buffer.
// CHECK-LABEL: lane.step @parts_gap
// JSON-LABEL: "step": "parts_gap"
// CHECK-NOT:  arena.tensor "p"
// CHECK:      %p = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "p", "form": "plain", "bytes": 512, "reason": "unsafe"}
lane.step @parts_gap numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "lo"(%x) -> (%p part<64, 0, 32>)
  lane.launch "hi"(%x) -> (%p part<64, 40, 24>)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// Parts of another pitch do not join.
// CHECK-LABEL: lane.step @pitch_change
// JSON-LABEL: "step": "pitch_change"
// CHECK:      %p = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "p", "form": "plain", "bytes": 512, "reason": "unsafe"}
lane.step @pitch_change numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "lo"(%x) -> (%p part<64, 0, 32>)
  lane.launch "hi"(%x) -> (%p part<128, 32, 96>)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}

// Read before it is written: what it reads was left by an earlier step, so it may not share bytes.
// CHECK-LABEL: lane.step @read_first
// JSON-LABEL: "step": "read_first"
// CHECK:      %p = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "p", "form": "plain", "bytes": 512, "reason": "unsafe"}
lane.step @read_first numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.launch "accumulate"(%p) -> (%p whole)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<128xf32>
}

// Read in the same launch that first writes it whole (an in-place update): unsafe too.
// CHECK-LABEL: lane.step @read_and_write
// JSON-LABEL: "step": "read_and_write"
// CHECK:      %p = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "p", "form": "plain", "bytes": 512, "reason": "unsafe"}
lane.step @read_and_write numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.launch "update"(%p, %x) -> (%p whole)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<128xf32>
}

// A write of another kind first (a few scattered rows), or a whole write through a view: unsafe.
// CHECK-LABEL: lane.step @other_writes
// JSON-LABEL: "step": "other_writes"
// CHECK:      %p = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "p", "form": "plain", "bytes": 512, "reason": "unsafe"}
// CHECK:      %r = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "r", "form": "plain", "bytes": 512, "reason": "unsafe"}
lane.step @other_writes numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %r = lane.tensor "r" : !lane.tensor<128xf32>
  %rv = lane.view "rv" %r[0] : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.launch "scatter"(%x) -> (%p other)
  lane.launch "through"(%x) -> (%rv whole)
  lane.launch "use"(%p, %r) -> (%y whole)
  lane.output %y : !lane.tensor<128xf32>
}

// Once written whole, later reads and in-place updates keep it placed.
// CHECK-LABEL: lane.step @whole_then_update
// JSON-LABEL: "step": "whole_then_update"
// CHECK:      %p = arena.tensor "p" %arena{{.*}} plain(0)
// JSON:  {"tensor": "p", "form": "plain", "offset": 0, "bytes": 512, "first": 0, "last": 2}
lane.step @whole_then_update numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %p = lane.tensor "p" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.launch "init"(%x) -> (%p whole)
  lane.launch "update"(%p) -> (%p other)
  lane.launch "use"(%p) -> (%y whole)
  lane.output %y : !lane.tensor<128xf32>
}
