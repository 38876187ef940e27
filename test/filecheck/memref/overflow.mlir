// RUN: lanearena-opt %s --split-input-file -p 'memref-arena-place{algorithm=greedy}' | filecheck %s
// RUN: lanearena-opt %s --split-input-file -p memref-arena-place | filecheck %s

// Sizes are exact integers: an allocation of more than 2^48 bytes (a GPU's address space; 2^62 and 2^63 bytes
// below, the second past what `index` holds) keeps its own, and so do buffers that would need an arena past 2^48
// bytes. At 2^48 exactly the arena holds both buffers.

func.func @huge(%x: f32) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<1152921504606846976xf32>
  %b = memref.alloc() : memref<1152921504606846976xf32>
  %c = memref.alloc() : memref<1152921504606846976xi64>
  memref.store %x, %a[%c0] : memref<1152921504606846976xf32>
  memref.store %x, %b[%c0] : memref<1152921504606846976xf32>
  memref.store %x, %a[%c0] : memref<1152921504606846976xf32>
  func.return
}

// CHECK-LABEL: func.func @huge
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.alloc() {lanearena.own = "4611686018427387904 bytes, more than a device addresses (2^48)"}
// CHECK-NEXT:    %b = memref.alloc() {lanearena.own = "4611686018427387904 bytes, more than a device addresses (2^48)"}
// CHECK-NEXT:    %c = memref.alloc() {lanearena.own = "9223372036854775808 bytes, more than a device addresses (2^48)"}

// -----

func.func @at_the_limit(%x: f32) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<35184372088832xf32>
  %b = memref.alloc() : memref<35184372088832xf32>
  memref.store %x, %a[%c0] : memref<35184372088832xf32>
  memref.store %x, %b[%c0] : memref<35184372088832xf32>
  memref.store %x, %a[%c0] : memref<35184372088832xf32>
  func.return
}

// CHECK-LABEL: func.func @at_the_limit
// CHECK-NEXT:    %arena = memref.alloc() {alignment = 256 : i64, lanearena.bytes = 281474976710656 : i64, lanearena.lower_bound = 281474976710656 : i64
// CHECK:         %a_offset = arith.constant {{0|140737488355328}} : index
// CHECK:         %b_offset = arith.constant {{0|140737488355328}} : index

// -----

func.func @past_the_limit(%x: f32) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<35184372088896xf32>
  %b = memref.alloc() : memref<35184372088896xf32>
  memref.store %x, %a[%c0] : memref<35184372088896xf32>
  memref.store %x, %b[%c0] : memref<35184372088896xf32>
  memref.store %x, %a[%c0] : memref<35184372088896xf32>
  func.return
}

// CHECK-LABEL: func.func @past_the_limit
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = memref.alloc() {lanearena.own = "the arena would take 281474976711168 bytes live at once, more than a device addresses (2^48)"}
// CHECK-NEXT:    %b = memref.alloc() {lanearena.own = "the arena would take 281474976711168 bytes live at once, more than a device addresses (2^48)"}
