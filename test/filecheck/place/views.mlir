// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck --check-prefix=JSON %s

// A touch of a view is a touch of the tensor it views: q lives until the launch that reads its view qk (so t, live
// at launch 1 and 2, cannot share its bytes), and the view keeps viewing q, with no array of its own.
// CHECK-LABEL: lane.step @through_view
// CHECK:      %arena = arena.alloc bytes(1024)
// CHECK:      %q = arena.tensor "q" %arena plain(0) : !lane.tensor<128xf32>
// CHECK-NEXT: %qk = lane.view "qk" %q[64] : !lane.tensor<64xf32>
// CHECK-NEXT: %t = arena.tensor "t" %arena plain(512) : !lane.tensor<128xf32>
// CHECK-NEXT: %u = lane.tensor "u" own(plain = output)
// JSON:       "step": "through_view"
// JSON:       {"tensor": "q", "form": "plain", "offset": 0, "bytes": 512, "first": 0, "last": 2}
lane.step @through_view numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %q = lane.tensor "q" : !lane.tensor<128xf32>
  %qk = lane.view "qk" %q[64] : !lane.tensor<64xf32>
  %t = lane.tensor "t" : !lane.tensor<128xf32>
  %u = lane.tensor "u" : !lane.tensor<64xf32>
  lane.launch "proj"(%x) -> (%q whole)
  lane.launch "copy"(%q) -> (%t whole)
  lane.launch "rot"(%qk) -> (%u whole)
  lane.output %u : !lane.tensor<64xf32>
}

// Views of views reach the tensor at the bottom.
// CHECK-LABEL: lane.step @nested
// CHECK:      %q = arena.tensor "q" %arena plain(0) : !lane.tensor<256xf32>
// CHECK-NEXT: %outer = lane.view "outer" %q[128] : !lane.tensor<128xf32>
// CHECK-NEXT: %inner = lane.view "inner" %outer[64] : !lane.tensor<64xf32>
// JSON:       "step": "nested"
// JSON:       {"tensor": "q", "form": "plain", "offset": 0, "bytes": 1024, "first": 0, "last": 1}
lane.step @nested numerics(f32) {
  %x = lane.input "x" : !lane.tensor<256xf32>
  %q = lane.tensor "q" : !lane.tensor<256xf32>
  %outer = lane.view "outer" %q[128] : !lane.tensor<128xf32>
  %inner = lane.view "inner" %outer[64] : !lane.tensor<64xf32>
  %u = lane.tensor "u" : !lane.tensor<64xf32>
  lane.launch "proj"(%x) -> (%q whole)
  lane.launch "use"(%inner) -> (%u whole)
  lane.output %u : !lane.tensor<64xf32>
}

// A quantized touch of a view that starts on a whole block (64 = 2 x 32) reads its tensor's quantized form in
// place; one that starts inside a block (16) has a quantized array of its own, which stays outside the arena.
// CHECK-LABEL: lane.step @quant_views
// CHECK:      %q = arena.tensor "q" %arena forms(plain, quant) plain(0) quant(1024) : !lane.tensor<256xf32>
// CHECK-NEXT: %va = lane.view "va" %q[64] forms(plain, quant) : !lane.tensor<64xf32>
// CHECK-NEXT: %vb = lane.view "vb" %q[16] forms(plain, quant) own(quant = view) : !lane.tensor<64xf32>
// JSON:       "step": "quant_views"
// JSON:       {"tensor": "q", "form": "plain", "offset": 0, "bytes": 1024, "first": 0, "last": 0}
// JSON-NEXT:  {"tensor": "q", "form": "quant", "offset": 1024, "bytes": 512, "first": 0, "last": 1}
// JSON:       {"tensor": "vb", "form": "quant", "bytes": 512, "reason": "view"}
lane.step @quant_views numerics(int8) {
  %x = lane.input "x" : !lane.tensor<256xf32>
  %q = lane.tensor "q" forms(plain, quant) : !lane.tensor<256xf32>
  %va = lane.view "va" %q[64] forms(plain, quant) : !lane.tensor<64xf32>
  %vb = lane.view "vb" %q[16] forms(plain, quant) : !lane.tensor<64xf32>
  %ya = lane.tensor "ya" : !lane.tensor<64xf32>
  %yb = lane.tensor "yb" : !lane.tensor<64xf32>
  lane.launch "proj"(%x) -> (%q(plain, quant) whole)
  lane.launch "qa"(%va(quant)) -> (%ya whole)
  lane.launch "qb"(%vb(quant)) -> (%yb whole)
  lane.output %ya, %yb : !lane.tensor<64xf32>, !lane.tensor<64xf32>
}

// A view in place whose tensor is not allocated in the quantized form: that array is not placed.
// CHECK-LABEL: lane.step @unallocated
// CHECK:      %q = arena.tensor "q" %arena plain(0) own(quant = unallocated) : !lane.tensor<256xf32>
// CHECK-NEXT: %va = lane.view "va" %q[0] forms(plain, quant) : !lane.tensor<64xf32>
lane.step @unallocated numerics(int8) {
  %x = lane.input "x" : !lane.tensor<256xf32>
  %q = lane.tensor "q" : !lane.tensor<256xf32>
  %va = lane.view "va" %q[0] forms(plain, quant) : !lane.tensor<64xf32>
  %ya = lane.tensor "ya" : !lane.tensor<64xf32>
  lane.launch "proj"(%x) -> (%q whole)
  lane.launch "fill"(%x) -> (%va(quant) whole)
  lane.launch "qa"(%va(quant)) -> (%ya whole)
  lane.output %ya : !lane.tensor<64xf32>
}
