// RUN: xdsl-opt %s -p lane-fuse | filecheck %s
// RUN: xdsl-opt %s -p 'lane-fuse,lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck %s --check-prefix=PLACED

// An int8 step whose widths 32 does not cut (`lanearena build oddmoe.json --set layers=1 --set vocab=64
// --set max_len=16 --set numerics=int8 --set lane_fuse=false`, hidden 80, five heads of 16, experts of 48): every
// product over 80 reads f32 (its weight f32, its row plain), and the mixture says `f32` (its hidden rows are not
// quantized). The fusions keep each product's forms: the norms go into f32 products and quantize nothing, the
// mixture keeps its f32 as it takes its residual (moe_add), and asks for no quantized hidden rows (no hq, hs).

// CHECK:      lane.norm_gemv %x0, %l0.attn_norm, %l0.wqkv -> %l0.qkv split(2){{$}}
// CHECK:      lane.gemv_add_norm %l0.attn, %l0.wo, %x0, %l0.mlp_norm -> %l0.xa, %l0.h2 split(2){{$}}
// CHECK:      lane.moe_add %l0.h2, %l0.w_router, %l0.w_gate, %l0.w_up, %l0.w_down, %l0.xa -> %x1 experts(4) topk(2) f32{{$}}
// CHECK-NOT:  quant
// CHECK:      lane.norm_gemv %x1, %final_norm, %lm_head -> %logits{{$}}

// PLACED:     lane.moe_add {{.*}} experts(4) topk(2) f32 scratch(%i, %g, %h, %rl, %rc){{$}}

builtin.module {
  lane.step @oddmoe numerics(int8) {
    %ids = lane.input "ids" : !lane.tensor<1xi32>
    %pos = lane.input "pos" : !lane.tensor<1xi32>
    %embed = lane.weight "embed" : !lane.tensor<64x80xf32>
    %x0 = lane.tensor "x0" : !lane.tensor<80xf32>
    lane.gather %embed, %ids -> %x0
    %l0.attn_norm = lane.weight "l0.attn_norm" : !lane.tensor<80xf32>
    %l0.h = lane.tensor "l0.h" : !lane.tensor<80xf32>
    lane.norm %x0, %l0.attn_norm -> %l0.h
    %l0.wqkv = lane.weight "l0.wqkv" : !lane.tensor<112x80xf32>
    %l0.qkv = lane.tensor "l0.qkv" : !lane.tensor<112xf32>
    lane.gemv %l0.h, %l0.wqkv -> %l0.qkv split(2)
    %l0.q = lane.view "l0.q" %l0.qkv[0] : !lane.tensor<80xf32>
    %l0.k = lane.view "l0.k" %l0.qkv[80] : !lane.tensor<16xf32>
    %l0.v = lane.view "l0.v" %l0.qkv[96] : !lane.tensor<16xf32>
    lane.rope %pos -> %l0.q heads(5)
    lane.rope %pos -> %l0.k heads(1)
    %l0.k_cache = lane.state "l0.k_cache" : !lane.tensor<16x16xf32>
    %l0.v_cache = lane.state "l0.v_cache" : !lane.tensor<16x16xf32>
    lane.kv_store %l0.k, %l0.v, %pos -> %l0.k_cache, %l0.v_cache
    %l0.attn = lane.tensor "l0.attn" : !lane.tensor<80xf32>
    lane.attention %l0.q, %l0.k_cache, %l0.v_cache, %pos -> %l0.attn heads(5) kv_heads(1)
    %l0.wo = lane.weight "l0.wo" : !lane.tensor<80x80xf32>
    %l0.o = lane.tensor "l0.o" : !lane.tensor<80xf32>
    lane.gemv %l0.attn, %l0.wo -> %l0.o split(2)
    %l0.xa = lane.tensor "l0.xa" : !lane.tensor<80xf32>
    lane.binary %x0, %l0.o -> %l0.xa
    %l0.mlp_norm = lane.weight "l0.mlp_norm" : !lane.tensor<80xf32>
    %l0.h2 = lane.tensor "l0.h2" : !lane.tensor<80xf32>
    lane.norm %l0.xa, %l0.mlp_norm -> %l0.h2
    %l0.w_router = lane.weight "l0.w_router" : !lane.tensor<4x80xf32>
    %l0.w_gate = lane.weight "l0.w_gate" : !lane.tensor<4x48x80xf32>
    %l0.w_up = lane.weight "l0.w_up" : !lane.tensor<4x48x80xf32>
    %l0.w_down = lane.weight "l0.w_down" : !lane.tensor<4x80x48xf32>
    %l0.d = lane.tensor "l0.d" : !lane.tensor<80xf32>
    lane.moe %l0.h2, %l0.w_router, %l0.w_gate, %l0.w_up, %l0.w_down -> %l0.d experts(4) topk(2) f32
    %x1 = lane.tensor "x1" : !lane.tensor<80xf32>
    lane.binary %l0.xa, %l0.d -> %x1
    %final_norm = lane.weight "final_norm" : !lane.tensor<80xf32>
    %hf = lane.tensor "hf" : !lane.tensor<80xf32>
    lane.norm %x1, %final_norm -> %hf
    %lm_head = lane.weight "lm_head" : !lane.tensor<64x80xf32>
    %logits = lane.tensor "logits" : !lane.tensor<64xf32>
    lane.gemv %hf, %lm_head -> %logits
    %token = lane.tensor "token" : !lane.tensor<1xi32>
    lane.argmax %logits -> %token
    lane.output %token, %logits : !lane.tensor<1xi32>, !lane.tensor<64xf32>
  }
}
