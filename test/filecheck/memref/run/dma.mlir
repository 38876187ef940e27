// RUN: lanearena-run %s > %t.before
// RUN: lanearena-opt %s -p 'memref-arena-place{algorithm=greedy}' | tee %t.placed | lanearena-run > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.before --check-prefix=OUT
// RUN: filecheck %s --input-file=%t.placed
// RUN: not lanearena-run %s --symbol shared 2>&1 | filecheck %s --check-prefix=RACE

// DMA pairs as `affine-data-copy-generate` leaves them (hoisted buffers, a tag of two elements): each DMA reads its
// source until the `memref.dma_wait` on its tag element, so the host's temporaries made meanwhile take other
// bytes, and the waits come in the other order. lanearena-run copies when the DMA starts and checks at its wait that
// its bytes did not change; @shared is @main placed as the pass used to (%tmp on %lo's bytes) and fails there.

func.func @fill(%m: memref<16xf32>, %k: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.mulf %f, %k : f32
    memref.store %v, %m[%i] : memref<16xf32>
  }
  func.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %ten = arith.constant 10.0 : f32
  %fast = memref.alloc() : memref<32xf32, 1>
  %lo = memref.alloc() : memref<16xf32>
  %hi = memref.alloc() : memref<16xf32>
  %tag = memref.alloc() : memref<2xi32>
  %tmp = memref.alloc() : memref<16xf32>
  %late = memref.alloc() : memref<16xf32>
  func.call @fill(%lo, %one) : (memref<16xf32>, f32) -> ()
  func.call @fill(%hi, %ten) : (memref<16xf32>, f32) -> ()
  "memref.dma_start"(%lo, %c0, %fast, %c0, %c16, %tag, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<32xf32, 1>, index, index, memref<2xi32>, index) -> ()
  "memref.dma_start"(%hi, %c8, %fast, %c16, %c8, %tag, %c1) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<32xf32, 1>, index, index, memref<2xi32>, index) -> ()
  func.call @fill(%tmp, %ten) : (memref<16xf32>, f32) -> ()
  %x = memref.load %tmp[%c1] : memref<16xf32>
  printf.print_format "tmp[1] {}\n", %x : f32
  "memref.dma_wait"(%tag, %c1, %c8) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<2xi32>, index, index) -> ()
  "memref.dma_wait"(%tag, %c0, %c16) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<2xi32>, index, index) -> ()
  func.call @fill(%late, %one) : (memref<16xf32>, f32) -> ()
  printf.print_format "fast {}\n", %fast : memref<32xf32, 1>
  func.return
}

// OUT:      tmp[1] 10.0
// OUT-NEXT: fast [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 80.0, 90.0, 100.0, 110.0, 120.0, 130.0, 140.0, 150.0, nan, nan, nan, nan, nan, nan, nan, nan]

// CHECK-LABEL: func.func @main
// CHECK:         %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 1024 : i64, lanearena.lower_bound = 1024 : i64
// CHECK:         %fast = memref.alloc() {lanearena.own = "a memory space other than the default"} : memref<32xf32, 1 : i64>
// CHECK:         %lo_offset = arith.constant 0 : index
// CHECK:         %hi_offset = arith.constant 256 : index
// CHECK:         %tag_offset = arith.constant 512 : index
// CHECK:         %tmp_offset = arith.constant 768 : index
// CHECK:         {{"?}}memref.dma_wait{{"?}}{{ ?}}{{\(?}}%tag{{\[|, }}%c0{{\]?}}, %c16
// CHECK:         %late_offset = arith.constant 0 : index

// RACE: {{.*}}dma.mlir:[[# @LINE + 17]]:3: error: while running @shared: 'memref.dma_wait': bytes of memref.dma_start ({{.*}}dma.mlir:[[# @LINE + 14]]:3) changed while it was in flight: another buffer shares them, or the program races
func.func @shared() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %ten = arith.constant 10.0 : f32
  %arena = memref.alloc() {lanearena.bytes = 768 : i64} : memref<768xi8>
  %fast = memref.alloc() : memref<32xf32, 1>
  %at0 = arith.constant 0 : index
  %at512 = arith.constant 512 : index
  %lo = memref.view %arena[%at0][] : memref<768xi8> to memref<16xf32>
  %tag = memref.view %arena[%at512][] : memref<768xi8> to memref<2xi32>
  func.call @fill(%lo, %one) : (memref<16xf32>, f32) -> ()
  "memref.dma_start"(%lo, %c0, %fast, %c0, %c16, %tag, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<16xf32>, index, memref<32xf32, 1>, index, index, memref<2xi32>, index) -> ()
  %tmp = memref.view %arena[%at0][] : memref<768xi8> to memref<16xf32>
  func.call @fill(%tmp, %ten) : (memref<16xf32>, f32) -> ()
  "memref.dma_wait"(%tag, %c0, %c16) {operandSegmentSizes = array<i32: 1, 1, 1>} : (memref<2xi32>, index, index) -> ()
  func.return
}
