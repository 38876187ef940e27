// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck --check-prefix=JSON %s

// Kernel ops derive their touches and scratch from their kind and parameters:
// - rope rotates its operand in place (a read of what it writes: q must be written whole before);
// - kv_store writes a few rows of the caches (state: never placed);
// - attention split in 4 chunks keeps each chunk's (max, sum, 32 values) per head: 1 x 4 x 4 x 34 floats, and a
//   count per head (a counter);
// - argmax over 1000 values in blocks of 1024: one block's max and index, and a counter per row.
// CHECK-LABEL: lane.step @attend
// JSON-LABEL: "step": "attend"
// CHECK-DAG:  %q = arena.tensor "q" %arena{{.*}} plain({{[0-9]+}})
// JSON-DAG: {"tensor": "q", "form": "plain", "offset": {{[0-9]+}}, "bytes": 512, "first": 0, "last": 3}
// CHECK-DAG:  %kv = arena.tensor "kv" %arena{{.*}} plain({{[0-9]+}})
// JSON-DAG: {"tensor": "kv", "form": "plain", "offset": {{[0-9]+}}, "bytes": 512, "first": 0, "last": 2}
// CHECK-DAG:  arena.scratch "ap" %arena[{{[0-9]+}}] bytes(2304)
// JSON-DAG: {"launch": 3, "tag": "ap", "offset": {{[0-9]+}}, "bytes": 2304}
// CHECK-DAG:  arena.counter "ac" bytes(16)
// JSON-DAG: {"launch": 3, "tag": "ac", "bytes": 16}
// CHECK-DAG:  arena.scratch "av" %arena[{{[0-9]+}}] bytes(256)
// JSON-DAG: {"launch": 5, "tag": "av", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  arena.scratch "ai" %arena[{{[0-9]+}}] bytes(256)
// JSON-DAG: {"launch": 5, "tag": "ai", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  arena.counter "ac" bytes(4)
// JSON-DAG: {"launch": 5, "tag": "ac", "bytes": 4}
// CHECK-DAG:  %kc = {{.*}} own({{.*}}plain = state
// JSON-DAG: {"tensor": "kc", "form": "plain", "bytes": 8192, "reason": "state"}
// CHECK-DAG:  %tok = {{.*}} own({{.*}}plain = output
// CHECK-DAG:  lane.attention %q, %kc, %vc, %pos -> %o heads(4) kv_heads(2) splits(4) scratch(%ap, %ac)
// CHECK-DAG:  lane.argmax %logits -> %tok scratch(%av, %ai, %ac_1)
// JSON-DAG: {"tensor": "tok", "form": "plain", "bytes": 256, "reason": "output"}
lane.step @attend numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %wqkv = lane.weight "wqkv" : !lane.tensor<256x128xf32>
  %wl = lane.weight "wl" : !lane.tensor<1000x128xf32>
  %kc = lane.state "kc" : !lane.tensor<32x64xf32>
  %vc = lane.state "vc" : !lane.tensor<32x64xf32>
  %q = lane.tensor "q" : !lane.tensor<128xf32>
  %kv = lane.tensor "kv" : !lane.tensor<128xf32>
  %k = lane.view "k" %kv[0] : !lane.tensor<64xf32>
  %v = lane.view "v" %kv[64] : !lane.tensor<64xf32>
  %o = lane.tensor "o" : !lane.tensor<128xf32>
  %logits = lane.tensor "logits" : !lane.tensor<1000xf32>
  %tok = lane.tensor "tok" : !lane.tensor<1xi32>
  lane.launch "qkv"(%x) -> (%q whole, %kv whole)
  lane.rope %pos -> %q heads(4)
  lane.kv_store %k, %v, %pos -> %kc, %vc
  lane.attention %q, %kc, %vc, %pos -> %o heads(4) kv_heads(2) splits(4)
  lane.gemv %o, %wl -> %logits
  lane.argmax %logits -> %tok
  lane.output %tok : !lane.tensor<1xi32>
}

// rope on a tensor nothing wrote before: its read makes it unsafe.
// CHECK-LABEL: lane.step @rope_first
// JSON-LABEL: "step": "rope_first"
// CHECK:      %q = {{.*}} own({{.*}}plain = unsafe
// JSON:  {"tensor": "q", "form": "plain", "bytes": 512, "reason": "unsafe"}
lane.step @rope_first numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %q = lane.tensor "q" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.rope %pos -> %q heads(4)
  lane.binary %q, %q -> %y op(add)
  lane.output %y : !lane.tensor<128xf32>
}

// An expert mixture under int8: router logits, choices, weights, hidden rows and their quantized form as
// scratch, and the router's arrival count as a counter. 1 row, 4 experts, top 2, expert MLP 64 wide.
// CHECK-LABEL: lane.step @mixture
// JSON-LABEL: "step": "mixture"
// CHECK-DAG:  arena.scratch "i" %arena[{{[0-9]+}}] bytes(256)
// JSON-DAG: {"launch": 1, "tag": "i", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  arena.scratch "h" %arena[{{[0-9]+}}] bytes(512)
// JSON-DAG: {"launch": 1, "tag": "h", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  arena.scratch "hq" %arena[{{[0-9]+}}] bytes(256)
// JSON-DAG: {"launch": 1, "tag": "hq", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  arena.scratch "hs" %arena[{{[0-9]+}}] bytes(256)
// JSON-DAG: {"launch": 1, "tag": "hs", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  arena.counter "rc" bytes(4)
// JSON-DAG: {"launch": 1, "tag": "rc", "bytes": 4}
// CHECK-NOT:  "hl"
lane.step @mixture numerics(int8) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %g = lane.weight "g" : !lane.tensor<128xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x128xf32>
  %wg = lane.weight "wg" : !lane.tensor<4x64x128xi8>
  %wu = lane.weight "wu" : !lane.tensor<4x64x128xi8>
  %wd = lane.weight "wd" : !lane.tensor<4x128x64xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.moe %h(quant), %wr, %wg, %wu, %wd -> %y experts(4) topk(2)
  lane.output %y : !lane.tensor<128xf32>
}

// sample draws one token a row in one block of its own: no scratch, no counter; its parameters print where they
// are not their defaults (top_p 1 is); the logits it reads are placed in the arena, the draw is an input.
// CHECK-LABEL: lane.step @draw
// JSON-LABEL: "step": "draw"
// CHECK-DAG:  %logits = arena.tensor "logits" %arena{{.*}} plain({{[0-9]+}})
// JSON-DAG: {"tensor": "logits", "form": "plain", "offset": {{[0-9]+}}, "bytes": 8192, "first": 0, "last": 1}
// CHECK-DAG:  lane.sample %logits, %u -> %tok temperature(7.000000e-01) top_k(40){{$}}
// CHECK-NOT:  scratch
// CHECK:      lane.output
lane.step @draw numerics(f32) {
  %x = lane.input "x" : !lane.tensor<2x128xf32>
  %u = lane.input "u" : !lane.tensor<2xf32>
  %wl = lane.weight "wl" : !lane.tensor<1000x128xf32>
  %logits = lane.tensor "logits" : !lane.tensor<2x1000xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.gemv %x, %wl -> %logits
  lane.sample %logits, %u -> %tok temperature(0.7) top_k(40) top_p(1.0)
  lane.output %tok : !lane.tensor<2xi32>
}
