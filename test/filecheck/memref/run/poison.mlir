// RUN: lanearena-run %s | filecheck %s

// Fresh bytes are poisoned: NaN for floats, -1 (0xFF bytes) for integers. A view of an arena made by
// memref-arena-place (marked by `lanearena.bytes`) is a fresh allocation too, so a placement that put two live
// buffers on the same bytes shows in what the function prints.

func.func @main() {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %fresh = memref.alloc() : memref<2xf32>
  %f = memref.load %fresh[%c0] : memref<2xf32>
  printf.print_format "fresh f32 {}\n", %f : f32
  %ints = memref.alloca() : memref<2xi16>
  %i = memref.load %ints[%c0] : memref<2xi16>
  printf.print_format "fresh i16 {}\n", %i : i16

  %arena = memref.alloc() {lanearena.bytes = 512 : i64} : memref<512xi8>
  %at0 = arith.constant 0 : index
  %at256 = arith.constant 256 : index
  %a = memref.view %arena[%at0][] : memref<512xi8> to memref<4xf32>
  memref.store %one, %a[%c0] : memref<4xf32>
  %apart = memref.view %arena[%at256][] : memref<512xi8> to memref<4xf32>
  %x = memref.load %a[%c0] : memref<4xf32>
  printf.print_format "apart {}\n", %x : f32
  %over = memref.view %arena[%at0][] : memref<512xi8> to memref<4xf32>
  %y = memref.load %a[%c0] : memref<4xf32>
  printf.print_format "overlapping {}\n", %y : f32
  memref.dealloc %arena : memref<512xi8>
  func.return
}

// CHECK:      fresh f32 nan
// CHECK-NEXT: fresh i16 -1
// CHECK-NEXT: apart 1.0
// CHECK-NEXT: overlapping nan
