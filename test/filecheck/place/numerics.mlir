// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s

// Two-word numerics: a quantized array holds its words, its low words, then a scale a block of 32, each part
// aligned (2 x 2048 + 256 bytes). A split matrix product asks for its parts' sums (scratch, live while it runs)
// and a counter (a zeroed buffer of its own, never arena bytes).
// CHECK-LABEL: lane.step @two_words
// CHECK:      arena.alloc bytes(12544) align(256) lower_bound(12544) algorithm("greedy")
// CHECK-NEXT: arena.array %h plain offset(0) bytes(8192) live(0, 0)
// CHECK-NEXT: arena.array %h quant offset(8192) bytes(4352) live(0, 1)
// CHECK-NEXT: arena.array %y plain offset(2048) bytes(1024) live(1, 2)
// CHECK-NEXT: arena.scratch launch(1) "fp" offset(0) bytes(2048)
// CHECK-NEXT: arena.counter launch(1) "fq" bytes(16)
lane.step @two_words numerics(int8x2) {
  %x = lane.input "x" : !lane.tensor<2048xf32>
  %g = lane.weight "g" : !lane.tensor<2048xf32>
  %w = lane.weight "w" : !lane.tensor<256x2048xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  %z = lane.tensor "z" : !lane.tensor<256xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %w -> %y split(2)
  lane.binary %y, %y -> %z op("add")
  lane.output %z : !lane.tensor<256xf32>
}

// The same step in one word: words then scales (2048 + 256 bytes).
// CHECK-LABEL: lane.step @one_word
// CHECK:      arena.array %h quant offset(8192) bytes(2304) live(0, 1)
lane.step @one_word numerics(int8) {
  %x = lane.input "x" : !lane.tensor<2048xf32>
  %g = lane.weight "g" : !lane.tensor<2048xf32>
  %w = lane.weight "w" : !lane.tensor<256x2048xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  %z = lane.tensor "z" : !lane.tensor<256xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %w -> %y split(2)
  lane.binary %y, %y -> %z op("add")
  lane.output %z : !lane.tensor<256xf32>
}

// Alignment is a pass option: with 128, the 2048 words and 256 scale bytes pack tighter.
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy align=128}' | filecheck %s --check-prefix=ALIGN
// ALIGN-LABEL: lane.step @scratch_only
// ALIGN:       arena.alloc bytes(128) align(128)
// ALIGN:       arena.scratch launch(0) "s" offset(0) bytes(128)

// Generic scratch: live while its launch runs, so two launches' scratch share bytes; counters stay out.
// CHECK-LABEL: lane.step @scratch_only
// CHECK:      arena.alloc bytes(256) align(256)
// CHECK-NEXT: arena.scratch launch(0) "s" offset(0) bytes(256)
// CHECK-NEXT: arena.scratch launch(1) "s" offset(0) bytes(256)
// CHECK-NEXT: arena.counter launch(1) "c" bytes(4)
lane.step @scratch_only numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "one" %x -> %y whole scratch [#lane.scratch<"s", f32, 100>]
  lane.launch "two" %x -> %y whole scratch [#lane.scratch<"s", i32, 12>, #lane.scratch<"c", counter, 4>]
  lane.output %y : !lane.tensor<64xf32>
}
