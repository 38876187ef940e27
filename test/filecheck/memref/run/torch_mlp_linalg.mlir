// RUN: lanearena-run %s --seed 0 --verbose > %t.before
// RUN: lanearena-opt %s -p memref-arena-place | tee %t.placed | lanearena-run - --seed 0 --verbose > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.placed

// mlp (d 8, heads 2, seq 2, ffn 8, vocab 16, layers 1), random weights, exported by torch 2.13.0+cpu (torch.export),
// lowered to linalg on tensors by torch-mlir 20261001, bufferized by iree-opt (iree-base-compiler 3.13.0):
// --linalg-generalize-named-ops '--one-shot-bufferize=bufferize-function-boundaries
// function-boundary-type-conversion=identity-layout-map' --canonicalize --cse --ownership-based-buffer-deallocation
// --canonicalize --buffer-deallocation-simplification --bufferization-lower-deallocations --canonicalize --cse
// --mlir-print-op-generic; with its linalg ops kept. Made by `python bench/mlirgen.py --shapes lit --models mlp --lit
// DIR`.
// Arguments: input, up.weight, up.bias, down.weight, down.bias.
// 3 buffers placed (escapes through func.return: the result), the arena at the lower bound, 768 bytes (768 without
// reuse); placed, it runs the same; torch's result on the arguments lanearena-run --seed 0 draws:
// TORCH: [2.547253, 2.247835, -0.5833141, -1.28358, 0.2132799, -0.7522177, -0.2672925, -0.4479115, -1.592315, 0.458157, -4.20065, 0.8526127, -1.792526, 0.8292278, 0.8751372, -1.368268]
// CHECK: lanearena.bytes = 768 : i64, lanearena.lower_bound = 768 : i64
// CHECK: lanearena.own = "escapes through func.return"

#map = affine_map<(d0, d1) -> (d1, d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map6 = affine_map<(d0, d1) -> (d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<2x8xf32>, memref<8x8xf32>, memref<8xf32>, memref<8x8xf32>, memref<8xf32>) -> memref<2x8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: memref<2x8xf32>, %arg1: memref<8x8xf32>, %arg2: memref<8xf32>, %arg3: memref<8x8xf32>, %arg4: memref<8xf32>):
    %0 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %1 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %2 = "arith.constant"() <{value = 5.000000e-01 : f32}> : () -> f32
    %3 = "arith.constant"() <{value = 1.41421354 : f32}> : () -> f32
    %4 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "linalg.generic"(%arg1, %4) <{indexing_maps = [#map, #map1], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg23: f32, %arg24: f32):
      "linalg.yield"(%arg23) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %5 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    %6 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "linalg.generic"(%0, %6) <{indexing_maps = [#map2, #map1], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg21: f32, %arg22: f32):
      "linalg.yield"(%arg21) : (f32) -> ()
    }) : (f32, memref<2x8xf32>) -> ()
    %7 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%6, %7) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%arg0, %4, %7) <{indexing_maps = [#map3, #map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg18: f32, %arg19: f32, %arg20: f32):
      %17 = "arith.mulf"(%arg18, %arg19) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %18 = "arith.addf"(%arg20, %17) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%18) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%7, %arg2, %5) <{indexing_maps = [#map1, #map6, #map1], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg15: f32, %arg16: f32, %arg17: f32):
      %16 = "arith.addf"(%arg15, %arg16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%16) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%5, %5) <{indexing_maps = [#map1, #map1], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg13: f32, %arg14: f32):
      %11 = "arith.divf"(%arg13, %3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %12 = "math.erf"(%11) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %13 = "arith.addf"(%12, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %14 = "arith.mulf"(%13, %2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %15 = "arith.mulf"(%arg13, %14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%15) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%arg3, %4) <{indexing_maps = [#map, #map1], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg11: f32, %arg12: f32):
      "linalg.yield"(%arg11) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    "linalg.generic"(%5, %4, %6) <{indexing_maps = [#map3, #map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg8: f32, %arg9: f32, %arg10: f32):
      %9 = "arith.mulf"(%arg8, %arg9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %10 = "arith.addf"(%arg10, %9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%10) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%6, %arg4, %5) <{indexing_maps = [#map1, #map6, #map1], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg5: f32, %arg6: f32, %arg7: f32):
      %8 = "arith.addf"(%arg5, %arg6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%8) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8xf32>, memref<2x8xf32>) -> ()
    "memref.dealloc"(%4) : (memref<8x8xf32>) -> ()
    "memref.dealloc"(%6) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%7) : (memref<2x8xf32>) -> ()
    "func.return"(%5) : (memref<2x8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

