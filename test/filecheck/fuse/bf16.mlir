// RUN: xdsl-opt %s -p lane-fuse | filecheck %s
// RUN: xdsl-opt %s -p 'lane-fuse,lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s --check-prefix=PLACED

// A dense decoder layer under bf16 (`lanearena build tiny --set layers=1 --set vocab=64 --set numerics=bf16 --set
// lane_fuse=false`): the fused kinds take bf16 weight matrices as the unfused products do (their kernels' `_bf16`
// instantiations), so the layer is 5 launches, as under f32: each norm in the prologue of the products that read its
// row, the residual adds in the output and down products' epilogues, the ropes and the cache append in the
// attention. No quantize: bf16 products read f32 activations.

// CHECK:      lane.gather %embed, %ids -> %x0
// CHECK-NOT:  "l0.h"
// CHECK:      lane.norm_gemv %x0, %l0.attn_norm, %l0.wqkv -> %l0.qkv split(2){{$}}
// CHECK:      lane.rope_attention %l0.q, %l0.k, %l0.v, %pos -> %l0.k_cache, %l0.v_cache, %l0.attn
// CHECK-NOT:  "l0.o"
// CHECK:      lane.gemv_add %l0.attn, %l0.wo, %x0 -> %l0.xa split(2){{$}}
// CHECK-NOT:  "l0.h2"
// CHECK:      lane.norm_glu %l0.xa, %l0.mlp_norm, %l0.w_gate, %l0.w_up -> %l0.m split(2){{$}}
// CHECK-NOT:  "l0.d"
// CHECK:      lane.gemv_add %l0.m, %l0.w_down, %l0.xa -> %x1 split(2){{$}}
// CHECK-NOT:  "hf"
// CHECK:      lane.norm_gemv %x1, %final_norm, %lm_head -> %logits{{$}}
// CHECK-NEXT: %token = lane.tensor "token"
// CHECK-NEXT: lane.argmax %logits -> %token
// CHECK-NEXT: lane.output

// PLACED:     lane.norm_glu %l0.xa, %l0.mlp_norm, %l0.w_gate, %l0.w_up -> %l0.m split(2) scratch(%gp, %gq)

builtin.module {
  lane.step @tiny numerics(bf16) {
    %ids = lane.input "ids" : !lane.tensor<1xi32>
    %pos = lane.input "pos" : !lane.tensor<1xi32>
    %embed = lane.weight "embed" : !lane.tensor<64x128xbf16>
    %x0 = lane.tensor "x0" : !lane.tensor<128xf32>
    lane.gather %embed, %ids -> %x0
    %l0.attn_norm = lane.weight "l0.attn_norm" : !lane.tensor<128xf32>
    %l0.h = lane.tensor "l0.h" : !lane.tensor<128xf32>
    lane.norm %x0, %l0.attn_norm -> %l0.h
    %l0.wqkv = lane.weight "l0.wqkv" : !lane.tensor<256x128xbf16>
    %l0.qkv = lane.tensor "l0.qkv" : !lane.tensor<256xf32>
    lane.gemv %l0.h, %l0.wqkv -> %l0.qkv split(2)
    %l0.q = lane.view "l0.q" %l0.qkv[0] : !lane.tensor<128xf32>
    %l0.k = lane.view "l0.k" %l0.qkv[128] : !lane.tensor<64xf32>
    %l0.v = lane.view "l0.v" %l0.qkv[192] : !lane.tensor<64xf32>
    lane.rope %pos -> %l0.q heads(4)
    lane.rope %pos -> %l0.k heads(2)
    %l0.k_cache = lane.state "l0.k_cache" : !lane.tensor<64x64xf32>
    %l0.v_cache = lane.state "l0.v_cache" : !lane.tensor<64x64xf32>
    lane.kv_store %l0.k, %l0.v, %pos -> %l0.k_cache, %l0.v_cache
    %l0.attn = lane.tensor "l0.attn" : !lane.tensor<128xf32>
    lane.attention %l0.q, %l0.k_cache, %l0.v_cache, %pos -> %l0.attn heads(4) kv_heads(2) splits(2)
    %l0.wo = lane.weight "l0.wo" : !lane.tensor<128x128xbf16>
    %l0.o = lane.tensor "l0.o" : !lane.tensor<128xf32>
    lane.gemv %l0.attn, %l0.wo -> %l0.o split(2)
    %l0.xa = lane.tensor "l0.xa" : !lane.tensor<128xf32>
    lane.binary %x0, %l0.o -> %l0.xa
    %l0.mlp_norm = lane.weight "l0.mlp_norm" : !lane.tensor<128xf32>
    %l0.h2 = lane.tensor "l0.h2" : !lane.tensor<128xf32>
    lane.norm %l0.xa, %l0.mlp_norm -> %l0.h2
    %l0.w_gate = lane.weight "l0.w_gate" : !lane.tensor<256x128xbf16>
    %l0.w_up = lane.weight "l0.w_up" : !lane.tensor<256x128xbf16>
    %l0.m = lane.tensor "l0.m" : !lane.tensor<256xf32>
    lane.glu %l0.h2, %l0.w_gate, %l0.w_up -> %l0.m split(2)
    %l0.w_down = lane.weight "l0.w_down" : !lane.tensor<128x256xbf16>
    %l0.d = lane.tensor "l0.d" : !lane.tensor<128xf32>
    lane.gemv %l0.m, %l0.w_down -> %l0.d split(2)
    %x1 = lane.tensor "x1" : !lane.tensor<128xf32>
    lane.binary %l0.xa, %l0.d -> %x1
    %final_norm = lane.weight "final_norm" : !lane.tensor<128xf32>
    %hf = lane.tensor "hf" : !lane.tensor<128xf32>
    lane.norm %x1, %final_norm -> %hf
    %lm_head = lane.weight "lm_head" : !lane.tensor<64x128xbf16>
    %logits = lane.tensor "logits" : !lane.tensor<64xf32>
    lane.gemv %hf, %lm_head -> %logits
    %token = lane.tensor "token" : !lane.tensor<1xi32>
    lane.argmax %logits -> %token
    lane.output %token, %logits : !lane.tensor<1xi32>, !lane.tensor<64xf32>
  }
}
