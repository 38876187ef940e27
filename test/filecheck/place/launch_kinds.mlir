// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck %s
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy},lane-arena-verify' | filecheck --check-prefix=IR %s

// Every launch kind past the basic ones, with the seed's scratch (../shared/seed/000_919828e1a8c71d07.txt,
// `scratch()`); sizes worked by hand from the seed's formulas (bytes before the 256-byte alignment in brackets):
// - gemv_rope (a qkv projection that turns its 4 q and 2 k heads as it finishes, int8 cut in 2): our parts 2 x 256
//   floats [2048], a count per 64 x 64 tile (4 tiles) [16], and the fold's count per turned head (4 + 2) x 4 [24];
// - attention_i8x2 over a 32-row cache of 2 kv heads of 32: keys and values in two words 2 x 32 x 2 x 32 [4096]
//   each, two scales a row 32 x 2 x 2 x 4 [512];
// - attention_shared cut in 2: 1 row x 4 heads x 2 x (32 + 2) floats [1088], no counter;
// - gemm_tc (128 columns, 1 row: 2 tiles, 1 whole) cut in 2: 1 x 2 parts of 1 x 64 floats [512], 1 count [4];
//   glu_tc (96 outputs, a tile the gate and up sums of 32: 3 tiles, 1 whole) cut in 4: 2 x 4 x 1 x 64 floats [2048], 2 counts [8];
// - moe_shared, top 2 of 8 experts of 64 and a shared expert of 32: hidden 2 x 64 + 32 floats [640], quantized
//   in two words [160, 160, 20]; moe_add_norm on one row norms in its last block: a count [4];
// - gemv_norm: its product's scratch and a count [4]; delta stepped (4 value heads of 32): outputs [512], a count
//   per head [16].

// CHECK-LABEL: "step": "decode_kinds"
// IR-LABEL: lane.step @decode_kinds
// The scratch and counters are operands of their launch in the placed IR.
// IR:       %gc = arena.counter "gc" bytes(24)
// IR-NEXT:  lane.gemv_rope %h(quant), %wqkv, %pos -> %qkv split(2) heads(4) kv_heads(2) scratch(%fp, %fq, %gc)
// IR:       %[[O:.*]] = arena.scratch "o" %arena[{{[0-9]+}}] bytes(512)
// IR-NEXT:  %dc = arena.counter "dc" bytes(16)
// IR-NEXT:  lane.delta %c, %z, %ab, %alog, %dtb, %dg -> %ds, %dout key_heads(2) scratch(%[[O]], %dc)
// CHECK-DAG:  {"launch": 1, "tag": "fp", "offset": {{[0-9]+}}, "bytes": 2048}
// CHECK-DAG:  {"launch": 3, "tag": "ak", "offset": {{[0-9]+}}, "bytes": 4096}
// CHECK-DAG:  {"launch": 3, "tag": "as", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  {"launch": 3, "tag": "aw", "offset": {{[0-9]+}}, "bytes": 4096}
// CHECK-DAG:  {"launch": 4, "tag": "ap", "offset": {{[0-9]+}}, "bytes": 1280}
// CHECK-DAG:  {"launch": 5, "tag": "tp", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  {"launch": 6, "tag": "tp", "offset": {{[0-9]+}}, "bytes": 2048}
// CHECK-DAG:  {"launch": 7, "tag": "g", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 7, "tag": "h", "offset": {{[0-9]+}}, "bytes": 768}
// CHECK-DAG:  {"launch": 7, "tag": "hl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 7, "tag": "hq", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 7, "tag": "hs", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 7, "tag": "i", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 7, "tag": "rl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 8, "tag": "g", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 8, "tag": "h", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  {"launch": 8, "tag": "hl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 8, "tag": "hq", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 8, "tag": "hs", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 8, "tag": "i", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 8, "tag": "rl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 9, "tag": "g", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 9, "tag": "h", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  {"launch": 9, "tag": "hl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 9, "tag": "hq", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 9, "tag": "hs", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 9, "tag": "i", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 9, "tag": "rl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 10, "tag": "fp", "offset": {{[0-9]+}}, "bytes": 1024}
// CHECK-DAG:  {"launch": 15, "tag": "o", "offset": {{[0-9]+}}, "bytes": 512}
// CHECK-DAG:  {"launch": 1, "tag": "fq", "bytes": 16}
// CHECK-DAG:  {"launch": 1, "tag": "gc", "bytes": 24}
// CHECK-DAG:  {"launch": 5, "tag": "tc", "bytes": 4}
// CHECK-DAG:  {"launch": 6, "tag": "tc", "bytes": 8}
// CHECK-DAG:  {"launch": 7, "tag": "rc", "bytes": 4}
// CHECK-DAG:  {"launch": 8, "tag": "rc", "bytes": 4}
// CHECK-DAG:  {"launch": 9, "tag": "rc", "bytes": 4}
// CHECK-DAG:  {"launch": 9, "tag": "gc", "bytes": 4}
// CHECK-DAG:  {"launch": 10, "tag": "fq", "bytes": 8}
// CHECK-DAG:  {"launch": 10, "tag": "gc", "bytes": 4}
// CHECK-DAG:  {"launch": 15, "tag": "dc", "bytes": 16}
lane.step @decode_kinds numerics(int8x2) {
  %ids = lane.input "ids" : !lane.tensor<1xi32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %embed = lane.weight "embed" : !lane.tensor<64x128xi8>
  %g = lane.weight "g" : !lane.tensor<128xf32>
  %wqkv = lane.weight "wqkv" : !lane.tensor<256x128xi8>
  %wo = lane.weight "wo" : !lane.tensor<128x128xi8>
  %wg = lane.weight "wg" : !lane.tensor<96x128xi8>
  %wu = lane.weight "wu" : !lane.tensor<96x128xi8>
  %wr = lane.weight "wr" : !lane.tensor<8x128xf32>
  %eg = lane.weight "eg" : !lane.tensor<8x64x128xi8>
  %eu = lane.weight "eu" : !lane.tensor<8x64x128xi8>
  %ed = lane.weight "ed" : !lane.tensor<8x128x64xi8>
  %sg = lane.weight "sg" : !lane.tensor<32x128xi8>
  %su = lane.weight "su" : !lane.tensor<32x128xi8>
  %sd = lane.weight "sd" : !lane.tensor<128x32xi8>
  %sr = lane.weight "sr" : !lane.tensor<1x128xf32>
  %cw = lane.weight "cw" : !lane.tensor<256x4xf32>
  %alog = lane.weight "alog" : !lane.tensor<4xf32>
  %dtb = lane.weight "dtb" : !lane.tensor<4xf32>
  %dg = lane.weight "dg" : !lane.tensor<32xf32>
  %wz = lane.weight "wz" : !lane.tensor<128x128xi8>
  %wab = lane.weight "wab" : !lane.tensor<8x128xi8>
  %kc = lane.state "kc" : !lane.tensor<32x64xf32>
  %vc = lane.state "vc" : !lane.tensor<32x64xf32>
  %cs = lane.state "cs" : !lane.tensor<3x256xf32>
  %ds = lane.state "ds" : !lane.tensor<4x32x32xf32>
  %x = lane.tensor "x" : !lane.tensor<128xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<128xf32>
  %qkv = lane.tensor "qkv" : !lane.tensor<256xf32>
  %q = lane.view "q" %qkv[0] : !lane.tensor<128xf32>
  %k = lane.view "k" %qkv[128] : !lane.tensor<64xf32>
  %v = lane.view "v" %qkv[192] : !lane.tensor<64xf32>
  %a = lane.tensor "a" : !lane.tensor<128xf32>
  %a2 = lane.tensor "a2" : !lane.tensor<128xf32>
  %o = lane.tensor "o" : !lane.tensor<128xf32>
  %m = lane.tensor "m" : !lane.tensor<96xf32>
  %y1 = lane.tensor "y1" : !lane.tensor<128xf32>
  %y2 = lane.tensor "y2" : !lane.tensor<128xf32>
  %y3 = lane.tensor "y3" : !lane.tensor<128xf32>
  %n3 = lane.tensor "n3" forms(plain, quant) : !lane.tensor<128xf32>
  %y4 = lane.tensor "y4" : !lane.tensor<128xf32>
  %n4 = lane.tensor "n4" forms(plain, quant) : !lane.tensor<128xf32>
  %c = lane.tensor "c" : !lane.tensor<256xf32>
  %z = lane.tensor "z" : !lane.tensor<128xf32>
  %ab = lane.tensor "ab" : !lane.tensor<8xf32>
  %dout = lane.tensor "dout" : !lane.tensor<128xf32>
  lane.gather_norm %embed, %ids, %g -> %x, %h(plain, quant)
  lane.gemv_rope %h(quant), %wqkv, %pos -> %qkv split(2) heads(4) kv_heads(2)
  lane.kv_store %k, %v, %pos -> %kc, %vc
  lane.attention_i8x2 %q, %kc, %vc, %pos -> %a heads(4) kv_heads(2)
  lane.attention_shared %q, %kc, %vc, %pos -> %a2 heads(4) kv_heads(2) splits(2)
  lane.gemm_tc %a, %wo -> %o split(2) whole(1)
  lane.glu_tc %a2, %wg, %wu -> %m split(4) whole(1)
  lane.moe_shared %h(quant), %wr, %eg, %eu, %ed, %sg, %su, %sd, %sr -> %y1 experts(8) topk(2)
  lane.moe_add %h, %wr, %eg, %eu, %ed, %x -> %y2 experts(8) topk(2)
  lane.moe_add_norm %h, %wr, %eg, %eu, %ed, %y2, %g -> %y3, %n3(plain, quant) experts(8) topk(2)
  lane.gemv_norm %n3(quant), %wo, %g -> %y4, %n4(plain, quant) split(2)
  lane.gemv %n4(quant), %wqkv -> %c
  lane.conv %c, %cw -> %cs, %c
  lane.gemv %n4(quant), %wz -> %z
  lane.gemv %n4(quant), %wab -> %ab
  lane.delta %c, %z, %ab, %alog, %dtb, %dg -> %ds, %dout key_heads(2)
  lane.output %y1, %o, %m, %y4, %dout : !lane.tensor<128xf32>, !lane.tensor<128xf32>, !lane.tensor<96xf32>, !lane.tensor<128xf32>, !lane.tensor<128xf32>
}


// A chunk of 4 rows under f32: the batch's gated pair on the tensor cores [1536] twice; the f32 product cut in 4
// in whole 64 x 64 tiles, 2 tiles x 4 x 256 x 16 x 4 [131072] and a count a tile [8]; the batched mixture (8
// choices) grouped by expert, on the tensor cores (hg, hu [2048]) with its router cut in 2 (1 tile: rp [32768],
// rq [4]); the delta rule in chunks of 64 (1 chunk, 4 heads of 32): o [2048], dk, dq 4 x 64 x 32 floats [32768],
// dt, dp 4 x 64 x 64 [65536], dg 4 x 64 [1024].
// CHECK-LABEL: "step": "chunk_kinds"
// IR-LABEL: lane.step @chunk_kinds
// CHECK-DAG:  {"launch": 0, "tag": "mg", "offset": {{[0-9]+}}, "bytes": 1536}
// CHECK-DAG:  {"launch": 0, "tag": "mu", "offset": {{[0-9]+}}, "bytes": 1536}
// CHECK-DAG:  {"launch": 1, "tag": "fp", "offset": {{[0-9]+}}, "bytes": 131072}
// CHECK-DAG:  {"launch": 2, "tag": "ec", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "el", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "eo", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "ep", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "g", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "gx", "offset": {{[0-9]+}}, "bytes": 4096}
// CHECK-DAG:  {"launch": 2, "tag": "h", "offset": {{[0-9]+}}, "bytes": 2048}
// CHECK-DAG:  {"launch": 2, "tag": "hg", "offset": {{[0-9]+}}, "bytes": 2048}
// CHECK-DAG:  {"launch": 2, "tag": "hu", "offset": {{[0-9]+}}, "bytes": 2048}
// CHECK-DAG:  {"launch": 2, "tag": "i", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "pa", "offset": {{[0-9]+}}, "bytes": 4096}
// CHECK-DAG:  {"launch": 2, "tag": "rl", "offset": {{[0-9]+}}, "bytes": 256}
// CHECK-DAG:  {"launch": 2, "tag": "rp", "offset": {{[0-9]+}}, "bytes": 32768}
// CHECK-DAG:  {"launch": 3, "tag": "dg", "offset": {{[0-9]+}}, "bytes": 1024}
// CHECK-DAG:  {"launch": 3, "tag": "dk", "offset": {{[0-9]+}}, "bytes": 32768}
// CHECK-DAG:  {"launch": 3, "tag": "dp", "offset": {{[0-9]+}}, "bytes": 65536}
// CHECK-DAG:  {"launch": 3, "tag": "dq", "offset": {{[0-9]+}}, "bytes": 32768}
// CHECK-DAG:  {"launch": 3, "tag": "dt", "offset": {{[0-9]+}}, "bytes": 65536}
// CHECK-DAG:  {"launch": 3, "tag": "o", "offset": {{[0-9]+}}, "bytes": 2048}
// CHECK-DAG:  {"launch": 1, "tag": "fq", "bytes": 8}
// CHECK-DAG:  {"launch": 2, "tag": "rc", "bytes": 16}
// CHECK-DAG:  {"launch": 2, "tag": "rq", "bytes": 4}
lane.step @chunk_kinds numerics(f32) {
  %x = lane.input "x" : !lane.tensor<4x128xf32>
  %wg = lane.weight "wg" : !lane.tensor<96x128xf32>
  %wu = lane.weight "wu" : !lane.tensor<96x128xf32>
  %w = lane.weight "w" : !lane.tensor<128x128xf32>
  %wr = lane.weight "wr" : !lane.tensor<8x128xf32>
  %eg = lane.weight "eg" : !lane.tensor<8x64x128xf32>
  %eu = lane.weight "eu" : !lane.tensor<8x64x128xf32>
  %ed = lane.weight "ed" : !lane.tensor<8x128x64xf32>
  %alog = lane.weight "alog" : !lane.tensor<4xf32>
  %dtb = lane.weight "dtb" : !lane.tensor<4xf32>
  %dg = lane.weight "dg" : !lane.tensor<32xf32>
  %ds = lane.state "ds" : !lane.tensor<4x32x32xf32>
  %m = lane.tensor "m" : !lane.tensor<4x96xf32>
  %p = lane.tensor "p" : !lane.tensor<4x128xf32>
  %y = lane.tensor "y" : !lane.tensor<4x128xf32>
  %qkv = lane.input "qkv" : !lane.tensor<4x256xf32>
  %ab = lane.input "ab" : !lane.tensor<4x8xf32>
  %o = lane.tensor "o" : !lane.tensor<4x128xf32>
  lane.glu_tc %x, %wg, %wu -> %m
  lane.gemv %x, %w -> %p split(4)
  lane.moe %p, %wr, %eg, %eu, %ed -> %y experts(8) topk(2) router_split(2) tc
  lane.delta %qkv, %y, %ab, %alog, %dtb, %dg -> %ds, %o key_heads(2)
  lane.output %m, %o : !lane.tensor<4x96xf32>, !lane.tensor<4x128xf32>
}
