// RUN: xdsl-opt %s -p lane-fuse | filecheck %s
// RUN: xdsl-opt %s -p 'lane-fuse,lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s --check-prefix=PLACED

// A mixture layer in f32 with a bias on q, k and v (`lanearena build tiny-moe --set layers=1 --set vocab=64
// --set qkv_bias=true --set numerics=f32 --set lane_fuse=false`): the norm goes into the biased product
// (norm_gemv_bias), nothing is quantized (f32 products read f32); the mixture's norm, which no product reads, goes
// into the epilogue of the output product before it (gemv_add_norm, its weight's and its row's declarations moved
// up to it), and the mixture takes its residual (moe_add).

// CHECK:      lane.norm_gemv_bias %x0, %l0.attn_norm, %l0.wqkv, %l0.bqkv -> %l0.qkv split(2){{$}}
// CHECK:      %l0.h2 = lane.tensor "l0.h2"
// CHECK-NEXT: %l0.mlp_norm = lane.weight "l0.mlp_norm"
// CHECK-NEXT: lane.gemv_add_norm %l0.attn, %l0.wo, %x0, %l0.mlp_norm -> %l0.xa, %l0.h2 split(2){{$}}
// CHECK-NOT:  lane.norm %
// CHECK-NOT:  "l0.d"
// CHECK:      lane.moe_add %l0.h2, %l0.w_router, %l0.w_gate, %l0.w_up, %l0.w_down, %l0.xa -> %x1 experts(4) topk(2)
// CHECK:      lane.norm_gemv %x1, %final_norm, %lm_head -> %logits{{$}}

// PLACED:     lane.norm_gemv_bias %x0, %l0.attn_norm, %l0.wqkv, %l0.bqkv -> %l0.qkv split(2) scratch(%fp, %fq)
// PLACED:     lane.gemv_add_norm %l0.attn, %l0.wo, %x0, %l0.mlp_norm -> %l0.xa, %l0.h2 split(2) scratch(
// PLACED:     lane.moe_add

builtin.module {
  lane.step @"tiny-moe" numerics(f32) {
    %ids = lane.input "ids" : !lane.tensor<1xi32>
    %pos = lane.input "pos" : !lane.tensor<1xi32>
    %embed = lane.weight "embed" : !lane.tensor<64x128xf32>
    %x0 = lane.tensor "x0" : !lane.tensor<128xf32>
    lane.gather %embed, %ids -> %x0
    %l0.attn_norm = lane.weight "l0.attn_norm" : !lane.tensor<128xf32>
    %l0.h = lane.tensor "l0.h" : !lane.tensor<128xf32>
    lane.norm %x0, %l0.attn_norm -> %l0.h
    %l0.wqkv = lane.weight "l0.wqkv" : !lane.tensor<256x128xf32>
    %l0.qkv = lane.tensor "l0.qkv" : !lane.tensor<256xf32>
    %l0.bqkv = lane.weight "l0.bqkv" : !lane.tensor<256xf32>
    lane.gemv_bias %l0.h, %l0.wqkv, %l0.bqkv -> %l0.qkv split(2)
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
    %l0.wo = lane.weight "l0.wo" : !lane.tensor<128x128xf32>
    %l0.o = lane.tensor "l0.o" : !lane.tensor<128xf32>
    lane.gemv %l0.attn, %l0.wo -> %l0.o split(2)
    %l0.xa = lane.tensor "l0.xa" : !lane.tensor<128xf32>
    lane.binary %x0, %l0.o -> %l0.xa
    %l0.mlp_norm = lane.weight "l0.mlp_norm" : !lane.tensor<128xf32>
    %l0.h2 = lane.tensor "l0.h2" : !lane.tensor<128xf32>
    lane.norm %l0.xa, %l0.mlp_norm -> %l0.h2
    %l0.w_router = lane.weight "l0.w_router" : !lane.tensor<4x128xf32>
    %l0.w_gate = lane.weight "l0.w_gate" : !lane.tensor<4x64x128xf32>
    %l0.w_up = lane.weight "l0.w_up" : !lane.tensor<4x64x128xf32>
    %l0.w_down = lane.weight "l0.w_down" : !lane.tensor<4x128x64xf32>
    %l0.d = lane.tensor "l0.d" : !lane.tensor<128xf32>
    lane.moe %l0.h2, %l0.w_router, %l0.w_gate, %l0.w_up, %l0.w_down -> %l0.d experts(4) topk(2)
    %x1 = lane.tensor "x1" : !lane.tensor<128xf32>
    lane.binary %l0.xa, %l0.d -> %x1
    %final_norm = lane.weight "final_norm" : !lane.tensor<128xf32>
    %hf = lane.tensor "hf" : !lane.tensor<128xf32>
    lane.norm %x1, %final_norm -> %hf
    %lm_head = lane.weight "lm_head" : !lane.tensor<64x128xf32>
    %logits = lane.tensor "logits" : !lane.tensor<64xf32>
    lane.gemv %hf, %lm_head -> %logits
    %token = lane.tensor "token" : !lane.tensor<1xi32>
    lane.argmax %logits -> %token
    lane.output %token, %logits : !lane.tensor<1xi32>, !lane.tensor<64xf32>
  }
}
