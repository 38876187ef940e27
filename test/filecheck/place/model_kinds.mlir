// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck %s
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck --check-prefix=IR %s

// The launch kinds and parameters Llama, Mistral, Qwen2, Mixtral and Qwen2-MoE add, with their scratch (sizes worked
// by hand from docs/placement.md's "Each kind's scratch"; bytes before the 256-byte alignment in brackets):
// - gemv_bias (Qwen2's q, k and v with their bias, int8 cut in 2): a bias adds no scratch, so gemv's: parts
//   2 x 1 x 192 floats [1536], a count per 64 x 64 tile (3 tiles) [12];
// - rope scaled as Llama 3.2's (llama3, factor 32, original 8192): no scratch;
// - attention over a sliding window of 16 cut in 2: 1 row x 2 heads x 2 x (32 + 2) floats [544], a count a head [8];
// - glu_bias (Llama's MLP with mlp_bias) cut in 2: gate and up parts 2 x 2 x 1 x 96 floats [1536], a count a row
//   and 64 columns (2) [8];
// - moe with Qwen2-MoE's gates (the chosen experts' shares of the softmax over all), top 2 of 4 experts of 64 on
//   one row: choices and gates [8] each, hidden 2 x 64 floats [512], logits [16], quantized [128, 16], a count [4].

// CHECK-LABEL: "step": "model_kinds"
// IR-LABEL: lane.step @model_kinds
// IR:      lane.gemv_bias %h(quant), %wqkv, %bqkv -> %qkv split(2) scratch(%fp, %fq)
// IR:      lane.rope %pos -> %q heads(2) theta(5.000000e+05) scaling(llama3) factor(3.200000e+01) original(8192)
// IR:      lane.attention %q, %kc, %vc, %pos -> %attn heads(2) kv_heads(1) splits(2) window(16) scratch(%ap, %ac)
// IR:      lane.glu_bias %h2(quant), %wg, %wu, %bg, %bu -> %m split(2) scratch(%gp, %gq)
// IR:      lane.moe %h3, %wr, %eg, %eu, %ed -> %y experts(4) topk(2) gates(all) scratch(
// CHECK-DAG:  {"launch": 2, "tag": "fp", "offset": {{[0-9]+}}, "bytes": 1536}
// CHECK-DAG:  {"launch": 4, "tag": "ap", "offset": {{[0-9]+}}, "bytes": 768}
// CHECK-DAG:  {"launch": 9, "tag": "gp", "offset": {{[0-9]+}}, "bytes": 1536}
// CHECK-DAG:  {"launch": 13, "tag": "i", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 13, "tag": "g", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 13, "tag": "h", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  {"launch": 13, "tag": "rl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 13, "tag": "hq", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 13, "tag": "hs", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "fq", "bytes": 12}
// CHECK-DAG:  {"launch": 4, "tag": "ac", "bytes": 8}
// CHECK-DAG:  {"launch": 9, "tag": "gq", "bytes": 8}
// CHECK-DAG:  {"launch": 13, "tag": "rc", "bytes": 4}
lane.step @model_kinds numerics(int8) {
  %ids = lane.input "ids" : !lane.tensor<1xi32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %embed = lane.weight "embed" : !lane.tensor<64x128xi8>
  %g = lane.weight "g" : !lane.tensor<128xf32>
  %wqkv = lane.weight "wqkv" : !lane.tensor<192x128xi8>
  %bqkv = lane.weight "bqkv" : !lane.tensor<192xf32>
  %kc = lane.state "kc" : !lane.tensor<64x32xf32>
  %vc = lane.state "vc" : !lane.tensor<64x32xf32>
  %wo = lane.weight "wo" : !lane.tensor<128x64xi8>
  %wg = lane.weight "wg" : !lane.tensor<96x128xi8>
  %wu = lane.weight "wu" : !lane.tensor<96x128xi8>
  %bg = lane.weight "bg" : !lane.tensor<96xf32>
  %bu = lane.weight "bu" : !lane.tensor<96xf32>
  %wd = lane.weight "wd" : !lane.tensor<128x96xi8>
  %wr = lane.weight "wr" : !lane.tensor<4x128xf32>
  %eg = lane.weight "eg" : !lane.tensor<4x64x128xi8>
  %eu = lane.weight "eu" : !lane.tensor<4x64x128xi8>
  %ed = lane.weight "ed" : !lane.tensor<4x128x64xi8>
  %x = lane.tensor "x" : !lane.tensor<128xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<128xf32>
  %qkv = lane.tensor "qkv" : !lane.tensor<192xf32>
  %q = lane.view "q" %qkv[0] : !lane.tensor<64xf32>
  %k = lane.view "k" %qkv[64] : !lane.tensor<32xf32>
  %v = lane.view "v" %qkv[96] : !lane.tensor<32xf32>
  %attn = lane.tensor "attn" forms(plain, quant) : !lane.tensor<64xf32>
  %o = lane.tensor "o" : !lane.tensor<128xf32>
  %xa = lane.tensor "xa" : !lane.tensor<128xf32>
  %h2 = lane.tensor "h2" forms(plain, quant) : !lane.tensor<128xf32>
  %m = lane.tensor "m" forms(plain, quant) : !lane.tensor<96xf32>
  %d = lane.tensor "d" : !lane.tensor<128xf32>
  %h3 = lane.tensor "h3" : !lane.tensor<128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.gather %embed, %ids -> %x
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv_bias %h(quant), %wqkv, %bqkv -> %qkv split(2)
  lane.rope %pos -> %q heads(2) theta(5.0e+05) scaling(llama3) factor(32.0) original(8192)
  lane.attention %q, %kc, %vc, %pos -> %attn heads(2) kv_heads(1) splits(2) window(16)
  lane.quantize %attn -> %attn(quant)
  lane.gemv %attn(quant), %wo -> %o
  lane.binary %x, %o -> %xa
  lane.norm %xa, %g -> %h2(plain, quant)
  lane.glu_bias %h2(quant), %wg, %wu, %bg, %bu -> %m split(2)
  lane.quantize %m -> %m(quant)
  lane.gemv %m(quant), %wd -> %d
  lane.norm %d, %g -> %h3
  lane.moe %h3, %wr, %eg, %eu, %ed -> %y experts(4) topk(2) gates(all)
  lane.output %y : !lane.tensor<128xf32>
}
