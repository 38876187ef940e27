// RUN: xdsl-opt %s -p lane-fuse | filecheck %s
// RUN: xdsl-opt %s -p 'lane-fuse,lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s --check-prefix=PLACED
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s --check-prefix=UNFUSED

// A dense decoder layer under int8 (`lanearena build tiny --set layers=1 --set vocab=64 --set lane_fuse=false`):
// 14 launches a layer, 5 once fused. Each norm goes into the prologue of the products that alone read its row,
// quantized there as they read it; the residual adds into the output and down products' epilogues; the
// attention's quantize into the output product's prologue; the gated pair's quantize into its epilogue, which
// then writes its result quantized only; the ropes and the cache append into the attention. The rows between them
// leave the step, and the arena shrinks (6144 bytes unfused; the greedy order places the fused step 256 bytes over
// its lower bound).

// CHECK:      lane.gather %embed, %ids -> %x0
// CHECK-NOT:  "l0.h"
// CHECK:      lane.norm_gemv %x0, %l0.attn_norm, %l0.wqkv -> %l0.qkv split(2) quantize
// CHECK:      %l0.attn = lane.tensor "l0.attn" : !lane.tensor<128xf32>
// CHECK-NEXT: lane.rope_attention %l0.q, %l0.k, %l0.v, %pos -> %l0.k_cache, %l0.v_cache, %l0.attn heads(4) kv_heads(2)
// CHECK-NOT:  lane.quantize
// CHECK-NOT:  "l0.o"
// CHECK:      lane.gemv_add %l0.attn, %l0.wo, %x0 -> %l0.xa split(2) quantize
// CHECK-NOT:  "l0.h2"
// CHECK:      %l0.m = lane.tensor "l0.m" forms(quant) : !lane.tensor<256xf32>
// CHECK-NEXT: lane.norm_glu %l0.xa, %l0.mlp_norm, %l0.w_gate, %l0.w_up -> %l0.m(quant) split(2) quantize
// CHECK-NOT:  "l0.d"
// CHECK:      lane.gemv_add %l0.m(quant), %l0.w_down, %l0.xa -> %x1 split(2)
// CHECK-NOT:  "hf"
// CHECK:      lane.norm_gemv %x1, %final_norm, %lm_head -> %logits quantize
// CHECK-NEXT: %token = lane.tensor "token"
// CHECK-NEXT: lane.argmax %logits -> %token
// CHECK-NEXT: lane.output

// PLACED:     %arena = arena.alloc bytes(5376) align(256) lower_bound(5120) algorithm("greedy")
// PLACED:     %l0.m = arena.tensor "l0.m" %arena forms(quant) quant(
// PLACED:     lane.norm_glu %l0.xa, %l0.mlp_norm, %l0.w_gate, %l0.w_up -> %l0.m(quant) split(2) quantize scratch(%gp, %gq)

// UNFUSED:    %arena = arena.alloc bytes(6144) align(256) lower_bound(6144) algorithm("greedy")

builtin.module {
  lane.step @tiny numerics(int8) {
    %ids = lane.input "ids" : !lane.tensor<1xi32>
    %pos = lane.input "pos" : !lane.tensor<1xi32>
    %embed = lane.weight "embed" : !lane.tensor<64x128xi8>
    %x0 = lane.tensor "x0" : !lane.tensor<128xf32>
    lane.gather %embed, %ids -> %x0
    %l0.attn_norm = lane.weight "l0.attn_norm" : !lane.tensor<128xf32>
    %l0.h = lane.tensor "l0.h" forms(plain, quant) : !lane.tensor<128xf32>
    lane.norm %x0, %l0.attn_norm -> %l0.h(plain, quant)
    %l0.wqkv = lane.weight "l0.wqkv" : !lane.tensor<256x128xi8>
    %l0.qkv = lane.tensor "l0.qkv" : !lane.tensor<256xf32>
    lane.gemv %l0.h(quant), %l0.wqkv -> %l0.qkv split(2)
    %l0.q = lane.view "l0.q" %l0.qkv[0] : !lane.tensor<128xf32>
    %l0.k = lane.view "l0.k" %l0.qkv[128] : !lane.tensor<64xf32>
    %l0.v = lane.view "l0.v" %l0.qkv[192] : !lane.tensor<64xf32>
    lane.rope %pos -> %l0.q heads(4)
    lane.rope %pos -> %l0.k heads(2)
    %l0.k_cache = lane.state "l0.k_cache" : !lane.tensor<64x64xf32>
    %l0.v_cache = lane.state "l0.v_cache" : !lane.tensor<64x64xf32>
    lane.kv_store %l0.k, %l0.v, %pos -> %l0.k_cache, %l0.v_cache
    %l0.attn = lane.tensor "l0.attn" forms(plain, quant) : !lane.tensor<128xf32>
    lane.attention %l0.q, %l0.k_cache, %l0.v_cache, %pos -> %l0.attn heads(4) kv_heads(2) splits(2)
    lane.quantize %l0.attn -> %l0.attn(quant)
    %l0.wo = lane.weight "l0.wo" : !lane.tensor<128x128xi8>
    %l0.o = lane.tensor "l0.o" : !lane.tensor<128xf32>
    lane.gemv %l0.attn(quant), %l0.wo -> %l0.o split(2)
    %l0.xa = lane.tensor "l0.xa" : !lane.tensor<128xf32>
    lane.binary %x0, %l0.o -> %l0.xa
    %l0.mlp_norm = lane.weight "l0.mlp_norm" : !lane.tensor<128xf32>
    %l0.h2 = lane.tensor "l0.h2" forms(plain, quant) : !lane.tensor<128xf32>
    lane.norm %l0.xa, %l0.mlp_norm -> %l0.h2(plain, quant)
    %l0.w_gate = lane.weight "l0.w_gate" : !lane.tensor<256x128xi8>
    %l0.w_up = lane.weight "l0.w_up" : !lane.tensor<256x128xi8>
    %l0.m = lane.tensor "l0.m" forms(plain, quant) : !lane.tensor<256xf32>
    lane.glu %l0.h2(quant), %l0.w_gate, %l0.w_up -> %l0.m split(2)
    lane.quantize %l0.m -> %l0.m(quant)
    %l0.w_down = lane.weight "l0.w_down" : !lane.tensor<128x256xi8>
    %l0.d = lane.tensor "l0.d" : !lane.tensor<128xf32>
    lane.gemv %l0.m(quant), %l0.w_down -> %l0.d split(2)
    %x1 = lane.tensor "x1" : !lane.tensor<128xf32>
    lane.binary %l0.xa, %l0.d -> %x1
    %final_norm = lane.weight "final_norm" : !lane.tensor<128xf32>
    %hf = lane.tensor "hf" forms(plain, quant) : !lane.tensor<128xf32>
    lane.norm %x1, %final_norm -> %hf(plain, quant)
    %lm_head = lane.weight "lm_head" : !lane.tensor<64x128xi8>
    %logits = lane.tensor "logits" : !lane.tensor<64xf32>
    lane.gemv %hf(quant), %lm_head -> %logits
    %token = lane.tensor "token" : !lane.tensor<1xi32>
    lane.argmax %logits -> %token
    lane.output %token, %logits : !lane.tensor<1xi32>, !lane.tensor<64xf32>
  }
}
