// RUN: lanearena-opt %s --verify-diagnostics --split-input-file | filecheck %s

// The kernel ops check their parameters, the forms and element types their kernels take, and their operands'
// shapes against the kind's semantics (which its scratch and kernels rely on).

// A count that is no integer, or not positive.
// CHECK: kernels.mlir:[[# @LINE + 6]]:31: error: Expected integer literal
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %q = lane.input "q0" : !lane.tensor<128xf32>
  %qr = lane.tensor "q" : !lane.tensor<128xf32>
  lane.binary %q, %q -> %qr op(add)
  lane.rope %pos -> %qr heads(2.5)
  lane.output
}

// -----

// CHECK: kernels.mlir:[[# @LINE + 6]]:49: error: Expected integer literal
lane.step @s numerics(f32) {
  %q = lane.input "q" : !lane.tensor<64xf32>
  %kc = lane.state "kc" : !lane.tensor<8x64xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %o = lane.tensor "o" : !lane.tensor<64xf32>
  lane.attention %q, %kc, %kc, %pos -> %o heads("four") kv_heads(1)
  lane.output
}

// -----

// CHECK: lane.attention: parameter 'kv_heads' must be positive, not 0 (in the launch writing 'o')
lane.step @s numerics(f32) {
  %q = lane.input "q" : !lane.tensor<64xf32>
  %kc = lane.state "kc" : !lane.tensor<8x64xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %o = lane.tensor "o" : !lane.tensor<64xf32>
  lane.attention %q, %kc, %kc, %pos -> %o heads(4) kv_heads(0)
  lane.output
}

// -----

// Only the matrix product writes rows into a wider tensor.
// CHECK: kernels.mlir:[[# @LINE + 5]]:30: error: Operation part is not registered
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %g = lane.weight "g" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.norm %x, %g -> %y part<128, 0, 64>
  lane.output
}

// -----

// A part of another width than the product's rows.
// CHECK: lane.gemv: a part of width 16 of every 64, but w makes 32 values a row
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<32x64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.gemv %x, %w -> %y part<64, 0, 16>
  lane.output
}

// -----

// An operand the kind's kernels take plain, touched quantized.
// CHECK: lane.binary: its kernels take 'a' in the plain form alone: 'a' names no form
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "w"(%x) -> (%h(plain, quant) whole)
  lane.binary %h(quant), %x -> %y
  lane.output
}

// -----

// CHECK: lane.gemv: its kernels take 'out' in the plain form alone: 'out' names no form
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<32x64xi8>
  %y = lane.tensor "y" forms(plain, quant) : !lane.tensor<32xf32>
  lane.gemv %x, %w -> %y(plain, quant)
  lane.output
}

// -----

// A quantize writes the quantized form alone.
// CHECK: lane.quantize writes the quant form of 'h' alone, not (plain, quant)
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  lane.quantize %x -> %h(plain, quant)
  lane.output
}

// -----

// Positions are i32.
// CHECK: lane.rope: 'pos' (its 'pos') is f32, but the kernels take i32
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xf32>
  %q = lane.tensor "q" : !lane.tensor<128xf32>
  lane.launch "w"(%pos) -> (%q whole)
  lane.rope %pos -> %q heads(4)
  lane.output
}

// -----

// A norm's gain is f32.
// CHECK: lane.norm: 'g' (its 'gain') is i8, but the kernels take f32
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %g = lane.weight "g" : !lane.tensor<64xi8>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  lane.norm %x, %g -> %h
  lane.output
}

// -----

// gather: the output holds a table row an id.
// CHECK: lane.gather: out 'x' holds 64 values, but 2 ids of table rows of 64 values make 128
lane.step @s numerics(f32) {
  %t = lane.weight "t" : !lane.tensor<100x64xf32>
  %ids = lane.input "ids" : !lane.tensor<2xi32>
  %x = lane.tensor "x" : !lane.tensor<64xf32>
  lane.gather %t, %ids -> %x
  lane.output
}

// -----

// norm: the gain's length divides x into rows.
// CHECK: lane.norm: gain 'g' of 48 values does not divide x 'x' of 64 values into rows
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %g = lane.weight "g" : !lane.tensor<48xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  lane.norm %x, %g -> %h
  lane.output
}

// -----

// CHECK: lane.norm: rows of 16 values cannot be quantized in 32-value blocks
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %g = lane.weight "g" : !lane.tensor<16xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.output
}

// -----

// quantize: of the length it reads.
// CHECK: lane.quantize: out 'h' holds 64 values, but the 32 values of x 'x' make 32
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<32xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  lane.quantize %x -> %h(quant)
  lane.output
}

// -----

// gemv: x is rows of w's k values.
// CHECK: lane.gemv: x 'x' of 48 values is not rows of w 'w''s 64 values (k)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<48xf32>
  %w = lane.weight "w" : !lane.tensor<32x64xf32>
  %y = lane.tensor "y" : !lane.tensor<32xf32>
  lane.gemv %x, %w -> %y
  lane.output
}

// -----

// CHECK: lane.gemv: w 'w' is (4, 32, 64), not a matrix [n, k]
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<4x32x64xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.gemv %x, %w -> %y
  lane.output
}

// -----

// CHECK: lane.gemv: out 'y' holds 64 values, but 2 rows of 16 values make 32
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<2x64xf32>
  %w = lane.weight "w" : !lane.tensor<16x64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.gemv %x, %w -> %y
  lane.output
}

// -----

// A quantized product works in whole blocks of k.
// CHECK: lane.gemv: k of 16 values is not a whole number of 32-value blocks, as a quantized product needs
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<64xf32>
  %w = lane.weight "w" : !lane.tensor<32x16xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.launch "w"(%x) -> (%h(plain, quant) whole)
  lane.gemv %h(quant), %w -> %y
  lane.output
}

// -----

// glu: the gate and up weights are one shape.
// CHECK: lane.glu: w_up 'wu' is (32, 32), but w_gate is (32, 64)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %wg = lane.weight "wg" : !lane.tensor<32x64xf32>
  %wu = lane.weight "wu" : !lane.tensor<32x32xf32>
  %y = lane.tensor "y" : !lane.tensor<32xf32>
  lane.glu %x, %wg, %wu -> %y
  lane.output
}

// -----

// rope: rows (one a position) of heads of an even size.
// CHECK: lane.rope: x 'q' of 100 values is not 1 rows (positions) of 4 heads of an even size
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %x = lane.input "x" : !lane.tensor<100xf32>
  %q = lane.tensor "q" : !lane.tensor<100xf32>
  lane.binary %x, %x -> %q
  lane.rope %pos -> %q heads(4)
  lane.output
}

// -----

// kv_store: a row of the caches a position.
// CHECK: lane.kv_store: 'k' of 32 values is not 1 rows (positions) of the caches' 64
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %k = lane.input "k" : !lane.tensor<32xf32>
  %v = lane.input "v" : !lane.tensor<64xf32>
  %kc = lane.state "kc" : !lane.tensor<8x64xf32>
  %vc = lane.state "vc" : !lane.tensor<8x64xf32>
  lane.kv_store %k, %v, %pos -> %kc, %vc
  lane.output
}

// -----

// CHECK: lane.kv_store: caches 'kc' (8, 64) and 'vc' (4, 64) are not two caches [length, width] of one shape
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %k = lane.input "k" : !lane.tensor<64xf32>
  %kc = lane.state "kc" : !lane.tensor<8x64xf32>
  %vc = lane.state "vc" : !lane.tensor<4x64xf32>
  lane.kv_store %k, %k, %pos -> %kc, %vc
  lane.output
}

// -----

// attention: q is rows of heads, kv heads divide them, the caches hold the kv heads.
// CHECK: lane.attention: q 'q' (100,) is not 1 rows (positions) of 8 heads
lane.step @s numerics(f32) {
  %q = lane.input "q" : !lane.tensor<100xf32>
  %kc = lane.state "kc" : !lane.tensor<8x64xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %o = lane.tensor "o" : !lane.tensor<100xf32>
  lane.attention %q, %kc, %kc, %pos -> %o heads(8) kv_heads(2)
  lane.output
}

// -----

// CHECK: lane.attention: kv_heads 3 do not divide heads 4
lane.step @s numerics(f32) {
  %q = lane.input "q" : !lane.tensor<128xf32>
  %kc = lane.state "kc" : !lane.tensor<8x96xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %o = lane.tensor "o" : !lane.tensor<128xf32>
  lane.attention %q, %kc, %kc, %pos -> %o heads(4) kv_heads(3)
  lane.output
}

// -----

// CHECK: lane.attention: caches 'kc' (8, 32) and 'kc' (8, 32) are not [length, 2 kv heads of 32] both
lane.step @s numerics(f32) {
  %q = lane.input "q" : !lane.tensor<128xf32>
  %kc = lane.state "kc" : !lane.tensor<8x32xf32>
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %o = lane.tensor "o" : !lane.tensor<128xf32>
  lane.attention %q, %kc, %kc, %pos -> %o heads(4) kv_heads(2)
  lane.output
}

// -----

// moe: expert weights [experts, ffn, d], a router [experts, d], top-k of the experts.
// CHECK: lane.moe: w_gate 'wg' is (64, 128), not [4 experts, ffn, d]
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x128xf32>
  %wg = lane.weight "wg" : !lane.tensor<64x128xf32>
  %wu = lane.weight "wu" : !lane.tensor<64x128xf32>
  %wd = lane.weight "wd" : !lane.tensor<128x64xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.moe %x, %wr, %wg, %wu, %wd -> %y experts(4) topk(2)
  lane.output
}

// -----

// CHECK: lane.moe: w_down 'wd' is (4, 64, 128), not (4, 128, 64)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x128xf32>
  %wg = lane.weight "wg" : !lane.tensor<4x64x128xf32>
  %wu = lane.weight "wu" : !lane.tensor<4x64x128xf32>
  %wd = lane.weight "wd" : !lane.tensor<4x64x128xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.moe %x, %wr, %wg, %wu, %wd -> %y experts(4) topk(2)
  lane.output
}

// -----

// CHECK: lane.moe: topk 5 exceeds the 4 experts
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x128xf32>
  %wg = lane.weight "wg" : !lane.tensor<4x64x128xf32>
  %wu = lane.weight "wu" : !lane.tensor<4x64x128xf32>
  %wd = lane.weight "wd" : !lane.tensor<4x128x64xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.moe %x, %wr, %wg, %wu, %wd -> %y experts(4) topk(5)
  lane.output
}

// -----

// Under int8 numerics each choice's hidden row is quantized: whole blocks.
// CHECK: lane.moe: a hidden row of 48 values is not a whole number of 32-value blocks, as a quantized product needs
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x128xf32>
  %wg = lane.weight "wg" : !lane.tensor<4x48x128xf32>
  %wu = lane.weight "wu" : !lane.tensor<4x48x128xf32>
  %wd = lane.weight "wd" : !lane.tensor<4x128x48xf32>
  %y = lane.tensor "y" : !lane.tensor<128xf32>
  lane.moe %x, %wr, %wg, %wu, %wd -> %y experts(4) topk(2)
  lane.output
}

// -----

// binary: one length.
// CHECK: lane.binary: a 'x', b 'z' and out 'y' hold 64, 32 and 64 values, not one length
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %z = lane.input "z" : !lane.tensor<32xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %x, %z -> %y
  lane.output
}

// -----

// argmax: a token a row of logits.
// CHECK: lane.argmax: out 'tok' holds 2 values, but 1 rows of 1000 logits make 1
lane.step @s numerics(f32) {
  %l = lane.input "l" : !lane.tensor<1000xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.argmax %l -> %tok
  lane.output
}

// -----

// A llama3 scaling measures wavelengths against the length the model was trained at: it must be given.
// CHECK: kernels.mlir:[[# @LINE + 5]]:3: error: lane.rope: scaling llama3 needs the original length the model was trained at (original) (in the launch writing 'q')
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %q0 = lane.input "q0" : !lane.tensor<128xf32>
  %q = lane.tensor "q" : !lane.tensor<128xf32>
  lane.rope %pos -> %q heads(2) scaling(llama3) factor(8.0)
  lane.output
}

// -----

// A scaling is one of the rope types lanearena reads.
// CHECK: kernels.mlir:[[# @LINE + 5]]:41: error: Expected `default`{{.*}}`llama3`
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %q = lane.tensor "q" : !lane.tensor<128xf32>
  lane.binary %q, %q -> %q
  lane.rope %pos -> %q heads(2) scaling(yarn)
  lane.output
}

// -----

// A bias holds one value a column of the product.
// CHECK: lane.gemv_bias: bias 'b' is (64,), not one value a column (96,)
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<128xf32>
  %w = lane.weight "w" : !lane.tensor<96x128xf32>
  %b = lane.weight "b" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<96xf32>
  lane.gemv_bias %x, %w, %b -> %y
  lane.output
}

// -----

// A router's gates are the softmax over the chosen experts or over all of them.
// CHECK: kernels.mlir:[[# @LINE + 8]]:66: error: Expected `chosen`{{.*}}`all`
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x64xf32>
  %wg = lane.weight "wg" : !lane.tensor<4x32x64xf32>
  %wu = lane.weight "wu" : !lane.tensor<4x32x64xf32>
  %wd = lane.weight "wd" : !lane.tensor<4x64x32xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.moe %x, %wr, %wg, %wu, %wd -> %y experts(4) topk(2) gates(some)
  lane.output
}

// -----

// A router is f32 or bf16, never Q8_0.
// CHECK: lane.moe: 'wr' (its 'w_router') is i8, but the kernels take f32 or bf16
lane.step @s numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %wr = lane.weight "wr" : !lane.tensor<4x64xi8>
  %wg = lane.weight "wg" : !lane.tensor<4x32x64xi8>
  %wu = lane.weight "wu" : !lane.tensor<4x32x64xi8>
  %wd = lane.weight "wd" : !lane.tensor<4x64x32xi8>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.moe %x, %wr, %wg, %wu, %wd -> %y experts(4) topk(2)
  lane.output
}

// -----

// A norm's gain stays f32 under bf16.
// CHECK: lane.norm: 'g' (its 'gain') is bf16, but the kernels take f32
lane.step @s numerics(bf16) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %g = lane.weight "g" : !lane.tensor<64xbf16>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  lane.norm %x, %g -> %h
  lane.output
}

// -----

// A launch's weight matrices are bf16 all or none: its kernels read them in one element.
// CHECK: lane.glu: weights of bf16, f32, but a launch's kernels read their weight matrices in one element: bf16 all or none (in the launch writing 'y')
lane.step @s numerics(bf16) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %wg = lane.weight "wg" : !lane.tensor<32x64xbf16>
  %wu = lane.weight "wu" : !lane.tensor<32x64xf32>
  %y = lane.tensor "y" : !lane.tensor<32xf32>
  lane.glu %x, %wg, %wu -> %y
  lane.output
}

// -----

// A sampled token needs a temperature above 0 (its weights are exp((x - max) / temperature): NaN at 0; lane.argmax
// is the arg-max), and a finite one; every float parameter of a kind is positive, so the generic check refuses 0.
// CHECK: kernels.mlir:[[# @LINE + 7]]:3: error: lane.sample: parameter 'temperature' must be positive, not 0.0 (in the launch writing 'tok')
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<2x64xf32>
  %u = lane.input "u" : !lane.tensor<2xf32>
  %wl = lane.weight "wl" : !lane.tensor<100x64xf32>
  %logits = lane.tensor "logits" : !lane.tensor<2x100xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.sample %logits, %u -> %tok temperature(0.0)
  lane.output %tok : !lane.tensor<2xi32>
}

// -----

// CHECK: kernels.mlir:[[# @LINE + 5]]:3: error: lane.sample: parameter 'temperature' must be positive, not -0.5 (in the launch writing 'tok')
lane.step @s numerics(f32) {
  %logits = lane.input "logits" : !lane.tensor<2x100xf32>
  %u = lane.input "u" : !lane.tensor<2xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.sample %logits, %u -> %tok temperature(-0.5)
  lane.output %tok : !lane.tensor<2xi32>
}

// -----

// top_p is a share of the weight: in (0, 1]; at 0 or below no token is kept.
// CHECK: kernels.mlir:[[# @LINE + 5]]:3: error: lane.sample: parameter 'top_p' must be positive, not 0.0 (in the launch writing 'tok')
lane.step @s numerics(f32) {
  %logits = lane.input "logits" : !lane.tensor<2x100xf32>
  %u = lane.input "u" : !lane.tensor<2xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.sample %logits, %u -> %tok temperature(0.7) top_p(0.0)
  lane.output %tok : !lane.tensor<2xi32>
}

// -----

// CHECK: kernels.mlir:[[# @LINE + 5]]:3: error: lane.sample: top_p must be at most 1, not 1.5 (in the launch writing 'tok')
lane.step @s numerics(f32) {
  %logits = lane.input "logits" : !lane.tensor<2x100xf32>
  %u = lane.input "u" : !lane.tensor<2xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.sample %logits, %u -> %tok temperature(0.7) top_p(1.5)
  lane.output %tok : !lane.tensor<2xi32>
}

// -----

// CHECK: kernels.mlir:[[# @LINE + 5]]:3: error: lane.sample: temperature must be finite, not inf (in the launch writing 'tok')
lane.step @s numerics(f32) {
  %logits = lane.input "logits" : !lane.tensor<2x100xf32>
  %u = lane.input "u" : !lane.tensor<2xf32>
  %tok = lane.tensor "tok" : !lane.tensor<2xi32>
  lane.sample %logits, %u -> %tok temperature(1.0e400)
  lane.output %tok : !lane.tensor<2xi32>
}
