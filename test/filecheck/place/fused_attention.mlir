// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck %s
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck --check-prefix=IR %s

// The fused attention kinds' scratch, worked by hand (bytes before the 256-byte alignment in brackets): a chunk's
// (max, sum, hd weighed values) for each of 4 heads of 32, 4 x splits x (32 + 2) floats: 4 chunks [2176], 2 chunks
// [1088]; and a count of chunks arrived for each of the 2 kv heads, 2 x 4 = 8 bytes, a zeroed buffer of its own. The
// caches are state: never in the arena.

// CHECK-LABEL: "step": "fused"
// CHECK-DAG:  {"launch": 1, "tag": "ap", "offset": {{[0-9]+}}, "bytes": 2304}
// CHECK-DAG:  {"launch": 1, "tag": "ac", "bytes": 8}
// CHECK-DAG:  {"launch": 2, "tag": "ap", "offset": {{[0-9]+}}, "bytes": 1280}
// CHECK-DAG:  {"launch": 2, "tag": "ac", "bytes": 8}

// IR-LABEL: lane.step @fused
// IR:       %ap = arena.scratch "ap" %arena[{{[0-9]+}}] bytes(2304)
// IR-NEXT:  %ac = arena.counter "ac" bytes(8)
// IR-NEXT:  lane.rope_attention %q, %k, %v, %pos -> %kc, %vc, %a heads(4) kv_heads(2) splits(4) scaling(llama3) factor(3.200000e+01) original(8192) scratch(%ap, %ac)
// IR:       lane.norm_rope_attention %q, %k, %v, %pos, %qg, %kg -> %kc2, %vc2, %a2 heads(4) kv_heads(2) window(8) splits(2) scratch(

lane.step @fused numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %h = lane.input "h" : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<256x64xf32>
  %qkv = lane.tensor "qkv" : !lane.tensor<256xf32>
  lane.gemv %h, %w -> %qkv
  %q = lane.view "q" %qkv[0] : !lane.tensor<128xf32>
  %k = lane.view "k" %qkv[128] : !lane.tensor<64xf32>
  %v = lane.view "v" %qkv[192] : !lane.tensor<64xf32>
  %kc = lane.state "kc" : !lane.tensor<32x64xf32>
  %vc = lane.state "vc" : !lane.tensor<32x64xf32>
  %a = lane.tensor "a" : !lane.tensor<128xf32>
  lane.rope_attention %q, %k, %v, %pos -> %kc, %vc, %a heads(4) kv_heads(2) splits(4) scaling(llama3) factor(32.0) original(8192)
  %qg = lane.weight "qg" : !lane.tensor<32xf32>
  %kg = lane.weight "kg" : !lane.tensor<32xf32>
  %kc2 = lane.state "kc2" : !lane.tensor<32x64xf32>
  %vc2 = lane.state "vc2" : !lane.tensor<32x64xf32>
  %a2 = lane.tensor "a2" : !lane.tensor<128xf32>
  lane.norm_rope_attention %q, %k, %v, %pos, %qg, %kg -> %kc2, %vc2, %a2 heads(4) kv_heads(2) window(8) splits(2)
  lane.output %a, %a2 : !lane.tensor<128xf32>, !lane.tensor<128xf32>
}
