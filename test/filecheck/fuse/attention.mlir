// RUN: xdsl-opt %s -p lane-fuse | filecheck %s
// RUN: xdsl-opt %s -p lane-fuse,lane-arena-place{algorithm=greedy},lane-arena-verify | filecheck %s --check-prefix=PLACED

// A decode row's attention group (Qwen3's: q/k-norms, two ropes, the cache append, the attention) becomes one
// launch, its q and k read as projected, the rope's and the norms' parameters carried; the normed tensors leave the
// step. Its scratch: 4 heads x 4 chunks x (32 + 2) f32 partials = 2176 bytes, 2304 aligned; a counter a kv head.
// A chunk of two rows (Llama's: no norms) fuses too: its rows' q heads made into scratch `aq` (2 x 128 floats, 1024
// bytes) before they attend, 2 rows x 4 heads x 4 chunks x 34 floats of partials (4352 bytes), a count a row's kv
// head (16 bytes).

// CHECK-LABEL: lane.step @qwen3 numerics(int8x2)
// CHECK-NOT:   lane.tensor "qn"
// CHECK-NOT:   lane.tensor "kn"
// CHECK:       lane.norm_rope_attention %q, %k, %v, %pos, %q_norm, %k_norm -> %k_cache, %v_cache, %attn heads(4) kv_heads(2) splits(4) two_words theta(5.000000e+05) eps(1.000000e-05)
// CHECK-NOT:   lane.rope %
// CHECK-NOT:   lane.kv_store
// CHECK-NEXT:  lane.quantize %attn -> %attn(quant)

// PLACED-LABEL: lane.step @qwen3
// PLACED:       %ap = arena.scratch "ap" %arena[{{[0-9]+}}] bytes(2304)
// PLACED-NEXT:  %ac = arena.counter "ac" bytes(8)
// PLACED-NEXT:  lane.norm_rope_attention {{.*}} scratch(%ap, %ac)

lane.step @qwen3 numerics(int8x2) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %h = lane.input "h" : !lane.tensor<128xf32>
  %wqkv = lane.weight "wqkv" : !lane.tensor<256x128xf32>
  %qkv = lane.tensor "qkv" : !lane.tensor<256xf32>
  lane.gemv %h, %wqkv -> %qkv
  %q = lane.view "q" %qkv[0] : !lane.tensor<128xf32>
  %k = lane.view "k" %qkv[128] : !lane.tensor<64xf32>
  %v = lane.view "v" %qkv[192] : !lane.tensor<64xf32>
  %q_norm = lane.weight "q_norm" : !lane.tensor<32xf32>
  %qn = lane.tensor "qn" : !lane.tensor<128xf32>
  lane.norm %q, %q_norm -> %qn eps(1.0e-05)
  %k_norm = lane.weight "k_norm" : !lane.tensor<32xf32>
  %kn = lane.tensor "kn" : !lane.tensor<64xf32>
  lane.norm %k, %k_norm -> %kn eps(1.0e-05)
  lane.rope %pos -> %qn heads(4) theta(500000.0)
  lane.rope %pos -> %kn heads(2) theta(500000.0)
  %k_cache = lane.state "k_cache" : !lane.tensor<64x64xf32>
  %v_cache = lane.state "v_cache" : !lane.tensor<64x64xf32>
  lane.kv_store %kn, %v, %pos -> %k_cache, %v_cache
  %attn = lane.tensor "attn" forms(plain, quant) : !lane.tensor<128xf32>
  lane.attention_i8x2 %qn, %k_cache, %v_cache, %pos -> %attn heads(4) kv_heads(2)
  lane.quantize %attn -> %attn(quant)
  lane.output %attn : !lane.tensor<128xf32>
}

// CHECK-LABEL: lane.step @chunk numerics(f32)
// CHECK-NOT:   lane.rope %
// CHECK-NOT:   lane.kv_store
// CHECK:       lane.rope_attention %q, %k, %v, %pos -> %k_cache, %v_cache, %attn heads(4) kv_heads(2) splits(4)
// CHECK-NEXT:  lane.output %attn

// PLACED-LABEL: lane.step @chunk
// PLACED:       %aq = arena.scratch "aq" %arena[{{[0-9]+}}] bytes(1024)
// PLACED-NEXT:  %ap = arena.scratch "ap" %arena[{{[0-9]+}}] bytes(4352)
// PLACED-NEXT:  %ac = arena.counter "ac" bytes(16)
// PLACED-NEXT:  lane.rope_attention {{.*}} scratch(%aq, %ap, %ac)

lane.step @chunk numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<2xi32>
  %h = lane.input "h" : !lane.tensor<2x128xf32>
  %wq = lane.weight "wq" : !lane.tensor<128x128xf32>
  %wk = lane.weight "wk" : !lane.tensor<64x128xf32>
  %wv = lane.weight "wv" : !lane.tensor<64x128xf32>
  %q = lane.tensor "q" : !lane.tensor<2x128xf32>
  lane.gemv %h, %wq -> %q
  %k = lane.tensor "k" : !lane.tensor<2x64xf32>
  lane.gemv %h, %wk -> %k
  %v = lane.tensor "v" : !lane.tensor<2x64xf32>
  lane.gemv %h, %wv -> %v
  lane.rope %pos -> %q heads(4)
  lane.rope %pos -> %k heads(2)
  %k_cache = lane.state "k_cache" : !lane.tensor<64x64xf32>
  %v_cache = lane.state "v_cache" : !lane.tensor<64x64xf32>
  lane.kv_store %k, %v, %pos -> %k_cache, %v_cache
  %attn = lane.tensor "attn" : !lane.tensor<2x128xf32>
  lane.attention %q, %k_cache, %v_cache, %pos -> %attn heads(4) kv_heads(2)
  lane.output %attn : !lane.tensor<2x128xf32>
}
