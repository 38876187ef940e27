// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena place %s --algorithm greedy --json --quiet | filecheck --check-prefix=JSON %s

// Two-word numerics: a quantized array holds its words, its low words, then a scale a block of 32, each part
// aligned (2 x 2048 + 256 bytes). A split matrix product asks for its parts' sums (scratch, live while it runs)
// and a counter (a zeroed buffer of its own, never arena bytes).
// CHECK-LABEL: lane.step @two_words
// JSON-LABEL: "step": "two_words"
// CHECK:      %arena = arena.alloc bytes(12544) align(256) lower_bound(12544) algorithm("greedy")
// JSON: "arena_bytes": 12544
// CHECK-DAG: %h = arena.tensor "h" %arena{{.*}} plain(0) quant(8192)
// JSON:  {"tensor": "h", "form": "plain", "offset": 0, "bytes": 8192, "first": 0, "last": 0}
// JSON-NEXT: {"tensor": "h", "form": "quant", "offset": 8192, "bytes": 4352, "first": 0, "last": 1}
// CHECK-DAG: %y = arena.tensor "y" %arena{{.*}} plain(2048)
// JSON-NEXT: {"tensor": "y", "form": "plain", "offset": 2048, "bytes": 1024, "first": 1, "last": 2}
// CHECK-DAG: %fp = arena.scratch "fp" %arena[0] bytes(2048)
// JSON:  {"launch": 1, "tag": "fp", "offset": 0, "bytes": 2048}
// CHECK-DAG: %fq = arena.counter "fq" bytes(16)
// CHECK-DAG: lane.gemv %h(quant), %w -> %y split(2) scratch(%fp, %fq)
// JSON:  {"launch": 1, "tag": "fq", "bytes": 16}
lane.step @two_words numerics(int8x2) {
  %x = lane.input "x" : !lane.tensor<2048xf32>
  %g = lane.weight "g" : !lane.tensor<2048xf32>
  %w = lane.weight "w" : !lane.tensor<256x2048xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  %z = lane.tensor "z" : !lane.tensor<256xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %w -> %y split(2)
  lane.binary %y, %y -> %z op(add)
  lane.output %z : !lane.tensor<256xf32>
}

// The same step in one word: words then scales (2048 + 256 bytes).
// CHECK-LABEL: lane.step @one_word
// JSON-LABEL: "step": "one_word"
// CHECK:      %h = arena.tensor "h" %arena{{.*}} quant(8192)
// JSON:  {"tensor": "h", "form": "quant", "offset": 8192, "bytes": 2304, "first": 0, "last": 1}
lane.step @one_word numerics(int8) {
  %x = lane.input "x" : !lane.tensor<2048xf32>
  %g = lane.weight "g" : !lane.tensor<2048xf32>
  %w = lane.weight "w" : !lane.tensor<256x2048xi8>
  %h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %y = lane.tensor "y" : !lane.tensor<256xf32>
  %z = lane.tensor "z" : !lane.tensor<256xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %w -> %y split(2)
  lane.binary %y, %y -> %z op(add)
  lane.output %z : !lane.tensor<256xf32>
}

// Alignment is a pass option: with 128, the 2048 words and 256 scale bytes pack tighter.
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy align=128}' | filecheck %s --check-prefix=ALIGN
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy align=128}' -o %t && lanearena place %t --json --quiet | filecheck --check-prefix=ALIGNJSON %s
// ALIGN-LABEL: lane.step @scratch_only
// ALIGNJSON-LABEL: "step": "scratch_only"
// ALIGN:       %arena = arena.alloc bytes(128) align(128)
// ALIGNJSON: "arena_bytes": 128
// ALIGN:       arena.scratch "s" %arena[0] bytes(128)
// ALIGNJSON:   {"launch": 0, "tag": "s", "offset": 0, "bytes": 128}

// Generic scratch: live while its launch runs, so two launches' scratch share bytes; counters stay out.
// CHECK-LABEL: lane.step @scratch_only
// JSON-LABEL: "step": "scratch_only"
// CHECK:      %arena = arena.alloc bytes(256) align(256)
// JSON: "arena_bytes": 256
// CHECK-DAG: arena.scratch "s" %arena[0] bytes(256)
// JSON:  {"launch": 0, "tag": "s", "offset": 0, "bytes": 256}
// CHECK-DAG: arena.scratch "s" %arena[0] bytes(256)
// JSON-NEXT: {"launch": 1, "tag": "s", "offset": 0, "bytes": 256}
// CHECK-DAG: arena.counter "c" bytes(4)
// JSON:  {"launch": 1, "tag": "c", "bytes": 4}
lane.step @scratch_only numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "one"(%x) -> (%y whole) asks [#lane.scratch<"s", f32, 100>]
  lane.launch "two"(%x) -> (%y whole) asks [#lane.scratch<"s", i32, 12>, #lane.scratch<"c", counter, 4>]
  lane.output %y : !lane.tensor<64xf32>
}
